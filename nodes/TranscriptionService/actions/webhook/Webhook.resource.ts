import type { INodeProperties } from 'n8n-workflow';

import type { OperationModule } from '../types';
import * as sendTestEvent from './sendTestEvent.operation';

export const operations: Record<string, OperationModule> = { sendTestEvent };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['webhook'] } },
		options: [
			{
				name: 'Send Test Event',
				value: 'sendTestEvent',
				description: 'Send a signed synthetic event to a URL, without creating a job',
				action: 'Send a test webhook event',
			},
		],
		default: 'sendTestEvent',
	},
	...sendTestEvent.description,
];
