// Derived Idempotency-Keys tell an execution from a staging clone's execution of the same id. A clone keeps the
// encryption key (so n8n's instance id), the workflow and node ids and the execution-id sequence; only the run itself
// differs, and the key carries a mark the execution draws and keeps in its context data. n8n's Retry On Fail, which
// reruns the node within the execution, keeps the mark: a committed slot and job are replayed, not made twice.
import { Container } from '@n8n/di';
import { InstanceSettings } from 'n8n-core';

import { makeWav } from '../support/fixtures/media';
import {
	actionNode,
	ACTION_NODE,
	binaryItem,
	runWorkflow,
	type TestCredentials,
} from '../support/engine/harness';
import { useControlledClock } from '../support/clock/controlled-clock';
import { useEngineSandbox } from '../support/engine/engine-sandbox';
import { freshAccounts } from '../support/engine/accounts';

const clock = useControlledClock();
const env = useEngineSandbox({ clock, jobSeconds: 1, recordExchanges: true });
const freshAccount = freshAccounts(env);
const wav = makeWav({ seconds: 1 });

const transcribe = actionNode({
	resource: 'transcription',
	operation: 'transcribeAndDownload',
	binaryPropertyName: 'data',
	formats: ['txt'],
	options: { pollIntervalSeconds: 0.2, maxPollIntervalSeconds: 0.5 },
});

const INSTANCE_ID = Container.get(InstanceSettings).instanceId;

/** Execution `executionId` of the workflow, on this n8n instance or on a clone of it: the same ids everywhere. */
async function runExecution(
	executionId: string,
	credentials: TestCredentials,
	node: Parameters<typeof runWorkflow>[0]['nodes'][number] = transcribe,
) {
	return await runWorkflow({
		nodes: [node],
		input: [
			await binaryItem({ data: makeWav({ seconds: 1 }), fileName: 'a.wav', mimeType: 'audio/wav' }),
		],
		credentials,
		executionId,
	});
}

const keysSent = () =>
	env.proxy.exchanges
		.filter((exchange) => exchange.method === 'POST')
		.map((exchange) => [
			exchange.url.replace(/^.*\/api\/v1/, ''),
			exchange.requestHeaders['idempotency-key'],
		]);

describe('derived Idempotency-Keys: a staging clone never replays production’s writes', () => {
	it('production and its clone run execution 42 of the same workflow: each gets a slot and a job of its own', async () => {
		const created = await env.admin.createKey({ mode: 'test' });
		const credentials = env.credentials(created.key);

		const production = await runExecution('42', credentials);
		const productionKeys = keysSent();
		env.proxy.exchanges.length = 0;
		// The clone: the same encryption key (so instance id), workflow, node and execution ids.
		expect(Container.get(InstanceSettings).instanceId).toBe(INSTANCE_ID);
		const clone = await runExecution('42', credentials);
		const cloneKeys = keysSent();

		for (const result of [production, clone]) expect(result.error).toBeUndefined();
		expect(productionKeys.map(([path]) => path)).toEqual(['/uploads', '/transcriptions']);
		expect(cloneKeys.map(([path]) => path)).toEqual(['/uploads', '/transcriptions']);
		for (const index of [0, 1]) expect(cloneKeys[index][1]).not.toBe(productionKeys[index][1]);
		const [productionJob, cloneJob] = [production, clone].map(
			(result) => result.output(ACTION_NODE)[0].json.job_id,
		);
		expect(cloneJob).not.toBe(productionJob);
		const records = await env.admin.records(created.account_id);
		expect(records.jobs.map((job) => [job.job_id, job.idempotent_replays]).sort()).toEqual(
			[
				[productionJob, 0],
				[cloneJob, 0],
			].sort(),
		);
	});

	it("n8n's Retry On Fail in one execution keeps its keys: the job committed before the failure is replayed", async () => {
		const created = await env.admin.createKey({ mode: 'live' });
		// Every answer to POST /transcriptions is lost on the first run (its 5 attempts), though the job is committed.
		await env.admin.setFaults({
			rules: [{ route: 'createTranscription', kind: 'drop_after_commit', count: 5 }],
		});
		const result = await runExecution('43', env.credentials(created.key), {
			...transcribe,
			retryOnFail: true,
			maxTries: 2,
			waitBetweenTries: 0,
		});

		expect(result.error).toBeUndefined();
		expect(result.output(ACTION_NODE)[0].json.status).toBe('completed');
		const jobKeys = keysSent().filter(([path]) => path === '/transcriptions');
		expect(jobKeys).toHaveLength(6);
		expect(new Set(jobKeys.map(([, key]) => key)).size).toBe(1);
		const records = await env.admin.records(created.account_id);
		expect(records.jobs).toHaveLength(1);
		// The first attempt created it; the first run's 4 retries and the node's retry replayed it.
		expect(records.jobs[0].idempotent_replays).toBe(5);
	});
});

describe("n8n's Retry On Fail never writes twice", () => {
	const transcribe = (retry: boolean) => ({
		...actionNode({
			resource: 'transcription',
			operation: 'transcribeAndDownload',
			binaryPropertyName: 'data',
			formats: ['txt'],
			options: { pollIntervalSeconds: 0.2, maxPollIntervalSeconds: 0.5 },
		}),
		...(retry ? { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 } : {}),
	});

	it('a job committed before the node failed is replayed on the retry: 1 slot, 1 job, 2 keys', async () => {
		const { accountId, credentials } = await freshAccount('live');
		// Every answer to POST /transcriptions is lost on the first run (5 attempts), though the job is committed.
		await env.admin.setFaults({
			rules: [{ route: 'createTranscription', kind: 'drop_after_commit', count: 5 }],
		});
		const result = await runWorkflow({
			nodes: [transcribe(true)],
			credentials,
			input: [await binaryItem({ data: wav, fileName: 'retry.wav', mimeType: 'audio/wav' })],
		});
		expect(result.error).toBeUndefined();
		const [item] = result.output(ACTION_NODE);
		expect(item.json.status).toBe('completed');
		const records = await env.admin.records(accountId);
		expect(records.uploads).toHaveLength(1);
		expect(records.jobs).toHaveLength(1);
		const posts = env.proxy.exchanges.filter((exchange) => exchange.method === 'POST');
		const keys = new Set(posts.map((post) => post.requestHeaders['idempotency-key']));
		expect(posts.filter((post) => post.url.endsWith('/transcriptions'))).toHaveLength(6);
		expect(keys.size).toBe(2);
	});

	it('a new execution of the same item writes anew', async () => {
		const { accountId, credentials } = await freshAccount('test');
		const input = [await binaryItem({ data: wav, fileName: 'twice.wav', mimeType: 'audio/wav' })];
		await runWorkflow({ nodes: [transcribe(false)], credentials, input });
		await runWorkflow({ nodes: [transcribe(false)], credentials, input });
		const records = await env.admin.records(accountId);
		expect(records.uploads).toHaveLength(2);
		expect(records.jobs).toHaveLength(2);
	});
});
