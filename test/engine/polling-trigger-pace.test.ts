// The Polling Trigger's pace (nodes/TranscriptionServicePollingTrigger/drain.ts): its real poll() in n8n-core's
// PollContext against the sandbox with the service's default rate limits (platinum: 120 reads and 60 downloads a
// minute), on a clock the test drives (support/engine/polling-clock.ts: an hour of Poll Times costs only its requests).
// A backlog drains at the share of the account's buckets, whatever the Poll Times; a poll stops before the next tick
// and within n8n's budget; each round goes out as its own execution; the activation's poll is one round.
import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { startRecordingProxy, type RecordingProxy } from '../support/engine/harness';
import { PollingTriggerUnderTest } from '../support/engine/polling-harness';
import { PollingClock } from '../support/engine/polling-clock';
import { useEngineSandbox } from '../support/engine/engine-sandbox';

const clock = new PollingClock();
clock.install();

/** Each list request and download of the node, when it reached the service (the test's clock). */
const answered: Array<{ kind: 'list' | 'download'; at: number }> = [];
const env = useEngineSandbox({ clock });
let proxy: RecordingProxy;
beforeAll(async () => {
	clock.drives(env.sandbox.clock);
	proxy = await startRecordingProxy(env.sandbox.baseUrl, (incoming) => {
		const kind = kindOf(incoming.url ?? '');
		if (kind) answered.push({ kind, at: clock.now() });
		return undefined;
	});
});
afterAll(async () => {
	await proxy.close();
	clock.uninstall();
});

const MINUTE = 60_000;
const EVERY_MINUTE = { item: [{ mode: 'everyMinute' }] };
const EVERY_HOUR = { item: [{ mode: 'everyHour', minute: 0 }] };

function jobIds(items: INodeExecutionData[] | null): string[] {
	return (items ?? []).map((item) => String(item.json.job_id));
}

function kindOf(url: string): 'list' | 'download' | undefined {
	if (/^\/api\/v1\/transcriptions\?/.test(url)) return 'list';
	if (/\/artifact(\.\w+)?$/.test(url.split('?')[0])) return 'download';
	return undefined;
}

/** The statuses the service answered the node's list requests and downloads with. */
function statuses(): Array<number | undefined> {
	return proxy.exchanges
		.filter((exchange) => kindOf(exchange.url) !== undefined)
		.map((exchange) => exchange.status);
}

/** The most requests of `kind` answered within one minute of the sandbox's windows. */
function mostPerWindow(kind: 'list' | 'download'): number {
	const perWindow = new Map<number, number>();
	for (const entry of answered) {
		if (entry.kind !== kind) continue;
		const window = Math.floor(entry.at / MINUTE);
		perWindow.set(window, (perWindow.get(window) ?? 0) + 1);
	}
	return Math.max(0, ...perWindow.values());
}

/**
 * An account with history and a trigger activated on it, a minute on: past the activation's second. With no budget
 * given, the poll has none, as before n8n 2.41 (whose PollContext gives every poll 5 minutes: the budget's own test).
 */
async function activatedAccount(parameters: INodeParameters, pollBudgetMs: number | null = null) {
	const { accountId, key } = await env.newAccount();
	await env.admin.seedJobs({ account_id: accountId, count: 150 });
	const trigger = await PollingTriggerUnderTest.start({
		parameters,
		credentials: { apiKey: key, baseUrl: proxy.baseUrl },
		pollBudgetMs,
	});
	await trigger.activate();
	// A fresh minute: the account's windows start empty.
	clock.advanceToPhase(60, 0);
	answered.length = 0;
	proxy.exchanges.length = 0;
	return { accountId, key, trigger };
}

async function endJobs(
	accountId: string,
	count: number,
	status: 'completed' | 'failed' = 'completed',
): Promise<string[]> {
	const { job_ids } = await env.admin.seedJobs({ account_id: accountId, count, status });
	return job_ids;
}

