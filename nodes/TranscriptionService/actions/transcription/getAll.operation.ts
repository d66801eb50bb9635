import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { PublicTranscriptionListResponse } from '../../../../src/api';
import { CursorWalk, type PageQuery } from '../../../../src/client';
import { operationError } from '../../../shared/errors';
import type { ApiResponse, TranscriptionServiceClient } from '../../../shared/transport';
import { statusOptions } from '../../../shared/vocabulary';

/** The API's largest page (spec 4.5). */
const MAX_PAGE_SIZE = 100;

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
		typeOptions: { minValue: 1, maxValue: MAX_PAGE_SIZE },
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
	const query: PageQuery = {
		limit: returnAll ? MAX_PAGE_SIZE : (this.getNodeParameter('limit', itemIndex) as number),
	};
	if (typeof filters.status === 'string' && filters.status !== '') query.status = filters.status;

	const jobs: IDataObject[] = [];
	const walk = new CursorWalk();
	for (let page: PageQuery | undefined = query; page;) {
		const response: ApiResponse<PublicTranscriptionListResponse> = await client.request({
			operation: 'listTranscriptions',
			query: page,
			itemIndex,
		});
		jobs.push(...(response.body.items as unknown as IDataObject[]));
		if (!returnAll) break;
		const next = walk.next(response.body.links.next, page);
		if (next.kind === 'repeated_cursor' || next.kind === 'too_many_pages') {
			throw operationError(this.getNode(), {
				code: 'pagination_stopped',
				message:
					next.kind === 'repeated_cursor'
						? `The service's next page repeats cursor ${next.cursor} after ${next.pages} pages (${jobs.length} jobs); stopped instead of looping`
						: `Return All stopped after ${next.pages} pages (${jobs.length} jobs), the most this node fetches in one run`,
				description:
					next.kind === 'repeated_cursor'
						? 'The list would never end. Narrow it with the Status filter, or turn Return All off and page with Limit.'
						: 'Narrow the list with the Status filter, or turn Return All off and use Limit.',
				itemIndex,
			});
		}
		page = next.kind === 'next' ? next.query : undefined;
	}
	return jobs.map((job) => ({ json: job }));
}
