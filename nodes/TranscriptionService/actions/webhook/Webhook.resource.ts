import { resourceDescription } from '../resource';
import type { ResourceOperations } from '../types';
import * as sendTestEvent from './sendTestEvent.operation';

export const operations: ResourceOperations<'webhook'> = {
	sendTestEvent: {
		module: sendTestEvent,
		option: {
			name: 'Send Test Event',
			description: 'Send a signed synthetic event to a URL, without creating a job',
			action: 'Send a test webhook event',
		},
	},
};

export const description = resourceDescription('webhook', operations, 'sendTestEvent');
