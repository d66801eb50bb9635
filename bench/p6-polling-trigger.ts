// P6 the polling trigger: list requests per poll on accounts of 10, 1,000 and 10,000 jobs, and how long after a job
// finishes it is emitted at the default poll interval (n8n's "every minute"). The node's real poll() runs in n8n-core's
// PollContext (test/support/engine/polling-harness.ts, activated and polled as n8n does) against the sandbox, behind a proxy
// that counts the requests. Between two polls the sandbox clock moves one interval, so an hour of polling takes
// seconds; the gap is measured on that clock, from the job's updated_at to the poll that emitted it.
// Baseline, in the same run and through the same proxy: a poller that reads every page of each selected status at
// every poll and compares job ids with the ones it has seen (what Get Many with Return All + Remove Duplicates does).

import { SandboxAdmin } from '../sandbox/admin-client';
import type { ListOrder } from '../sandbox/list-order';
import { startSandbox, type RunningSandbox } from '../sandbox/server';
import { PollingTriggerUnderTest } from '../test/support/engine/polling-harness';
import { makeWav } from '../test/support/fixtures/media';
import { startCountingProxy, type CountingProxy } from '../test/support/sandbox/counting-proxy';
import { ratio, round, type ResultRow } from '../test/support/bench-results';

export interface PollingTriggerBenchOptions {
	/** Jobs already on the account when the trigger is activated. */
	accountSizes: number[];
	/** Polls of the gap scenario, one interval apart. */
	gapPolls: number;
	/** Jobs finishing during the gap scenario. */
	gapJobs: number;
	seed: number;
}

const INTERVAL_SECONDS = 60;
const LIST_PATH = /^\/api\/v1\/transcriptions\?/;
const GENEROUS = { perTier: { premium: 100_000, platinum: 100_000 } };
const STATUSES = ['completed', 'failed'] as const;

interface Setup {
	sandbox: RunningSandbox;
	proxy: CountingProxy;
	admin: SandboxAdmin;
	key: string;
	accountId: string;
}

async function setup(order: ListOrder): Promise<Setup> {
	const sandbox = await startSandbox({
		port: 0,
		quiet: true,
		rateLimits: GENEROUS,
		listOrder: order,
	});
	const proxy = await startCountingProxy(sandbox.baseUrl, { now: () => sandbox.clock.now() });
	const admin = new SandboxAdmin(sandbox.baseUrl);
	const { key, account_id } = await admin.createKey({});
	return { sandbox, proxy, admin, key, accountId: account_id };
}

async function teardown({ sandbox, proxy }: Setup): Promise<void> {
	await proxy.close();
	await sandbox.close();
}

function listRequests(proxy: CountingProxy): number {
	return proxy.select('GET', LIST_PATH).length;
}

/** Requests one call makes, counted at the proxy. */
async function counted<T>(proxy: CountingProxy, call: () => Promise<T>): Promise<[T, number]> {
	const before = listRequests(proxy);
	const result = await call();
	return [result, listRequests(proxy) - before];
}

/** A live job through the API (slot, bytes, job), held so it finishes when the benchmark says. */
async function liveJob(env: Setup): Promise<string> {
	const call = async (method: string, path: string, body: Buffer | object) => {
		const raw = Buffer.isBuffer(body);
		const response = await fetch(`${env.sandbox.baseUrl}/api/v1${path}`, {
			method,
			headers: {
				authorization: `Bearer ${env.key}`,
				'content-type': raw ? 'application/octet-stream' : 'application/json',
			},
			body: raw ? body : JSON.stringify(body),
		});
		if (!response.ok) throw new Error(`${method} ${path} → ${response.status}`);
		return (await response.json()) as Record<string, string>;
	};
	const media = makeWav({ seconds: 1 });
	const slot = await call('POST', '/uploads', {
		filename: 'bench.wav',
		content_type: 'audio/wav',
		size_bytes: media.length,
	});
	await call('PUT', `/uploads/${slot.upload_id}/binary`, media);
	const { job_id } = await call('POST', '/transcriptions', { upload_id: slot.upload_id });
	await env.admin.holdJob(job_id);
	return job_id;
}

