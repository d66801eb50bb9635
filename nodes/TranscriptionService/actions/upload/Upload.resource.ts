import { resourceDescription } from '../resource';
import type { ResourceOperations } from '../types';
import * as createSlot from './createSlot.operation';
import * as sendMedia from './sendMedia.operation';

export const operations: ResourceOperations<'upload'> = {
	createSlot: {
		module: createSlot,
		option: {
			name: 'Create Slot',
			description: 'Reserve a single-use upload slot (valid for 30 minutes)',
			action: 'Create an upload slot',
		},
	},
	sendMedia: {
		module: sendMedia,
		option: {
			name: 'Send Media',
			description: 'Stream the media bytes of a binary field or a link into an upload slot',
			action: 'Send media to an upload slot',
		},
	},
};

export const description = resourceDescription('upload', operations, 'createSlot');
