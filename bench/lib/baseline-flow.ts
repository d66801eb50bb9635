// The flow a user builds from n8n's own nodes to do what Transcribe and Download does: media items → Loop Over
// Items (one at a time) → HTTP Request "create slot" → Merge (to get the binary back beside the slot) → HTTP Request PUT of the
// binary → HTTP Request "create job" → Wait 5 s → HTTP Request "get status" → IF completed → HTTP Request
// "download" → next item; not completed → back to Wait.

import type { IConnections, INode, INodeExecutionData } from 'n8n-workflow';

import { allRunItems, baseNodesAvailable, runBaseWorkflow } from './base-nodes-engine';

export { baseNodesAvailable };

export const BASELINE_POLL_SECONDS = 5;
/** The bound on one item's turn through the loop; the run as a whole stops after items × this. */
const MAX_SECONDS_PER_ITEM = 120;

type NodeSpec = Omit<INode, 'id' | 'position'>;

function httpRequest(name: string, apiKey: string, parameters: Record<string, unknown>): NodeSpec {
	return {
		name,
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		parameters: {
			sendHeaders: true,
			headerParameters: { parameters: [{ name: 'Authorization', value: `Bearer ${apiKey}` }] },
			options: {},
			...parameters,
		},
	};
}

function jsonBody(expression: string): Record<string, unknown> {
	return {
		sendBody: true,
		contentType: 'json',
		specifyBody: 'json',
		jsonBody: `={{ JSON.stringify(${expression}) }}`,
	};
}

export function baselineWorkflow(args: { apiKey: string; baseUrl: string }): {
	nodes: NodeSpec[];
	connections: IConnections;
} {
	const api = `${args.baseUrl}/api/v1`;
	const nodes: NodeSpec[] = [
		// Where the media items enter, as they would from a file-reading node (the loop needs a node before it).
		{ name: 'Media Files', type: 'n8n-nodes-base.noOp', typeVersion: 1, parameters: {} },
		{
			name: 'Loop Over Items',
			type: 'n8n-nodes-base.splitInBatches',
			typeVersion: 3,
			parameters: { batchSize: 1, options: {} },
		},
		httpRequest('Create Slot', args.apiKey, {
			method: 'POST',
			url: `${api}/uploads`,
			...jsonBody(
				'{ filename: $binary.data.fileName, content_type: $binary.data.mimeType, size_bytes: $binary.data.bytes }',
			),
		}),
		{
			name: 'Slot And Binary',
			type: 'n8n-nodes-base.merge',
			typeVersion: 3,
			parameters: { mode: 'combine', combineBy: 'combineByPosition', options: {} },
		},
		httpRequest('Upload Bytes', args.apiKey, {
			method: 'PUT',
			url: `=${args.baseUrl}{{ $json.upload_url }}`,
			sendBody: true,
			contentType: 'binaryData',
			inputDataFieldName: 'data',
		}),
		httpRequest('Create Job', args.apiKey, {
			method: 'POST',
			url: `${api}/transcriptions`,
			...jsonBody("{ upload_id: $('Create Slot').item.json.upload_id }"),
		}),
		{
			name: 'Wait',
			type: 'n8n-nodes-base.wait',
			typeVersion: 1.1,
			parameters: { resume: 'timeInterval', amount: BASELINE_POLL_SECONDS, unit: 'seconds' },
			webhookId: 'bench-baseline-wait',
		},
		httpRequest('Get Status', args.apiKey, {
			method: 'GET',
			url: `=${api}/transcriptions/{{ $('Create Job').item.json.job_id }}`,
		}),
		{
			name: 'Completed?',
			type: 'n8n-nodes-base.if',
			typeVersion: 2.2,
			parameters: {
				conditions: {
					options: { caseSensitive: true, leftValue: '', typeValidation: 'strict', version: 2 },
					conditions: [
						{
							id: 'status-completed',
							leftValue: '={{ $json.status }}',
							rightValue: 'completed',
							operator: { type: 'string', operation: 'equals' },
						},
					],
					combinator: 'and',
				},
				options: {},
			},
		},
		httpRequest('Download', args.apiKey, {
			method: 'GET',
			url: `=${api}/transcriptions/{{ $json.job_id }}/artifact`,
			options: { response: { response: { responseFormat: 'file' } } },
		}),
	];
	const to = (node: string, index = 0) => ({ node, type: 'main' as const, index });
	const connections: IConnections = {
		'Media Files': { main: [[to('Loop Over Items')]] },
		'Loop Over Items': { main: [[], [to('Create Slot'), to('Slot And Binary', 1)]] },
		'Create Slot': { main: [[to('Slot And Binary', 0)]] },
		'Slot And Binary': { main: [[to('Upload Bytes')]] },
		'Upload Bytes': { main: [[to('Create Job')]] },
		'Create Job': { main: [[to('Wait')]] },
		Wait: { main: [[to('Get Status')]] },
		'Get Status': { main: [[to('Completed?')]] },
		'Completed?': { main: [[to('Download')], [to('Wait')]] },
		Download: { main: [[to('Loop Over Items')]] },
	};
	return { nodes, connections };
}

export interface BaselineResult {
	completed: number;
	error: string | null;
}

export async function runBaselineFlow(args: {
	items: INodeExecutionData[];
	apiKey: string;
	baseUrl: string;
}): Promise<BaselineResult> {
	const { nodes, connections } = baselineWorkflow(args);
	const run = await runBaseWorkflow({
		nodes,
		connections,
		startNode: 'Media Files',
		input: args.items,
		cancelAfterMs: args.items.length * MAX_SECONDS_PER_ITEM * 1000,
	});
	const downloads = allRunItems(run, 'Download').filter((item) => item.binary?.data !== undefined);
	return { completed: downloads.length, error: run.data.resultData.error?.message ?? null };
}