/** The baseline: every page of every selected status, every poll. */
async function fullWalk(env: Setup, seen: Set<string>): Promise<number> {
	let found = 0;
	for (const status of STATUSES) {
		for (let cursor = 0; ; cursor += 100) {
			const response = await fetch(
				`${env.proxy.baseUrl}/api/v1/transcriptions?status=${status}&limit=100&cursor=${cursor}`,
				{ headers: { authorization: `Bearer ${env.key}` } },
			);
			const page = (await response.json()) as { items: Array<{ job_id: string }>; total: number };
			for (const item of page.items) {
				if (!seen.has(item.job_id)) found++;
				seen.add(item.job_id);
			}
			if (cursor + 100 >= page.total) break;
		}
	}
	return found;
}

/** Requests per poll on one account size: quiet, 5 new jobs, and a job found in the middle of the list. */
async function requestsPerPoll(size: number): Promise<ResultRow[]> {
	const env = await setup('newest_first');
	try {
		const failed = Math.floor(size / 10);
		await env.admin.seedJobs({ account_id: env.accountId, count: Math.floor((size - failed) / 2) });
		const middle = await liveJob(env);
		await env.admin.seedJobs({
			account_id: env.accountId,
			count: Math.ceil((size - failed) / 2) - 1,
		});
		if (failed > 0)
			await env.admin.seedJobs({ account_id: env.accountId, count: failed, status: 'failed' });
		const trigger = await PollingTriggerUnderTest.start({
			credentials: { apiKey: env.key, baseUrl: env.proxy.baseUrl },
		});
		const seen = new Set<string>();
		await fullWalk(env, seen);
		await trigger.activate();
		await env.admin.advanceClock(INTERVAL_SECONDS);

		const [, quiet] = await counted(env.proxy, () => trigger.poll());
		const [, quietBaseline] = await counted(env.proxy, () => fullWalk(env, seen));

		const fresh = [await liveJob(env), await liveJob(env), await liveJob(env), await liveJob(env)];
		for (const jobId of fresh) await env.admin.completeJob(jobId);
		await env.admin.failJob(await liveJob(env));
		await env.admin.advanceClock(INTERVAL_SECONDS);
		const [freshItems, freshRequests] = await counted(env.proxy, () => trigger.poll());
		if (freshItems?.length !== 5)
			throw new Error(`P6: ${freshItems?.length ?? 0} of 5 new jobs emitted`);
		const [, freshBaseline] = await counted(env.proxy, () => fullWalk(env, seen));

		await env.admin.completeJob(middle);
		const perPoll: number[] = [];
		for (let poll = 0; poll < 200; poll++) {
			await env.admin.advanceClock(INTERVAL_SECONDS);
			const [items, requests] = await counted(env.proxy, () => trigger.poll());
			perPoll.push(requests);
			if (items?.some((item) => item.json.job_id === middle)) break;
		}
		if (trigger.items().filter((item) => item.json.job_id === middle).length !== 1)
			throw new Error('P6: the job in the middle of the list was not emitted once');
		const [, middleBaseline] = await counted(env.proxy, () => fullWalk(env, seen));

		const label = `${size.toLocaleString('en-US')} jobs`;
		return [
			{
				benchmark: 'P6',
				metric: `list requests, quiet poll, ${label}`,
				value: quiet,
				unit: 'requests',
				baseline: { label: 'full walk', value: quietBaseline },
				ratio: ratio(quiet, quietBaseline),
			},
			{
				benchmark: 'P6',
				metric: `list requests, poll after 5 new jobs, ${label}`,
				value: freshRequests,
				unit: 'requests',
				baseline: { label: 'full walk', value: freshBaseline },
				ratio: ratio(freshRequests, freshBaseline),
			},
			{
				benchmark: 'P6',
				metric: `polls to find a job finished in the middle of the list, ${label}`,
				value: perPoll.length,
				unit: 'polls',
				baseline: { label: 'full walk', value: 1 },
				ratio: ratio(perPoll.length, 1),
				note: `at most ${Math.max(...perPoll)} list requests per poll (Max Requests per Poll 10), ${perPoll.reduce(
					(sum, value) => sum + value,
					0,
				)} in all; the full walk reads ${middleBaseline} per poll`,
			},
		];
	} finally {
		await teardown(env);
	}
}

