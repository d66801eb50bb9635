// The Job list as the engine tier sets it up and reads it: jobs created straight through the API (not through the
// node under test), and the editor's From List search run the way n8n runs it.

import { LoadOptionsContext } from 'n8n-core';
import type { INode, INodeListSearchResult, INodeParameters } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';
import { request } from 'undici';

import { makeWav } from '../fixtures/media';
import type { EngineSandbox } from './engine-sandbox';
import {
	CREDENTIAL_TYPE,
	engineAdditionalData,
	FixtureCredentialsHelper,
	fixtureCredentials,
	loadPackage,
	nodeType,
	PackageNodeTypes,
	type TestCredentials,
} from './harness';

const wav = makeWav({ seconds: 2 });

/** Direct API calls for setting the scene (not through the node under test). */
async function api<T>(
	sandbox: EngineSandbox,
	apiKey: string,
	method: 'GET' | 'POST' | 'PUT',
	path: string,
	body?: Buffer | object,
	prefix = '/api/v1',
): Promise<T> {
	const raw = Buffer.isBuffer(body);
	const response = await request(`${sandbox.sandbox.baseUrl}${prefix}${path}`, {
		method,
		headers: {
			authorization: `Bearer ${apiKey}`,
			'content-type': raw ? 'application/octet-stream' : 'application/json',
		},
		body: body === undefined ? undefined : raw ? body : JSON.stringify(body),
	});
	const parsed = (await response.body.json()) as T;
	if (response.statusCode >= 300)
		throw new Error(`${method} ${path} answered ${response.statusCode}: ${JSON.stringify(parsed)}`);
	return parsed;
}

export interface Job {
	job_id: string;
	status: string;
	created_at: string;
	links: { self: string; artifact: string };
}

/** Jobs of `wav` (2 s), created on `env`'s sandbox unless another is given. */
export function jobSetup(env: EngineSandbox) {
	async function createJob(
		apiKey: string,
		filename = 'interview.wav',
		sandbox: EngineSandbox = env,
		prefix = '/api/v1',
	): Promise<Job> {
		const slot = await api<{ upload_id: string }>(
			sandbox,
			apiKey,
			'POST',
			'/uploads',
			{ filename, content_type: 'audio/wav', size_bytes: wav.length },
			prefix,
		);
		await api(sandbox, apiKey, 'PUT', `/uploads/${slot.upload_id}/binary`, wav, prefix);
		const { job_id } = await api<{ job_id: string }>(
			sandbox,
			apiKey,
			'POST',
			'/transcriptions',
			{ upload_id: slot.upload_id },
			prefix,
		);
		return await api<Job>(sandbox, apiKey, 'GET', `/transcriptions/${job_id}`, undefined, prefix);
	}

	/** A fresh account (test key) with `count` completed jobs, oldest first. */
	async function accountWithJobs(
		count: number,
	): Promise<{ credentials: TestCredentials; accountId: string; jobs: Job[] }> {
		const key = await env.admin.createKey({ mode: 'test', tier: 'platinum' });
		const jobs: Job[] = [];
		for (let index = 0; index < count; index++) jobs.push(await createJob(key.key));
		return { credentials: env.credentials(key.key), accountId: key.account_id, jobs };
	}

	return { createJob, accountWithJobs };
}

/**
 * The editor's From List request as n8n serves it (POST /rest/dynamic-node-parameters/resource-locator-results): the
 * node being edited in a one-node workflow, n8n-core's LoadOptionsContext, the method of the node type of its version.
 */
export async function searchJobs(
	credentials: TestCredentials,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const loader = await loadPackage();
	const nodeTypes = new PackageNodeTypes(loader);
	const parameters: INodeParameters = {
		resource: 'transcription',
		operation: 'get',
		jobId: { __rl: true, mode: 'list', value: '' },
	};
	const node: INode = {
		id: 'uuid-1234',
		name: 'Temp-Node',
		type: nodeType('transcriptionService'),
		typeVersion: 1,
		position: [0, 0],
		parameters,
		credentials: { [CREDENTIAL_TYPE]: { id: 'cred-1', name: 'Transcription Service account' } },
	};
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	const additionalData = engineAdditionalData({
		executionId: 'editor',
		credentialsHelper: new FixtureCredentialsHelper(loader, fixtureCredentials(credentials)),
	});
	additionalData.currentNodeParameters = parameters;
	const context = new LoadOptionsContext(workflow, node, additionalData, 'jobId');
	const method = nodeTypes.getByNameAndVersion(node.type, node.typeVersion).methods?.listSearch
		?.searchJobs;
	if (!method) throw new Error('The node has no listSearch.searchJobs');
	return await method.call(context, filter, paginationToken);
}

/** Every page of one search, following the tokens the way the editor does when the list is scrolled. */
export async function allPages(credentials: TestCredentials, filter?: string) {
	const pages: INodeListSearchResult[] = [];
	let token: string | undefined;
	do {
		const page = await searchJobs(credentials, filter, token);
		pages.push(page);
		token = page.paginationToken as string | undefined;
	} while (token !== undefined && pages.length < 20);
	return pages;
}

/** What the list shows for a completed test-key job of `wav` (the sandbox's mock transcript is 15 s of English). */
export const expectedLabel = (job: Job, rest = '15 s · English') =>
	`${job.created_at.slice(0, 16).replace('T', ' ')} UTC · ${job.status} · ${rest} · ${job.job_id}`;
