// The workflows the queue-mode suite and benchmark import: media arrives as a production webhook upload (what a
// form upload or an app's POST looks like), so the binary enters n8n on a webhook processor and a worker reads it
// back from the database; the trigger's events arrive through the router.
import type { INode } from 'n8n-workflow';

import { CREDENTIAL_TYPE } from '../n8n/environment';
import type { WorkflowJson } from '../n8n/workflows';
import type { ArtifactFormat } from '../../../src/artifacts';

export const PACKAGE_NODE = 'n8n-nodes-transcription-service.transcriptionService';
export const PACKAGE_TRIGGER = 'n8n-nodes-transcription-service.transcriptionServiceTrigger';
export const TRANSCRIBE_NODE = 'Transcribe and Download';
export const TRIGGER_NODE = 'Transcription Events';

export interface CredentialRef {
	id: string;
	name: string;
}

function workflow(id: string, name: string, nodes: INode[]): WorkflowJson {
	const connections: Record<string, unknown> = {};
	for (const [index, node] of nodes.slice(0, -1).entries()) {
		connections[node.name] = { main: [[{ node: nodes[index + 1].name, type: 'main', index: 0 }]] };
	}
	return {
		id,
		name,
		nodes,
		connections,
		settings: { executionOrder: 'v1' },
		pinData: {},
		active: false,
	};
}

/** A production webhook that takes the request body as the binary `data` (Content-Type and file name from the request). */
function uploadWebhook(path: string): INode {
	return {
		id: `${path}-webhook`,
		name: 'Upload',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position: [0, 0],
		webhookId: `${path}-hook`,
		parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
	};
}

export interface TranscribeWorkflowOptions {
	id: string;
	/**
	 * The production webhook path: the media is POSTed to it (one item), or with `fromFolder` a JSON body
	 * `{"glob": …}` names files the worker reads from the shared files folder (one item per file).
	 */
	path: string;
	fromFolder?: boolean;
	credential: CredentialRef;
	formats: ArtifactFormat[];
	waitMode: 'poll' | 'pauseUntilWebhook';
	/** Max Wait in seconds. */
	maxWaitSeconds?: number;
	/** Where a failed item goes (default: the success output, as an item with `error`). */
	onError?: 'continueRegularOutput' | 'continueErrorOutput';
	pollIntervalSeconds?: number;
	maxPollIntervalSeconds?: number;
}

/**
 * Upload → Transcribe and Download; a failed item is an output item with `error` (counted, not an error stop), on
 * the success output or, with `onError: 'continueErrorOutput'`, on the error output.
 */
export function transcribeWorkflow(options: TranscribeWorkflowOptions): WorkflowJson {
	const input: INode[] = options.fromFolder
		? [
				uploadWebhook(options.path),
				{
					id: `${options.path}-read`,
					name: 'Read Media',
					type: 'n8n-nodes-base.readWriteFile',
					typeVersion: 1,
					position: [120, 0],
					parameters: { operation: 'read', fileSelector: '={{ $json.body.glob }}', options: {} },
				},
			]
		: [uploadWebhook(options.path)];
	return workflow(options.id, `queue: transcribe ${options.path}`, [
		...input,
		{
			id: `${options.path}-transcribe`,
			name: TRANSCRIBE_NODE,
			type: PACKAGE_NODE,
			typeVersion: 1,
			position: [240, 0],
			credentials: { [CREDENTIAL_TYPE]: options.credential },
			onError: options.onError ?? 'continueRegularOutput',
			parameters: {
				resource: 'transcription',
				operation: 'transcribeAndDownload',
				binaryPropertyName: 'data',
				formats: options.formats,
				waitMode: options.waitMode,
				additionalFields: {},
				options: {
					maxWaitSeconds: options.maxWaitSeconds ?? 600,
					...(options.waitMode === 'poll'
						? {
								pollIntervalSeconds: options.pollIntervalSeconds ?? 1,
								maxPollIntervalSeconds: options.maxPollIntervalSeconds ?? 2,
							}
						: {}),
				},
			},
		},
	]);
}

/**
 * Upload → n8n's own Read/Write Files from Disk node writing the binary out: what reading an uploaded binary back
 * costs a worker in this binary data mode, without our node (the memory floor the large-file test compares with).
 */
export function writeToDiskWorkflow(id: string, path: string, fileName: string): WorkflowJson {
	return workflow(id, `queue: write upload to disk ${path}`, [
		uploadWebhook(path),
		{
			id: `${path}-write`,
			name: 'Write to Disk',
			type: 'n8n-nodes-base.readWriteFile',
			typeVersion: 1,
			position: [240, 0],
			parameters: { operation: 'write', fileName, dataPropertyName: 'data', options: {} },
		},
	]);
}

export function triggerWorkflow(id: string, credential: CredentialRef): WorkflowJson {
	return workflow(id, `queue: trigger ${id}`, [
		{
			id: `${id}-trigger`,
			name: TRIGGER_NODE,
			type: PACKAGE_TRIGGER,
			typeVersion: 1,
			position: [0, 0],
			webhookId: `${id}-hook`,
			credentials: { [CREDENTIAL_TYPE]: credential },
			parameters: { events: ['transcription.completed', 'transcription.failed'], options: {} },
		},
	]);
}

/**
 * A recording by its link: a JSON POST `{"url": …}` to the production webhook `path` → Transcribe and Download,
 * Media Source URL (TXT); or, `through: 'httpRequest'`, the flow a user builds without it: HTTP Request (GET, response
 * as a file) → Transcribe and Download of that binary. A failed item is an output item with `error`.
 */
export function transcribeLinkWorkflow(options: {
	id: string;
	path: string;
	credential: CredentialRef;
	through: 'mediaSource' | 'httpRequest';
}): WorkflowJson {
	const link = '={{ $json.body.url }}';
	const download: INode[] =
		options.through === 'httpRequest'
			? [
					{
						id: `${options.path}-http`,
						name: 'HTTP Request',
						type: 'n8n-nodes-base.httpRequest',
						typeVersion: 4.2,
						position: [120, 0],
						parameters: {
							url: link,
							options: {
								response: { response: { responseFormat: 'file', outputPropertyName: 'data' } },
							},
						},
					},
				]
			: [];
	return workflow(options.id, `queue: transcribe a link ${options.path}`, [
		{
			id: `${options.path}-webhook`,
			name: 'Link',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			position: [0, 0],
			webhookId: `${options.path}-hook`,
			parameters: {
				httpMethod: 'POST',
				path: options.path,
				responseMode: 'onReceived',
				options: {},
			},
		},
		...download,
		{
			id: `${options.path}-transcribe`,
			name: TRANSCRIBE_NODE,
			type: PACKAGE_NODE,
			typeVersion: 1,
			position: [240, 0],
			credentials: { [CREDENTIAL_TYPE]: options.credential },
			onError: 'continueRegularOutput',
			parameters: {
				resource: 'transcription',
				operation: 'transcribeAndDownload',
				...(options.through === 'mediaSource'
					? { mediaSource: 'url', mediaUrl: link }
					: { binaryPropertyName: 'data' }),
				formats: ['txt'],
				waitMode: 'poll',
				additionalFields: {},
				options: { maxWaitSeconds: 900, pollIntervalSeconds: 1, maxPollIntervalSeconds: 2 },
			},
		},
	]);
}
