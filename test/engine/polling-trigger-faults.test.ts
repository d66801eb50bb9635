// The Transcription Service Polling Trigger under faults, its real poll() in n8n-core's PollContext against
// the sandbox, behind a proxy that can answer in the sandbox's place: garbled list answers, a key revoked for a while
// and replaced, the Base URL spelt differently, another account. Each job that reaches a selected state is emitted
// exactly once, whatever the fault and however long it lasts.
import type { IncomingMessage } from 'node:http';

import type { INodeExecutionData } from 'n8n-workflow';

import { GENEROUS_LIMITS } from '../support/sandbox/client';
import {
	startRecordingProxy,
	type ProxyReply,
	type RecordingProxy,
} from '../support/engine/harness';
import { PollingTriggerUnderTest } from '../support/engine/polling-harness';
import { useEngineSandbox } from '../support/engine/engine-sandbox';

const env = useEngineSandbox({ rateLimits: GENEROUS_LIMITS });
const MINUTE_SECONDS = 60;
/** The overlap the trigger keeps behind the latest emitted job (cutoff.ts, OVERLAP_MS), in minutes. */
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

/**
 * The trigger with `key`, its requests through `proxy`, activated; then five seconds pass on the service's clock, so
 * the jobs that end next are after the first activation's zone (covered in the unit tier).
 */
async function activated(key: string, proxy: RecordingProxy): Promise<PollingTriggerUnderTest> {
	const trigger = await PollingTriggerUnderTest.start({
		credentials: { apiKey: key, baseUrl: proxy.baseUrl },
	});
	await trigger.activate();
	await env.admin.advanceClock(5);
	return trigger;
}

/**
 * A job that completes after 300 newer ones: listed beyond the first page, where only a poll's search reads it. The
 * clock then moves a minute on, so the next poll sees it ended.
 */
async function longJobBehind300(
	accountId: string,
	key: string,
): Promise<{ longJob: string; newer: string[] }> {
	const longJob = await env.liveJob(key);
	await env.admin.holdJob(longJob);
	const { job_ids: newer } = await env.admin.seedJobs({ account_id: accountId, count: 300 });
	await env.admin.completeJob(longJob);
	await env.admin.advanceClock(MINUTE_SECONDS);
	return { longJob, newer };
}

/** A proxy in front of the sandbox that gives `answer`'s reply instead of the sandbox's when it returns one. */
async function proxyAnswering(
	answer: (incoming: IncomingMessage) => ProxyReply | undefined,
): Promise<RecordingProxy> {
	const proxy = await startRecordingProxy(env.sandbox.baseUrl, answer);
	proxies.push(proxy);
	return proxy;
}

