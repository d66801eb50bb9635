import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { LIST_PAGE_SIZE, ListWalk, MAX_LIST_PAGES } from '../../../../src/client';
import { operationError } from '../../../shared/errors';
import { requestListPage, requireListPage } from '../../../shared/job-list';
import type { TranscriptionServiceClient } from '../../../shared/transport';
import { statusOptions } from '../../../shared/vocabulary';

const properties: INodeProperties[] = [
	{
		displayName: 'Return All',
		name: 'returnAll',
		type: 'boolean',
		default: false,
		description: 'Whether to return all results or only up to a given limit',
	},
	{
		displayName: 'Limit',
		name: 'limit',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: LIST_PAGE_SIZE },
		default: 50,
		description: 'Max number of results to return',
		displayOptions: { show: { returnAll: [false] } },
	},
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'Status',
				name: 'status',
				type: 'options',
				options: statusOptions,
				default: 'completed',
				description:
					'Only jobs in this status. Choose "Expression" for a status the list does not name yet.',
			},
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['transcription'], operation: ['getAll'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	client: TranscriptionServiceClient,
): Promise<INodeExecutionData[]> {
	const returnAll = this.getNodeParameter('returnAll', itemIndex) as boolean;
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	const status =
		typeof filters.status === 'string' && filters.status !== '' ? filters.status : undefined;
	// Return All: pages of 100 from the start, as links.next hands them on; otherwise one page of Limit jobs.
	const walk = new ListWalk({
		from: 'start',
		maxPages: returnAll ? MAX_LIST_PAGES : 1,
		limit: returnAll ? LIST_PAGE_SIZE : (this.getNodeParameter('limit', itemIndex) as number),
		status,
	});

	const jobs: IDataObject[] = [];
	for (let read = walk.next(); read; read = walk.next()) {
		const answer = await requestListPage(client, read, { itemIndex });
		const page = requireListPage(this.getNode(), answer, read, itemIndex);
		walk.record(read, page);
		jobs.push(...(page.items as IDataObject[]));
	}
	const stop = walk.stop;
	if (returnAll && (stop?.reason === 'repeated_cursor' || stop?.reason === 'page_bound')) {
		throw operationError(this.getNode(), {
			code: 'pagination_stopped',
			message:
				stop.reason === 'repeated_cursor'
					? `The service's next page repeats cursor ${stop.cursor} after ${walk.pagesRead} pages (${jobs.length} jobs); stopped instead of looping`
					: `Return All stopped after ${stop.pages} pages (${jobs.length} jobs), the most this node fetches in one run`,
			description:
				stop.reason === 'repeated_cursor'
					? 'The list would never end. Narrow it with the Status filter, or turn Return All off and page with Limit.'
					: 'Narrow the list with the Status filter, or turn Return All off and use Limit.',
			itemIndex,
		});
	}
	return jobs.map((job) => ({ json: job }));
}
