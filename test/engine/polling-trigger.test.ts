// The Transcription Service Polling Trigger's real poll() in n8n-core's PollContext against the sandbox, activated,
// polled and restarted the way n8n does (test/support/engine/polling-harness.ts): each job that reaches a selected state is emitted
// once, in the webhook trigger's item shape, whatever order the list is in.
import { setTimeout as delay } from 'node:timers/promises';

import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { pollEventId } from '../../nodes/TranscriptionServicePollingTrigger/items';
import { LIST_ORDERS, type ListOrder } from '../../sandbox/list-order';
import { GENEROUS_LIMITS } from '../support/sandbox/client';
import { binaryBytes, runWorkflow } from '../support/engine/harness';
import {
	POLLING_NODE_NAME,
	POLLING_TYPE,
	PollingTriggerUnderTest,
} from '../support/engine/polling-harness';
import { useEngineSandbox } from '../support/engine/engine-sandbox';

const env = useEngineSandbox({
	recordExchanges: true,
	allowLocalWebhooks: true,
	rateLimits: GENEROUS_LIMITS,
});

afterEach(async () => {
	await env.admin.setListOrder('newest_first');
});

function jobIds(items: INodeExecutionData[]): string[] {
	return items.map((item) => String(item.json.job_id));
}

/**
 * Activation, then five seconds on the service's clock: jobs that finish within a second or two of the first
 * activation are told apart by the count alone, which the tests of that zone (unit tier) cover.
 */
async function activate(trigger: PollingTriggerUnderTest): Promise<void> {
	await trigger.activate();
	await env.admin.advanceClock(5);
}

function listRequests(): number {
	return env.proxy.exchanges.filter((exchange) => /\/api\/v1\/transcriptions\?/.test(exchange.url))
		.length;
}

describe('first activation', () => {
	test('starts from now: the account history is not emitted, one list request per selected event', async () => {
		const { accountId, credentials } = await env.newAccount();
		await env.admin.seedJobs({ account_id: accountId, count: 250 });
		await env.admin.seedJobs({ account_id: accountId, count: 20, status: 'failed' });
		const trigger = await PollingTriggerUnderTest.start({ credentials });

		expect(await trigger.activate()).toBeNull();
		expect(listRequests()).toBe(2);
		expect(await trigger.poll()).toBeNull();
		expect(listRequests()).toBe(4);
		expect(trigger.storedState()?.statuses).toMatchObject({
			completed: { known: 250 },
			failed: { known: 20 },
		});
	});

	test('it starts at the end of the second the service answered it in: a job before then is never emitted, one after it is', async () => {
		const { accountId, key, credentials } = await env.newAccount();
		const [before, sameSecond, after] = [
			await env.liveJob(key),
			await env.liveJob(key),
			await env.liveJob(key),
		];
		for (const job of [before, sameSecond, after]) await env.admin.holdJob(job);
		// Created first, so deep in a newest-first list, beyond the page the activation reads.
		await env.admin.seedJobs({ account_id: accountId, count: 250 });
		const trigger = await PollingTriggerUnderTest.start({ credentials });
		// 0.1 s into a second of the service's clock: the activation and the job after it end within that second.
		const clock = env.sandbox.clock;
		clock.advance((1100 - (clock.now() % 1000)) / 1000);
		const second = Math.floor(clock.now() / 1000) * 1000;
		const endedAt = async (jobId: string) =>
			Date.parse((await env.admin.completeJob(jobId)).updated_at);
		await endedAt(before);
		await trigger.activate();
		const sameSecondAt = await endedAt(sameSecond);
		await env.admin.advanceClock(1);
		const afterAt = await endedAt(after);

		const since = trigger.storedState()!.statuses.completed!.since;
		expect(since).toBe(second + 1000);
		expect(sameSecondAt).toBeLessThan(since);
		expect(afterAt).toBeGreaterThanOrEqual(since);
		await env.admin.advanceClock(5);
		expect(jobIds((await trigger.poll()) ?? [])).toEqual([after]);
		expect(await trigger.poll()).toBeNull();
	});

	test('a revoked key fails the activation with the service’s error', async () => {
		const { key, credentials } = await env.newAccount();
		await env.admin.revokeKey(key);
		const trigger = await PollingTriggerUnderTest.start({ credentials });
		await expect(trigger.activate()).rejects.toMatchObject({
			context: { itemError: { code: 'invalid_api_key', http_status: 401 } },
		});
	});
});

