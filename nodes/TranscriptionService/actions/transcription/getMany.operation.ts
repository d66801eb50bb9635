import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { PublicTranscriptionListResponse } from '../../../../src/api';
import type { ApiResponse, TranscriptionServiceClient } from '../../transport';
import { statusOptions } from './common';

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
	const query: IDataObject = {
		limit: returnAll ? MAX_PAGE_SIZE : this.getNodeParameter('limit', itemIndex),
	};
	if (typeof filters.status === 'string' && filters.status !== '') query.status = filters.status;

	const jobs: IDataObject[] = [];
	for (let page: IDataObject | undefined = query; page;) {
		const response: ApiResponse<PublicTranscriptionListResponse> = await client.request({
			operation: 'listTranscriptions',
			query: page,
			itemIndex,
		});
		jobs.push(...(response.body.items as unknown as IDataObject[]));
		page = returnAll ? nextPageQuery(response.body.links.next, page) : undefined;
	}
	return jobs.map((job) => ({ json: job }));
}

/** links.next carries the next page's query (cursor, limit, status); a missing or page-less link ends the walk. */
function nextPageQuery(
	next: string | null | undefined,
	current: IDataObject,
): IDataObject | undefined {
	if (!next) return undefined;
	const parameters = new URL(next, 'http://link.invalid').searchParams;
	const cursor = parameters.get('cursor');
	if (cursor === null || String(current.cursor) === cursor) return undefined;
	const query: IDataObject = { ...current };
	for (const [name, value] of parameters) query[name] = value;
	return query;
}
