// What the e2e suite imports into n8n, and the context the global setup hands the test files
// (they run in other module registries, so it travels as a JSON file).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

import type { WorkflowPlaces } from './environment';
import { N8nInstance } from './n8n';
import { N8nApi } from './rest';
import type { N8nVersionId } from './versions';
import { isN8nVersionId, N8N_VERSION_IDS, n8nInstall, REPO_ROOT, WORK_DIR } from './versions';
import type { WorkflowJson } from './workflows';
import {
	EXAMPLES,
	findNode,
	loadExample,
	loadFixture,
	relocate,
	triggerProductionUrl,
} from './workflows';

export const WORKFLOW_IDS = {
	exampleForm: 'tssExampleForm01',
	exampleTrigger: 'tssExampleTrig01',
	exampleBatch: 'tssExampleBatch1',
	batch: 'tssE2eBatchTD01',
	everyOperation: 'tssE2eEveryOp01',
	triggerWithArtifact: 'tssE2eTrigArt01',
} as const;

const TRIGGER_NODES = {
	exampleTrigger: 'On Transcription Completed',
	triggerWithArtifact: 'Transcription Events',
} as const;

export interface SuiteContext {
	versionId: N8nVersionId;
	n8nVersion: string;
	nodeVersion: string;
	n8nBaseUrl: string;
	n8nPort: number;
	userFolder: string;
	filesFolder: string;
	sandboxBaseUrl: string;
	session: { cookie: string; apiKey: string };
	/** Production URLs of the active triggers; absent when the trigger node is not built. */
	triggerUrls?: { exampleTrigger: string; triggerWithArtifact: string };
	keys: { live: string; test: string; signingSecret: string };
}

export function triggerIsBuilt(): boolean {
	return existsSync(
		path.join(
			REPO_ROOT,
			'dist/nodes/TranscriptionServiceTrigger/TranscriptionServiceTrigger.node.js',
		),
	);
}

/** The examples and fixtures, adapted to this run; trigger workflows only when the trigger is built. */
export function suiteWorkflows(places: WorkflowPlaces): WorkflowJson[] {
	const workflows = [
		loadExample(EXAMPLES.form),
		loadFixture('transcribe-batch.json'),
		loadFixture('every-operation.json'),
	];
	if (triggerIsBuilt()) {
		const { exampleTrigger, exampleBatch, triggerWithArtifact } = triggerWorkflows(
			places.n8nBaseUrl,
		);
		workflows.push(exampleTrigger, exampleBatch, triggerWithArtifact);
	}
	return workflows.map((workflow) => relocate(workflow, places.filesFolder));
}

export function triggerWorkflows(n8nBaseUrl: string) {
	const exampleTrigger = loadExample(EXAMPLES.trigger);
	const triggerWithArtifact = loadFixture('trigger-with-artifact.json');
	const exampleTriggerUrl = triggerProductionUrl(
		n8nBaseUrl,
		exampleTrigger,
		TRIGGER_NODES.exampleTrigger,
	);
	const exampleBatch = loadExample(EXAMPLES.batch);
	// What the README asks of users: paste the trigger's production URL into Create's Webhook URL.
	const create = findNode(exampleBatch, 'Create Transcription');
	create.parameters = {
		...create.parameters,
		additionalFields: {
			...(create.parameters.additionalFields as object),
			webhook_url: exampleTriggerUrl,
		},
	};
	return {
		exampleTrigger,
		exampleBatch,
		triggerWithArtifact,
		urls: {
			exampleTrigger: exampleTriggerUrl,
			triggerWithArtifact: triggerProductionUrl(
				n8nBaseUrl,
				triggerWithArtifact,
				TRIGGER_NODES.triggerWithArtifact,
			),
		},
	};
}

export function activeWorkflowIds(): string[] {
	const ids: string[] = [WORKFLOW_IDS.exampleForm, WORKFLOW_IDS.batch, WORKFLOW_IDS.everyOperation];
	if (triggerIsBuilt()) ids.push(WORKFLOW_IDS.exampleTrigger, WORKFLOW_IDS.triggerWithArtifact);
	return ids;
}

export function suiteVersionId(): N8nVersionId {
	const versionId = process.env.E2E_N8N_VERSION ?? '';
	if (!isN8nVersionId(versionId)) {
		throw new Error(
			`E2E_N8N_VERSION must name one installed n8n (${N8N_VERSION_IDS.join(', ')}); got "${versionId}". Use npm run test:e2e.`,
		);
	}
	return versionId;
}

export function contextFile(versionId: N8nVersionId): string {
	return path.join(WORK_DIR, versionId, 'context.json');
}

export interface SuiteHandles {
	context: SuiteContext;
	api: N8nApi;
	/** For CLI commands (`n8n execute`) against the running instance's user folder. */
	n8n(): Promise<N8nInstance>;
}

export function suiteHandles(): SuiteHandles {
	const context = JSON.parse(readFileSync(contextFile(suiteVersionId()), 'utf8')) as SuiteContext;
	return {
		context,
		api: N8nApi.fromSession(context.n8nBaseUrl, context.session),
		n8n: () =>
			N8nInstance.create({
				install: n8nInstall(context.versionId),
				userFolder: context.userFolder,
				filesFolder: context.filesFolder,
				port: context.n8nPort,
			}),
	};
}