describe('emitted items', () => {
	test('a completed job: the webhook event the service sends for it, with its own event_id', async () => {
		const { key, credentials } = await env.newAccount();
		const trigger = await PollingTriggerUnderTest.start({ credentials });
		await activate(trigger);
		// The service records the webhook body even when the delivery fails (nothing listens on port 9).
		const jobId = await env.liveJob(key, { webhook_url: 'http://127.0.0.1:9/hook' });
		await env.admin.completeJob(jobId);

		const items = await trigger.poll();
		expect(items).toHaveLength(1);
		const delivery = (await env.admin.webhookDeliveries({ waitIdle: true })).find(
			(record) => JSON.parse(record.body).job_id === jobId,
		);
		const webhookEvent = JSON.parse(delivery!.body) as IDataObject;
		const { received_at, event_id, ...polled } = items![0].json;
		expect(Object.keys(items![0].json).sort()).toEqual(
			[...Object.keys(webhookEvent), 'received_at'].sort(),
		);
		// The links resolve against the credential's Base URL (here the recording proxy in front of the sandbox).
		const sameBase = (value: IDataObject) =>
			JSON.parse(
				JSON.stringify(value).split(env.nodeBaseUrl).join(env.sandbox.baseUrl),
			) as IDataObject;
		const { event_id: webhookEventId, ...webhookRest } = webhookEvent;
		expect(sameBase(polled)).toEqual(webhookRest);
		expect(event_id).toBe(pollEventId(jobId, 'completed'));
		expect(event_id).not.toBe(webhookEventId);
		expect(Date.parse(String(received_at))).not.toBeNaN();
	});

	test('a failed job: transcription.failed with no artifact link; jobs of unselected states are not emitted', async () => {
		const { key, credentials } = await env.newAccount();
		const trigger = await PollingTriggerUnderTest.start({
			credentials,
			parameters: { events: ['transcription.failed'] },
		});
		await activate(trigger);
		const failed = await env.liveJob(key);
		const completed = await env.liveJob(key);
		await env.admin.failJob(failed);
		await env.admin.completeJob(completed);

		const items = await trigger.poll();
		expect(items?.map((item) => item.json)).toEqual([
			expect.objectContaining({
				event: 'transcription.failed',
				status: 'failed',
				job_id: failed,
				links: { self: `${env.nodeBaseUrl}/api/v1/transcriptions/${failed}`, artifact: null },
			}),
		]);
		expect(listRequests()).toBe(2);
	});

	test('a cancelled job, when selected: transcription.cancelled with no artifact link', async () => {
		const { key, credentials } = await env.newAccount();
		const trigger = await PollingTriggerUnderTest.start({
			credentials,
			parameters: { events: ['transcription.completed', 'transcription.cancelled'] },
		});
		await activate(trigger);
		const cancelled = await env.liveJob(key);
		await env.admin.cancelJob(cancelled);

		expect((await trigger.poll())?.map((item) => item.json)).toEqual([
			expect.objectContaining({
				event: 'transcription.cancelled',
				event_id: pollEventId(cancelled, 'cancelled'),
				status: 'cancelled',
				job_id: cancelled,
				links: { self: `${env.nodeBaseUrl}/api/v1/transcriptions/${cancelled}`, artifact: null },
			}),
		]);
	});

	test('Download Artifact: the transcript attached; a failed download keeps the job, with artifact_error', async () => {
		const { key, credentials } = await env.newAccount();
		const trigger = await PollingTriggerUnderTest.start({
			credentials,
			parameters: {
				downloadArtifact: true,
				artifactFormat: 'pdf',
				binaryPropertyName: 'transcript',
			},
		});
		await activate(trigger);
		const withArtifact = await env.liveJob(key, {}, 'board-meeting.wav');
		const withoutArtifact = await env.liveJob(key, {}, 'lost.wav');
		await env.admin.completeJob(withArtifact);
		await env.admin.completeJob(withoutArtifact);
		await env.admin.deleteArtifact(withoutArtifact);

		const items = (await trigger.poll())!;
		const byJob = new Map(items.map((item) => [item.json.job_id, item]));
		const pdf = byJob.get(withArtifact)!.binary!.transcript;
		expect(pdf.fileName).toBe('board-meeting.pdf');
		expect(pdf.mimeType).toBe('application/pdf');
		expect((await binaryBytes(pdf)).subarray(0, 5).toString()).toBe('%PDF-');
		expect(byJob.get(withoutArtifact)!.json.artifact_error).toMatchObject({
			code: 'artifact_not_found',
			http_status: 404,
		});
	});
});

