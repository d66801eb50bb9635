import type { INodeProperties } from 'n8n-workflow';

import type { OperationModule } from '../types';
import * as createSlot from './createSlot.operation';
import * as sendMedia from './sendMedia.operation';

export const operations: Record<string, OperationModule> = { createSlot, sendMedia };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['upload'] } },
		options: [
			{
				name: 'Create Slot',
				value: 'createSlot',
				description: 'Reserve a single-use upload slot (valid for 30 minutes)',
				action: 'Create an upload slot',
			},
			{
				name: 'Send Media',
				value: 'sendMedia',
				description: 'Stream the media bytes of a binary field into an upload slot',
				action: 'Send media to an upload slot',
			},
		],
		default: 'createSlot',
	},
	...createSlot.description,
	...sendMedia.description,
];
