// The Transcription Service Polling Trigger under faults (issue 17), its real poll() in n8n-core's PollContext against
// the sandbox, behind a proxy that can answer in the sandbox's place: garbled list answers. Each job that reaches a
// selected state is emitted exactly once, whatever the fault and however long it lasts.
import type { IncomingMessage } from 'node:http';

import type { INodeExecutionData } from 'n8n-workflow';

import { GENEROUS_LIMITS } from '../sandbox/helpers';
import { startRecordingProxy, type ProxyReply, type RecordingProxy } from './harness';
import { PollingTriggerUnderTest } from './polling-harness';
import { useEngineSandbox } from './setup';

const env = useEngineSandbox({ rateLimits: GENEROUS_LIMITS });
const MINUTE_SECONDS = 60;
/** The overlap the trigger keeps behind the latest emitted job (ledger.ts, OVERLAP_MS), in minutes. */
const OVERLAP_MINUTES = 10;

const proxies: RecordingProxy[] = [];
afterEach(async () => {
	await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
});

function jobIds(items: INodeExecutionData[]): string[] {
	return items.map((item) => String(item.json.job_id));
}

function sorted(values: string[]): string[] {
	return [...values].sort();
}

/** GET /transcriptions?status=… as the proxy sees it; undefined for any other request. */
function listedStatus(incoming: IncomingMessage): string | undefined {
	const url = new URL(incoming.url ?? '/', 'http://proxy.invalid');
	if (incoming.method !== 'GET' || url.pathname !== '/api/v1/transcriptions') return undefined;
	return url.searchParams.get('status') ?? '';
}

function json(body: unknown): ProxyReply {
	return {
		status: 200,
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body),
	};
}

/** A proxy in front of the sandbox that gives `answer`'s reply instead of the sandbox's when it returns one. */
async function proxyAnswering(
	answer: (incoming: IncomingMessage) => ProxyReply | undefined,
): Promise<RecordingProxy> {
	const proxy = await startRecordingProxy(env.sandbox.baseUrl, answer);
	proxies.push(proxy);
	return proxy;
}

describe('garbled list answers (issue 17 defect 5)', () => {
	test('the failed list answered 200 without items for longer than the overlap while completed jobs are emitted: the failed job is emitted once after', async () => {
		const { key } = await env.newAccount();
		let garbling = false;
		const proxy = await proxyAnswering((incoming) =>
			garbling && listedStatus(incoming) === 'failed'
				? json({ total: 1, links: { self: incoming.url, next: null, prev: null } })
				: undefined,
		);
		const trigger = await PollingTriggerUnderTest.start({
			credentials: { apiKey: key, baseUrl: proxy.baseUrl },
		});
		await trigger.activate();
		await env.admin.advanceClock(5);
		const failed = await env.liveJob(key);
		await env.admin.failJob(failed);

		garbling = true;
		const completed: string[] = [];
		for (let minute = 0; minute <= OVERLAP_MINUTES + 2; minute++) {
			const job = await env.liveJob(key);
			await env.admin.completeJob(job);
			completed.push(job);
			await env.admin.advanceClock(MINUTE_SECONDS);
			expect(jobIds((await trigger.poll()) ?? [])).toEqual([job]);
		}
		expect(trigger.storedState()?.statuses.failed).toEqual({
			known: 0,
			since: expect.any(Number),
			zoneEnd: expect.any(Number),
		});

		garbling = false;
		await env.admin.advanceClock(MINUTE_SECONDS);
		expect(jobIds((await trigger.poll()) ?? [])).toEqual([failed]);
		expect(await trigger.poll()).toBeNull();
		expect(sorted(jobIds(trigger.items()))).toEqual(sorted([...completed, failed]));
		expect(trigger.errors).toEqual([]);
	});

	test('a garbled answer at the first activation fails the activation, naming the list', async () => {
		const { key } = await env.newAccount();
		const proxy = await proxyAnswering((incoming) =>
			listedStatus(incoming) === 'failed' ? json({ items: 'none', total: 0 }) : undefined,
		);
		const trigger = await PollingTriggerUnderTest.start({
			credentials: { apiKey: key, baseUrl: proxy.baseUrl },
		});
		await expect(trigger.activate()).rejects.toThrow(
			"The service's list of failed jobs is not a valid list answer",
		);
		expect(trigger.storedState()).toBeUndefined();
	});
});
