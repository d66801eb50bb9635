// A real n8n (the e2e suite's 2.8 install, the packed pack in its user folder) with workflows made for the
// trigger benchmark and the webhook attack matrix: our trigger, n8n's plain Webhook node, and optionally an HTTP
// Request node after either that reports each execution's event_id to a loopback collector.

import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { INode } from 'n8n-workflow';

import { SANDBOX_CREDENTIAL, startEnvironment, type E2eEnvironment } from './environment';
import { n8nInstall } from './versions';
import { triggerProductionUrl, type WorkflowJson } from './workflows';

export const TRIGGER_NODE = 'Transcription Events';
export const PLAIN_WEBHOOK_PATH = 'bench-plain-webhook';

/** Why a real n8n cannot be started here, or null when it can. */
export function realN8nUnavailable(): string | null {
	try {
		n8nInstall('2.8');
		return null;
	} catch (error) {
		return (error as Error).message;
	}
}

function reporterNode(reportUrl: string): INode {
	return {
		id: 'report-node',
		name: 'Report',
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		position: [300, 0],
		parameters: {
			method: 'POST',
			url: reportUrl,
			sendBody: true,
			contentType: 'json',
			specifyBody: 'json',
			jsonBody:
				'={{ JSON.stringify({ event_id: $json.event_id ?? $json.body?.event_id, event: $json.event ?? $json.body?.event }) }}',
			options: {},
		},
	};
}

function withReporter(
	workflow: WorkflowJson,
	fromNode: string,
	reportUrl: string | undefined,
): WorkflowJson {
	if (!reportUrl) return workflow;
	return {
		...workflow,
		nodes: [...workflow.nodes, reporterNode(reportUrl)],
		connections: { [fromNode]: { main: [[{ node: 'Report', type: 'main', index: 0 }]] } },
	};
}

export function triggerWorkflow(id: string, reportUrl?: string): WorkflowJson {
	return withReporter(
		{
			id,
			name: `bench: trigger ${id}`,
			nodes: [
				{
					id: 'trigger-node',
					name: TRIGGER_NODE,
					type: 'n8n-nodes-transcription-service.transcriptionServiceTrigger',
					typeVersion: 1,
					position: [0, 0],
					webhookId: `${id}-hook`,
					credentials: { transcriptionServiceApi: SANDBOX_CREDENTIAL },
					parameters: { events: ['transcription.completed', 'transcription.failed'], options: {} },
				},
			],
			connections: {},
			settings: { executionOrder: 'v1' },
			pinData: {},
			active: false,
		},
		TRIGGER_NODE,
		reportUrl,
	);
}

export function plainWebhookWorkflow(id: string, reportUrl?: string): WorkflowJson {
	return withReporter(
		{
			id,
			name: `bench: plain webhook ${id}`,
			nodes: [
				{
					id: 'webhook-node',
					name: 'Webhook',
					type: 'n8n-nodes-base.webhook',
					typeVersion: 2,
					position: [0, 0],
					webhookId: `${id}-hook`,
					parameters: {
						httpMethod: 'POST',
						path: PLAIN_WEBHOOK_PATH,
						responseMode: 'onReceived',
						options: {},
					},
				},
			],
			connections: {},
			settings: { executionOrder: 'v1' },
			pinData: {},
			active: false,
		},
		'Webhook',
		reportUrl,
	);
}

export interface RealN8n {
	environment: E2eEnvironment;
	triggerUrl(workflow: WorkflowJson): string;
	plainWebhookUrl: string;
	/** How many executions of the workflow n8n has stored (its editor's own count). */
	executionCount(workflowId: string): Promise<number>;
	stop(): Promise<void>;
}

export async function startRealN8n(workflows: WorkflowJson[]): Promise<RealN8n> {
	const workDir = await mkdtemp(path.join(tmpdir(), 'tss-bench-n8n-'));
	const environment = await startEnvironment({
		versionId: '2.8',
		workDir,
		workflows: () => workflows,
		activate: workflows.map((workflow) => workflow.id),
	});
	const baseUrl = environment.n8n.baseUrl;
	return {
		environment,
		triggerUrl: (workflow) => triggerProductionUrl(baseUrl, workflow, TRIGGER_NODE),
		plainWebhookUrl: `${baseUrl}/webhook/${PLAIN_WEBHOOK_PATH}`,
		async executionCount(workflowId) {
			// The public API pages at most 250 executions at a time.
			let count = 0;
			let cursor: string | null | undefined;
			do {
				const query = new URLSearchParams({
					workflowId,
					limit: '250',
					...(cursor ? { cursor } : {}),
				});
				const response = await fetch(`${baseUrl}/api/v1/executions?${query.toString()}`, {
					headers: { 'x-n8n-api-key': environment.api.session.apiKey },
				});
				if (!response.ok)
					throw new Error(`/api/v1/executions → ${response.status}: ${await response.text()}`);
				const page = (await response.json()) as { data: unknown[]; nextCursor?: string | null };
				count += page.data.length;
				cursor = page.nextCursor;
			} while (cursor);
			return count;
		},
		stop: () => environment.stop(),
	};
}