describe('garbled list answers', () => {
	test('the failed list answered 200 without items for longer than the overlap while completed jobs are emitted: the failed job is emitted once after', async () => {
		const { key } = await env.newAccount();
		let garbling = false;
		const proxy = await proxyAnswering((incoming) =>
			garbling && listedStatus(incoming) === 'failed'
				? json({ total: 1, links: { self: incoming.url, next: null, prev: null } })
				: undefined,
		);
		const trigger = await activated(key, proxy);
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
			clear: 0,
		});

		garbling = false;
		await env.admin.advanceClock(MINUTE_SECONDS);
		expect(jobIds((await trigger.poll()) ?? [])).toEqual([failed]);
		expect(await trigger.poll()).toBeNull();
		expect(sorted(jobIds(trigger.items()))).toEqual(sorted([...completed, failed]));
		expect(trigger.errors).toEqual([]);
	});

	test('a job listed once with updated_at null, on a page the search reads: the poll writes nothing off, the next one emits it once', async () => {
		const { accountId, key } = await env.newAccount();
		// The list as the service answers it just before the polls; the page holding the long job is served once from
		// it, with that job's updated_at null.
		const listed: Array<Record<string, unknown>> = [];
		let date = '';
		let position = -1;
		const served: number[] = [];
		const proxy = await proxyAnswering((incoming) => {
			const url = new URL(incoming.url ?? '/', 'http://proxy.invalid');
			const cursor = Number(url.searchParams.get('cursor'));
			const limit = Number(url.searchParams.get('limit'));
			if (listedStatus(incoming) !== 'completed' || position < cursor || position >= cursor + limit)
				return undefined;
			if (served.length > 0) return undefined;
			served.push(cursor);
			const items = listed
				.slice(cursor, cursor + limit)
				.map((item) => (item.job_id === longJob ? { ...item, updated_at: null } : item));
			return {
				...json({ items, total: listed.length, links: { self: incoming.url, next: null } }),
				headers: { 'content-type': 'application/json', date },
			};
		});
		const trigger = await activated(key, proxy);
		const { longJob, newer } = await longJobBehind300(accountId, key);
		for (let cursor = 0; cursor < 301; cursor += 100) {
			const response = await fetch(
				`${env.sandbox.baseUrl}/api/v1/transcriptions?limit=100&cursor=${cursor}&status=completed`,
				{ headers: { authorization: `Bearer ${key}` } },
			);
			date = response.headers.get('date') ?? '';
			listed.push(...((await response.json()) as { items: Array<Record<string, unknown>> }).items);
		}
		expect(listed).toHaveLength(301);
		position = listed.findIndex((item) => item.job_id === longJob);

		// 301 jobs due, 100 a poll: the page holding the long job is read by the second poll's search.
		for (let poll = 0; poll < 6; poll++) {
			await trigger.poll();
			await env.admin.advanceClock(MINUTE_SECONDS);
		}
		expect(served).toHaveLength(1);
		expect(await trigger.poll()).toBeNull();
		expect(sorted(jobIds(trigger.items()))).toEqual(sorted([...newer, longJob]));
		expect(trigger.storedState()?.statuses.completed?.known).toBe(301);
		expect(trigger.errors).toEqual([]);
	}, 60_000);

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

describe('a 5xx in the middle of a search', () => {
	test('503s past the retries stop the poll after what it read; the next poll goes on, each job emitted once', async () => {
		const { accountId, key } = await env.newAccount();
		await env.admin.seedJobs({ account_id: accountId, count: 500 });
		let failing = 0;
		const proxy = await proxyAnswering((incoming) => {
			const url = new URL(incoming.url ?? '/', 'http://proxy.invalid');
			if (failing === 0 || listedStatus(incoming) !== 'completed') return undefined;
			if (url.searchParams.get('cursor') === '0') return undefined;
			failing--;
			return { status: 503, headers: { 'content-type': 'application/json' }, body: '{}' };
		});
		const trigger = await activated(key, proxy);
		const { longJob, newer } = await longJobBehind300(accountId, key);

		// Every attempt of the first search page fails (the client makes 5), so that poll stops after what it read.
		failing = 5;
		const emittedPerPoll: number[] = [];
		for (let poll = 0; poll < 6; poll++) {
			emittedPerPoll.push((await trigger.poll())?.length ?? 0);
			await env.admin.advanceClock(MINUTE_SECONDS);
		}
		// The 5 attempts were made and failed; the poll stopped without an error execution, and the next went on.
		expect(failing).toBe(0);
		expect(emittedPerPoll.at(-1)).toBe(0);
		expect(trigger.errors).toEqual([]);
		expect(sorted(jobIds(trigger.items()))).toEqual(sorted([...newer, longJob]));
	}, 60_000);
});

