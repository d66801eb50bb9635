// Derived Idempotency-Keys name the n8n instance and the workflow, not only the execution, node,
// run and item. Two instances that share an account (staging cloned from production: the same node ids and the same
// execution-id sequence) then never replay each other's slots and jobs, while a retry within one instance still does.
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
import { useEngineSandbox } from '../support/engine/engine-sandbox';

const env = useEngineSandbox({ recordExchanges: true });

const transcribe = actionNode({
	resource: 'transcription',
	operation: 'transcribeAndDownload',
	binaryPropertyName: 'data',
	formats: ['txt'],
});

const settings = () => Container.get(InstanceSettings) as { instanceId: string };

/** One execution `executionId` of the same workflow, as the n8n instance `instanceId` runs it. */
async function runAs(instanceId: string, executionId: string, credentials: TestCredentials) {
	const own = settings().instanceId;
	settings().instanceId = instanceId;
	try {
		return await runWorkflow({
			nodes: [transcribe],
			input: [
				await binaryItem({
					data: makeWav({ seconds: 1 }),
					fileName: 'a.wav',
					mimeType: 'audio/wav',
				}),
			],
			credentials,
			executionId,
		});
	} finally {
		settings().instanceId = own;
	}
}

const keysSent = () =>
	env.proxy.exchanges
		.filter((exchange) => exchange.method === 'POST')
		.map((exchange) => [
			exchange.url.replace(/^.*\/api\/v1/, ''),
			exchange.requestHeaders['idempotency-key'],
		]);

describe('derived Idempotency-Keys across n8n instances that share an account', () => {
	it('two instances with the same node and execution ids get their own slot and job; a retry in one instance replays its own', async () => {
		const created = await env.admin.createKey({ mode: 'test' });
		const credentials = env.credentials(created.key);

		const production = await runAs('production-instance', '42', credentials);
		const productionKeys = keysSent();
		env.proxy.exchanges.length = 0;
		const staging = await runAs('staging-instance', '42', credentials);
		const stagingKeys = keysSent();
		env.proxy.exchanges.length = 0;
		const retry = await runAs('production-instance', '42', credentials);

		for (const result of [production, staging, retry]) expect(result.error).toBeUndefined();
		expect(productionKeys.map(([path]) => path)).toEqual(['/uploads', '/transcriptions']);
		expect(stagingKeys.map(([path]) => path)).toEqual(['/uploads', '/transcriptions']);
		for (const index of [0, 1]) expect(stagingKeys[index][1]).not.toBe(productionKeys[index][1]);
		expect(keysSent()).toEqual(productionKeys);

		const [productionJob, stagingJob, retriedJob] = [production, staging, retry].map(
			(result) => result.output(ACTION_NODE)[0].json.job_id,
		);
		expect(stagingJob).not.toBe(productionJob);
		expect(retriedJob).toBe(productionJob);
		const records = await env.admin.records(created.account_id);
		expect(records.jobs.map((job) => [job.job_id, job.idempotent_replays]).sort()).toEqual(
			[
				[productionJob, 1],
				[stagingJob, 0],
			].sort(),
		);
	});
});
