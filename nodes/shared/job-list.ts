// The requests of GET /transcriptions, for every node that reads the list: one per page a walk of
// src/client/pagination.ts asks for.
import type { INode } from 'n8n-workflow';

import { readListPage, type ListPage, type ListQuery } from '../../src/client';
import { operationError } from './errors';
import { answerDateMs, type TranscriptionServiceClient } from './transport';

export interface ListAnswer {
	/** The answer as received: readListPage (or the Polling Trigger's session) judges it. */
	body: unknown;
	/** The service's clock (HTTP Date, whole seconds); undefined without the header. */
	serviceNowMs: number | undefined;
}

export async function requestListPage(
	client: TranscriptionServiceClient,
	query: ListQuery,
	options: { itemIndex?: number; timeoutMs?: number } = {},
): Promise<ListAnswer> {
	const response = await client.request({
		operation: 'listTranscriptions',
		query: {
			limit: query.limit,
			...(query.cursor === undefined ? {} : { cursor: query.cursor }),
			...(query.status === undefined ? {} : { status: query.status }),
		},
		...options,
	});
	return { body: response.body, serviceNowMs: answerDateMs(response.headers) };
}

/** The page of an answer a node cannot go on without: anything but a list answer fails with invalid_list_answer. */
export function requireListPage(
	node: INode,
	answer: ListAnswer,
	query: ListQuery,
	itemIndex?: number,
): ListPage {
	const page = readListPage(answer.body, query);
	if (page) return page;
	throw operationError(node, {
		code: 'invalid_list_answer',
		message: 'The service answered GET /transcriptions with something that is not a list of jobs',
		description:
			'The service lists jobs as a JSON object with an "items" array and a "total" count. Check that the credential\'s Base URL and Path Prefix point at the Transcription Service API, not at a proxy or another server, then run it again.',
		itemIndex,
	});
}