describe('the credential changes', () => {
	/** A recording proxy in front of the sandbox: each one is another spelling of the Base URL. */
	const passThrough = () => proxyAnswering(() => undefined);
	const accountReads = (proxy: RecordingProxy) =>
		proxy.exchanges.filter((exchange) => exchange.url === '/api/v1/account').length;

	test('a key revoked for a while, then a new key of the same account: the jobs that ended meanwhile are emitted once', async () => {
		const { accountId, key } = await env.newAccount();
		const proxy = await passThrough();
		const trigger = await activated(key, proxy);
		const before = await env.liveJob(key);
		await env.admin.completeJob(before);
		expect(jobIds((await trigger.poll()) ?? [])).toEqual([before]);
		expect(await trigger.poll()).toBeNull();
		// The account is read once, at the activation; polls with the same credential do not ask again.
		expect(accountReads(proxy)).toBe(1);

		const { key: newKey } = await env.admin.createKey({ account_id: accountId });
		await env.admin.revokeKey(key);
		const duringOutage: string[] = [];
		for (let minute = 0; minute <= OVERLAP_MINUTES + 2; minute++) {
			const job = await env.liveJob(newKey);
			if (minute % 3 === 0) await env.admin.failJob(job);
			else await env.admin.completeJob(job);
			duringOutage.push(job);
			await env.admin.advanceClock(MINUTE_SECONDS);
			expect(await trigger.poll()).toBeNull();
		}
		expect(trigger.errors).toHaveLength(OVERLAP_MINUTES + 3);
		expect(trigger.errors[0]).toMatchObject({
			context: { itemError: { code: 'invalid_api_key', http_status: 401 } },
		});

		trigger.editCredentials({ apiKey: newKey, baseUrl: proxy.baseUrl });
		await env.admin.advanceClock(MINUTE_SECONDS);
		expect(sorted(jobIds((await trigger.poll()) ?? []))).toEqual(sorted(duringOutage));
		expect(await trigger.poll()).toBeNull();
		expect(sorted(jobIds(trigger.items()))).toEqual(sorted([before, ...duringOutage]));
		// One more read of the account, for the new key only.
		expect(accountReads(proxy)).toBe(2);
		expect(trigger.storedState()).toMatchObject({ account: accountId });
	});

	test('the Base URL spelt differently (another address of the same service): carries on', async () => {
		const { accountId, key } = await env.newAccount();
		const [first, second] = [await passThrough(), await passThrough()];
		const trigger = await activated(key, first);
		const job = await env.liveJob(key);
		await env.admin.completeJob(job);

		trigger.editCredentials({ apiKey: key, baseUrl: `${second.baseUrl}/` });
		await env.admin.advanceClock(MINUTE_SECONDS);
		expect(jobIds((await trigger.poll()) ?? [])).toEqual([job]);
		expect(accountReads(second)).toBe(1);
		expect(trigger.storedState()).toMatchObject({ account: accountId });
	});

	test('a key of another account starts from now: that account’s finished jobs are not emitted, its next ones are', async () => {
		const { key } = await env.newAccount();
		const other = await env.newAccount();
		const proxy = await passThrough();
		const trigger = await activated(key, proxy);
		const earlier = await env.liveJob(other.key);
		await env.admin.completeJob(earlier);
		await env.admin.advanceClock(MINUTE_SECONDS);

		trigger.editCredentials({ apiKey: other.key, baseUrl: proxy.baseUrl });
		expect(await trigger.poll()).toBeNull();
		await env.admin.advanceClock(5);
		const later = await env.liveJob(other.key);
		await env.admin.completeJob(later);
		expect(jobIds((await trigger.poll()) ?? [])).toEqual([later]);
		expect(trigger.storedState()).toMatchObject({ account: other.accountId });
	});

	test('a key of another account for longer than the overlap, then the first key again: the first account goes on where it stopped, without reading the account again', async () => {
		const first = await env.newAccount();
		const other = await env.newAccount();
		const proxy = await passThrough();
		const trigger = await activated(first.key, proxy);
		const before = await env.liveJob(first.key);
		await env.admin.completeJob(before);
		expect(jobIds((await trigger.poll()) ?? [])).toEqual([before]);

		trigger.editCredentials({ apiKey: other.key, baseUrl: proxy.baseUrl });
		expect(await trigger.poll()).toBeNull();
		await env.admin.advanceClock(5);
		const onOther = await env.liveJob(other.key);
		await env.admin.completeJob(onOther);
		const meanwhile: string[] = [];
		for (let minute = 0; minute <= OVERLAP_MINUTES + 2; minute++) {
			const job = await env.liveJob(first.key);
			await env.admin.completeJob(job);
			meanwhile.push(job);
			await env.admin.advanceClock(MINUTE_SECONDS);
			expect(jobIds((await trigger.poll()) ?? [])).toEqual(minute === 0 ? [onOther] : []);
		}

		trigger.editCredentials({ apiKey: first.key, baseUrl: proxy.baseUrl });
		expect(sorted(jobIds((await trigger.poll()) ?? []))).toEqual(sorted(meanwhile));
		expect(await trigger.poll()).toBeNull();
		expect(sorted(jobIds(trigger.items()))).toEqual(sorted([before, onOther, ...meanwhile]));
		// Read at the activation and for the other key; the first key's account was kept with its state.
		expect(accountReads(proxy)).toBe(2);
		expect(trigger.storedState()).toMatchObject({
			account: first.accountId,
			others: [{ account: other.accountId }],
		});
		expect(trigger.errors).toEqual([]);
	});
});

