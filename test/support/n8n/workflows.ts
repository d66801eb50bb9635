// Workflow JSON as n8n imports it: the examples/ files and the suite's own fixtures, adapted to one run
// (file folders, the trigger's production URL) without changing what they do.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { INode, INodeTypeDescription } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { REPO_ROOT } from './versions';

export interface WorkflowJson {
	id: string;
	name: string;
	nodes: INode[];
	connections: Record<string, unknown>;
	settings?: Record<string, unknown>;
	[key: string]: unknown;
}

/** The folder the examples read from and write to (n8n 2's default for Read/Write Files from Disk, in Docker). */
export const EXAMPLE_FILES_FOLDER = '/home/node/.n8n-files';

export const EXAMPLES = {
	form: 'form-transcribe-and-respond.json',
	trigger: 'trigger-download-and-save.json',
	batch: 'scheduled-batch.json',
	pause: 'folder-pause-until-webhook.json',
	polling: 'polling-save-transcripts.json',
	podcast: 'podcast-feed-transcribe.json',
} as const;

export function loadExample(fileName: string): WorkflowJson {
	return JSON.parse(
		readFileSync(path.join(REPO_ROOT, 'examples', fileName), 'utf8'),
	) as WorkflowJson;
}

export function loadFixture(fileName: string): WorkflowJson {
	return JSON.parse(
		readFileSync(path.join(__dirname, '../fixtures/workflows', fileName), 'utf8'),
	) as WorkflowJson;
}

/** The workflow with every mention of the examples' files folder pointed at this run's. */
export function relocate(workflow: WorkflowJson, filesFolder: string): WorkflowJson {
	return JSON.parse(
		JSON.stringify(workflow).split(EXAMPLE_FILES_FOLDER).join(filesFolder),
	) as WorkflowJson;
}

export function findNode(workflow: WorkflowJson, nodeName: string): INode {
	const node = workflow.nodes.find((candidate) => candidate.name === nodeName);
	if (!node) throw new Error(`Workflow "${workflow.name}" has no node "${nodeName}"`);
	return node;
}

// The built node, loaded the way n8n loads it (CommonJS from dist/).
const loadBuilt = createRequire(__filename);

function builtTriggerDescription(): INodeTypeDescription {
	const modulePath = path.join(
		REPO_ROOT,
		'dist/nodes/TranscriptionServiceTrigger/TranscriptionServiceTrigger.node.js',
	);
	const { TranscriptionServiceTrigger } = loadBuilt(modulePath) as {
		TranscriptionServiceTrigger: new () => { description: INodeTypeDescription };
	};
	return new TranscriptionServiceTrigger().description;
}

/** The production URL n8n serves a trigger node's POST webhook on, from the built node's own description. */
export function triggerProductionUrl(
	n8nBaseUrl: string,
	workflow: WorkflowJson,
	nodeName: string,
): string {
	const node = findNode(workflow, nodeName);
	const webhook = builtTriggerDescription().webhooks?.find(
		(candidate) => candidate.httpMethod === 'POST',
	);
	if (!webhook) throw new Error('The trigger describes no POST webhook');
	const webhookPath = typeof webhook.path === 'string' ? webhook.path : '';
	const isFullPath = webhook.isFullPath === true;
	return NodeHelpers.getNodeWebhookUrl(
		`${n8nBaseUrl}/webhook`,
		workflow.id,
		node,
		webhookPath,
		isFullPath,
	);
}
