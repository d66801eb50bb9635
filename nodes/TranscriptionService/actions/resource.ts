import type { INodeProperties } from 'n8n-workflow';

import type { OperationName, ResourceName } from './node.type';
import type { ResourceOperations } from './types';

/** The resource's Operation parameter (options sorted by name, as n8n's lint wants) and each operation's fields. */
export function resourceDescription<R extends ResourceName>(
	resource: R,
	operations: ResourceOperations<R>,
	defaultOperation: OperationName<R>,
): INodeProperties[] {
	const entries = Object.entries(operations) as Array<
		[string, ResourceOperations<R>[OperationName<R>]]
	>;
	return [
		{
			displayName: 'Operation',
			name: 'operation',
			type: 'options',
			noDataExpression: true,
			displayOptions: { show: { resource: [resource] } },
			options: entries
				.map(([value, entry]) => ({ ...entry.option, value }))
				.sort((left, right) => left.name.localeCompare(right.name)),
			default: defaultOperation,
		},
		...entries.flatMap(([, entry]) => entry.module.description),
	];
}
