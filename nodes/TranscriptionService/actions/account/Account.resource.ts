import { resourceDescription } from '../resource';
import type { ResourceOperations } from '../types';
import * as get from './get.operation';

export const operations: ResourceOperations<'account'> = {
	get: {
		module: get,
		option: {
			name: 'Get',
			description: 'Get plan eligibility, wallet balance and API access of the account',
			action: 'Get account',
		},
	},
};

export const description = resourceDescription('account', operations, 'get');