/**
 * The gap between a job's updated_at and the poll that emits it, polls every minute: jobs finish at random moments,
 * some created long before (deep in the list), while newer ones keep arriving; in the sandbox's default order (newest
 * created first) and a scrambled one (new jobs land anywhere in the list).
 */
async function gaps(
	order: ListOrder,
	size: number,
	options: PollingTriggerBenchOptions,
): Promise<ResultRow> {
	const env = await setup(order);
	try {
		await env.admin.seedJobs({ account_id: env.accountId, count: size });
		const trigger = await PollingTriggerUnderTest.start({
			credentials: { apiKey: env.key, baseUrl: env.proxy.baseUrl },
		});
		await trigger.activate();
		await env.admin.advanceClock(INTERVAL_SECONDS);

		let random = options.seed >>> 0;
		const next = () => {
			random = (Math.imul(random, 1664525) + 1013904223) >>> 0;
			return random / 2 ** 32;
		};
		// Created now, so a job finishing late in the run sits behind everything created since.
		const jobs: string[] = [];
		for (let index = 0; index < options.gapJobs; index++) jobs.push(await liveJob(env));
		const finishAt = jobs.map(() => Math.floor(next() * options.gapPolls * INTERVAL_SECONDS));
		const completedAt = new Map<string, number>();
		const emittedAt = new Map<string, number>();
		const lastTick = (options.gapPolls + 20) * INTERVAL_SECONDS;
		let clock = 0;
		for (let second = 1; second <= lastTick; second++) {
			const finishing = jobs.filter((_jobId, index) => finishAt[index] === second);
			const tick = second % INTERVAL_SECONDS === 0;
			if (finishing.length === 0 && !tick) continue;
			await env.admin.advanceClock(second - clock);
			clock = second;
			for (const jobId of finishing) {
				const job = await env.admin.completeJob(jobId);
				completedAt.set(jobId, Date.parse(job.updated_at));
				// Newer jobs keep arriving and finishing in between.
				await env.admin.seedJobs({ account_id: env.accountId, count: 20 });
			}
			if (!tick) continue;
			const items = (await trigger.poll()) ?? [];
			const now = env.sandbox.clock.now();
			for (const item of items) emittedAt.set(String(item.json.job_id), now);
			if (jobs.every((jobId) => emittedAt.has(jobId))) break;
		}
		const gapSeconds = jobs.map((jobId) => {
			const emitted = emittedAt.get(jobId);
			if (emitted === undefined) throw new Error(`P6: job ${jobId} was never emitted`);
			return (emitted - completedAt.get(jobId)!) / 1000;
		});
		return {
			benchmark: 'P6',
			metric: `longest gap finish → emission, poll every ${INTERVAL_SECONDS} s, ${size.toLocaleString('en-US')} jobs, ${order}`,
			value: round(Math.max(...gapSeconds), 0),
			unit: 's',
			baseline: { label: 'one poll interval', value: INTERVAL_SECONDS },
			ratio: ratio(Math.max(...gapSeconds), INTERVAL_SECONDS),
			note: `${jobs.length} jobs finishing at random moments over ${options.gapPolls} min while ${20 * jobs.length} newer ones arrive; median gap ${round(
				median(gapSeconds),
				0,
			)} s; ${trigger.emissions.length} polls emitted`,
		};
	} finally {
		await teardown(env);
	}
}

function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.floor(sorted.length / 2)];
}

export async function runPollingTriggerBenchmark(
	options: PollingTriggerBenchOptions,
): Promise<ResultRow[]> {
	const rows: ResultRow[] = [];
	for (const size of options.accountSizes) rows.push(...(await requestsPerPoll(size)));
	for (const size of options.accountSizes) {
		for (const order of ['newest_first', 'scrambled'] as const) {
			rows.push(await gaps(order, size, options));
		}
	}
	return rows;
}