describe.each(LIST_ORDERS)('list order %s', (order: ListOrder) => {
	test('jobs completing out of creation order and one that completes after 100 newer ones: each emitted once', async () => {
		await env.admin.setListOrder(order);
		const { accountId, key, credentials } = await env.newAccount();
		await env.admin.seedJobs({ account_id: accountId, count: 300 });
		const trigger = await PollingTriggerUnderTest.start({ credentials });
		await activate(trigger);

		const longJob = await env.liveJob(key);
		await env.admin.holdJob(longJob);
		const [first, second] = [await env.liveJob(key), await env.liveJob(key)];
		await env.admin.completeJob(second);
		await env.admin.completeJob(first);
		const newer = await env.admin.seedJobs({ account_id: accountId, count: 100 });
		await trigger.poll();
		await env.admin.completeJob(longJob);
		await trigger.poll();
		await trigger.poll();

		const emitted = jobIds(trigger.items());
		expect([...emitted].sort()).toEqual([second, first, ...newer.job_ids, longJob].sort());
		expect(new Set(emitted).size).toBe(emitted.length);
		expect(emitted.at(-1)).toBe(longJob);
		expect(trigger.errors).toEqual([]);
	});
});

describe('restarts', () => {
	test('n8n restarting between polls neither repeats nor loses a job', async () => {
		const { key, credentials } = await env.newAccount();
		const trigger = await PollingTriggerUnderTest.start({ credentials });
		await activate(trigger);
		const jobs = [
			await env.liveJob(key),
			await env.liveJob(key),
			await env.liveJob(key),
			await env.liveJob(key),
		];

		await env.admin.completeJob(jobs[0]);
		await trigger.poll();
		// Completed and found by a poll whose state n8n saves (it emitted): after the restart it stays emitted.
		await env.admin.completeJob(jobs[1]);
		await trigger.restart();
		await env.admin.failJob(jobs[2]);
		// A poll that emits nothing is not saved; the restart goes back to the last saved state, and finds the job again.
		await trigger.poll();
		await trigger.restart();
		await env.admin.completeJob(jobs[3]);
		await trigger.poll();

		expect(trigger.items().map((item) => [item.json.job_id, item.json.status])).toEqual([
			[jobs[0], 'completed'],
			[jobs[1], 'completed'],
			[jobs[2], 'failed'],
			[jobs[3], 'completed'],
		]);
	});
});

describe('one poll at a time', () => {
	test('a tick while the previous poll still runs is skipped', async () => {
		const { key, credentials } = await env.newAccount();
		const trigger = await PollingTriggerUnderTest.start({ credentials });
		await activate(trigger);
		await env.admin.completeJob(await env.liveJob(key));
		await env.admin.setFaults({
			rules: [{ route: 'listTranscriptions', kind: 'latency', latency_ms: 1500, count: 1 }],
		});
		const [slow, overlapping] = await Promise.all([
			trigger.poll(),
			new Promise<INodeExecutionData[] | null>((resolve) =>
				setTimeout(() => void trigger.poll().then(resolve), 300),
			),
		]);
		expect(slow).toHaveLength(1);
		expect(overlapping).toBeNull();
	});
});

describe('Fetch Test Event (manual)', () => {
	test('returns the newest job in a selected state and stores nothing', async () => {
		const { accountId, key, credentials } = await env.newAccount();
		await env.admin.seedJobs({ account_id: accountId, count: 150 });
		const failed = await env.liveJob(key);
		const newest = await env.liveJob(key);
		await env.admin.failJob(failed);
		// In the same millisecond the two would tie, and the node breaks a tie by job id.
		await delay(5);
		await env.admin.completeJob(newest);

		const run = await runWorkflow({
			nodes: [{ name: POLLING_NODE_NAME, type: POLLING_TYPE, parameters: {} }],
			credentials,
		});
		expect(run.error).toBeUndefined();
		const [item] = run.output(POLLING_NODE_NAME);
		expect(item.json).toMatchObject({ event: 'transcription.completed', job_id: newest });
		expect(run.run.data.resultData.runData[POLLING_NODE_NAME]).toHaveLength(1);

		const onlyFailed = await runWorkflow({
			nodes: [
				{
					name: POLLING_NODE_NAME,
					type: POLLING_TYPE,
					parameters: { events: ['transcription.failed'] },
				},
			],
			credentials,
		});
		expect(onlyFailed.output(POLLING_NODE_NAME).map((entry) => entry.json.job_id)).toEqual([
			failed,
		]);
	});
});