describe('an account answer without account_id', () => {
	test('fails the activation in the user’s terms: the endpoint, the field, and what to check', async () => {
		const { key } = await env.newAccount();
		const proxy = await proxyAnswering((incoming) =>
			incoming.url === '/api/v1/account' ? json({ plan: 'starter' }) : undefined,
		);
		const trigger = await PollingTriggerUnderTest.start({
			credentials: { apiKey: key, baseUrl: proxy.baseUrl },
		});
		await expect(trigger.activate()).rejects.toMatchObject({
			message: 'The service answered GET /api/v1/account without an account_id',
			description:
				"The Polling Trigger remembers what it has emitted per account, by the account_id the service gives for the credential's API key. Check that the credential's Base URL is the address of the Transcription Service API itself, not of another service or of a proxy that changes its answers.",
		});
		expect(trigger.storedState()).toBeUndefined();
	});
});

describe('a Base URL with a user name or password', () => {
	test('is refused at activation, naming the field: no request is sent with it and no item can carry it', async () => {
		const { key } = await env.newAccount();
		const proxy = await proxyAnswering(() => undefined);
		const base = new URL(proxy.baseUrl);
		const trigger = await PollingTriggerUnderTest.start({
			credentials: { apiKey: key, baseUrl: `${base.protocol}//user:secret@${base.host}` },
		});
		await expect(trigger.activate()).rejects.toThrow(
			"The credential's Base URL must not contain a user name or password",
		);
		expect(proxy.exchanges).toHaveLength(0);
	});
});

describe('a service that ignores limit', () => {
	test('a first page of 80,000 jobs: static data stays under 64 KB, and every job is emitted exactly once', async () => {
		const { accountId, key } = await env.newAccount();
		let hostile: ProxyReply | undefined;
		const proxy = await proxyAnswering((incoming) => {
			if (!hostile || listedStatus(incoming) !== 'completed') return undefined;
			const reply = hostile;
			hostile = undefined;
			return reply;
		});
		const trigger = await activated(key, proxy);
		const { job_ids: jobs } = await env.admin.seedJobs({ account_id: accountId, count: 250 });
		await env.admin.advanceClock(MINUTE_SECONDS);

		// The service's own first page, followed by 79,900 more completed jobs it does not count (7 MiB: a larger answer
		// is refused whole, response_too_large).
		const response = await fetch(
			`${env.sandbox.baseUrl}/api/v1/transcriptions?limit=100&cursor=0&status=completed`,
			{ headers: { authorization: `Bearer ${key}` } },
		);
		const page = (await response.json()) as { items: unknown[] };
		const { now } = await env.admin.clock();
		const padding = Array.from({ length: 79_900 }, (_, index) => ({
			job_id: `job_padding_${String(index).padStart(6, '0')}`,
			status: 'completed',
			updated_at: now,
		}));
		hostile = json({ ...page, items: [...page.items, ...padding] });

		// The poll reads the answer to its limit (100) and goes on reading the list in its next rounds.
		expect(await trigger.poll()).toHaveLength(jobs.length);
		expect(hostile).toBeUndefined();
		// What n8n saved with the poll's emissions.
		const staticDataBytes = Buffer.byteLength(JSON.stringify(trigger.storedStaticData));
		expect(staticDataBytes).toBeLessThan(64 * 1024);
		for (let poll = 0; poll < 10; poll++) {
			await env.admin.advanceClock(MINUTE_SECONDS);
			if ((await trigger.poll()) === null) break;
		}
		const emitted = jobIds(trigger.items());
		expect(sorted(emitted)).toEqual(sorted(jobs));
		expect(trigger.errors).toEqual([]);
	}, 120_000);
});