describe('a backlog drains at the share of the account’s rate limits, whatever the Poll Times', () => {
	test('Poll Times every hour, Download Artifact: 300 transcripts in one poll of about 10 minutes, 30 a minute (50% of 60)', async () => {
		const { accountId, trigger } = await activatedAccount({
			pollTimes: EVERY_HOUR,
			downloadArtifact: true,
		});
		const jobs = await endJobs(accountId, 300);
		const startedAt = clock.now();
		const emittedBefore = trigger.emissions.length;
		const items = await trigger.poll();
		const took = clock.now() - startedAt;

		expect(jobIds(items).sort()).toEqual([...jobs].sort());
		expect(items?.every((item) => item.binary?.data !== undefined)).toBe(true);
		// 300 downloads at 30 a minute: ten windows of the bucket (the first begun before the poll), well within the
		// hour to the next tick.
		expect(took).toBeGreaterThan(8 * MINUTE);
		expect(took).toBeLessThan(11 * MINUTE);
		expect(mostPerWindow('download')).toBeLessThanOrEqual(30);
		expect(statuses().every((status) => status === 200)).toBe(true);
		// One execution per round: none holds more than 100 transcripts.
		const emissions = trigger.emissions.slice(emittedBefore);
		expect(emissions.length).toBeGreaterThan(1);
		expect(Math.max(...emissions.map((emission) => emission.length))).toBeLessThanOrEqual(100);
	});

	test('Poll Times every minute, Download Artifact: each poll ends before the next tick, 30 transcripts a minute', async () => {
		const { accountId, trigger } = await activatedAccount({
			pollTimes: EVERY_MINUTE,
			downloadArtifact: true,
		});
		const jobs = await endJobs(accountId, 120);
		const longest: number[] = [];
		for (let poll = 0; poll < 10 && trigger.items().length < 120 + 0; poll++) {
			const tick = clock.now();
			await trigger.poll();
			longest.push(clock.now() - tick);
			clock.advance(Math.max(0, tick + MINUTE - clock.now()));
		}
		expect(jobIds(trigger.items()).sort()).toEqual([...jobs].sort());
		expect(Math.max(...longest)).toBeLessThan(MINUTE);
		expect(longest.length).toBeLessThanOrEqual(6);
		expect(mostPerWindow('download')).toBeLessThanOrEqual(30);
	});

	test('without Download Artifact: 5,000 jobs listed 100 a page in one poll, in executions of 1,000', async () => {
		const { accountId, trigger } = await activatedAccount({ pollTimes: EVERY_MINUTE });
		const jobs = await endJobs(accountId, 5000);
		const emittedBefore = trigger.emissions.length;
		const items = await trigger.poll();
		expect(new Set(jobIds(items))).toEqual(new Set(jobs));
		expect(jobIds(items)).toHaveLength(jobs.length);
		const emissions = trigger.emissions.slice(emittedBefore);
		expect(Math.max(...emissions.map((emission) => emission.length))).toBeLessThanOrEqual(1000);
		// Reads within half of the 120 a minute.
		expect(mostPerWindow('list')).toBeLessThanOrEqual(60);
	});

	test('Share of Rate Limits 100%: 60 transcripts a minute, the whole download bucket', async () => {
		const { accountId, trigger } = await activatedAccount({
			pollTimes: EVERY_HOUR,
			downloadArtifact: true,
			options: { rateLimitShare: 100 },
		});
		const jobs = await endJobs(accountId, 240);
		const startedAt = clock.now();
		await trigger.poll();
		expect(jobIds(trigger.items()).sort()).toEqual([...jobs].sort());
		expect(clock.now() - startedAt).toBeLessThan(5 * MINUTE);
		expect(mostPerWindow('download')).toBeGreaterThan(30);
		expect(mostPerWindow('download')).toBeLessThanOrEqual(60);
	});
});

describe('a poll ends in time', () => {
	test('Poll Times every 15 minutes: a backlog longer than that drains over polls, each under 15 minutes', async () => {
		const { accountId, trigger } = await activatedAccount({
			pollTimes: { item: [{ mode: 'everyX', value: 15, unit: 'minutes' }] },
			downloadArtifact: true,
		});
		const jobs = await endJobs(accountId, 600);
		const durations: number[] = [];
		for (let poll = 0; poll < 5 && trigger.items().length < jobs.length; poll++) {
			const tick = clock.now();
			await trigger.poll();
			durations.push(clock.now() - tick);
			clock.advance(Math.max(0, tick + 15 * MINUTE - clock.now()));
		}
		expect(jobIds(trigger.items()).sort()).toEqual([...jobs].sort());
		// 600 at 30 a minute take 20 minutes: two polls, the first cut before its next tick.
		expect(durations).toHaveLength(2);
		expect(durations[0]).toBeLessThan(15 * MINUTE);
		expect(durations[0]).toBeGreaterThan(13 * MINUTE);
	});

	test("n8n's budget for a poll (getPollBudgetMs, n8n 2.41 and later) bounds it below the Poll Times", async () => {
		const { accountId, trigger } = await activatedAccount(
			{ pollTimes: EVERY_HOUR, downloadArtifact: true },
			5 * MINUTE,
		);
		await endJobs(accountId, 300);
		const startedAt = clock.now();
		const items = await trigger.poll();
		expect(clock.now() - startedAt).toBeLessThan(5 * MINUTE);
		// 4.5 minutes of work: about 4.5 windows of 30 downloads.
		expect(jobIds(items).length).toBeGreaterThanOrEqual(120);
		expect(jobIds(items).length).toBeLessThan(180);
	});

	test('the activation’s poll is one round, as n8n waits for it: a backlog waits for the ticks', async () => {
		const { accountId, key, trigger } = await activatedAccount({
			pollTimes: EVERY_HOUR,
			downloadArtifact: true,
		});
		await endJobs(accountId, 200);
		void key;
		const startedAt = clock.now();
		const items = await trigger.restart();
		expect(clock.now() - startedAt).toBeLessThan(MINUTE);
		expect(jobIds(items).length).toBeLessThanOrEqual(25);
		await trigger.poll();
		expect(trigger.items()).toHaveLength(200);
	});
});
