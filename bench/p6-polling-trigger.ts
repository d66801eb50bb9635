// P6 the polling trigger. The node's real poll() runs in n8n-core's PollContext (test/support/engine/polling-harness.ts,
// activated and polled as n8n does) against the sandbox.
// - List requests per poll on accounts of 10, 1,000 and 10,000 jobs, behind a proxy that counts them. Baseline, in the
//   same run and through the same proxy: a poller that reads every page of each selected status at every poll and
//   compares job ids with the ones it has seen (what Get Many with Return All + Remove Duplicates does).
// - How fast it drains, on a clock the run drives (test/support/reliability/polled-load.ts: an hour of Poll Times costs
//   only its requests) and the sandbox's default rate limits (platinum: 120 reads, 60 downloads a minute): the lag of
//   the last job of a burst, against what the account's buckets allow (the backlog at the trigger's share of them, plus
//   two Poll Times); a sustained load at the most completions one account can start (its write bucket: three writes a
//   job), whose lag must not grow; and how long after a job finishes it is emitted, on accounts of 10 to 10,000 jobs in
//   a list order that follows time and in one that puts new jobs anywhere, against two Poll Times.

import { SandboxAdmin } from '../sandbox/admin-client';
import {
	drainBoundMs,
	MINUTE_MS,
	PLATINUM,
	runPolledLoad,
	type PolledLoad,
} from '../test/support/reliability/polled-load';
import type { ListOrder } from '../sandbox/list-order';
import { startSandbox, type RunningSandbox } from '../sandbox/server';
import { PollingTriggerUnderTest } from '../test/support/engine/polling-harness';
import { makeWav } from '../test/support/fixtures/media';
import { startCountingProxy, type CountingProxy } from '../test/support/sandbox/counting-proxy';
import { ratio, round, type ResultRow } from '../test/support/bench-results';

export interface PollingTriggerBenchOptions {
	/** Jobs already on the account when the trigger is activated. */
	accountSizes: number[];
	/** Minutes over which the gap scenario's jobs finish, at random moments. */
	gapMinutes: number;
	/** Jobs finishing during the gap scenario, each with 20 newer ones. */
	gapJobs: number;
	/** Jobs of the burst. */
	burst: number;
	/** Minutes of the sustained load. */
	sustainedMinutes: number;
	/** The Poll Times of the drain figures, in minutes. */
	pollMinutes: number[];
	seed: number;
}

const INTERVAL_SECONDS = MINUTE_MS / 1000;
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
				note: `at most ${Math.max(...perPoll)} list requests per poll (the search goes on until it has read the list, within the trigger's share of the reads), ${perPoll.reduce(
					(sum, value) => sum + value,
					0,
				)} in all; the full walk reads ${middleBaseline} per poll`,
			},
		];
	} finally {
		await teardown(env);
	}
}

/** The drain figures' Poll Times as their rows name them. */
function every(minutes: number): string {
	return minutes === 1
		? 'every minute'
		: minutes === 60
			? 'every hour'
			: `every ${minutes} minutes`;
}

function download(on: boolean): string {
	return on ? 'with Download Artifact' : 'without Download Artifact';
}

/** A load's run, checked: a figure from a run that lost or repeated a job is no figure. */
async function measured(load: PolledLoad) {
	const result = await runPolledLoad(load);
	const wrong = result.lost.length + result.duplicated.length + result.stalled.length;
	if (wrong > 0 || result.reasons.length > 0) {
		throw new Error(
			`P6 ${load.name}: ${result.lost.length} lost, ${result.duplicated.length} duplicated, ${result.stalled.length} stalled (${result.reasons.slice(0, 3).join('; ')})`,
		);
	}
	return result;
}

/**
 * The last job of a burst of completions that ends just after a tick: its lag, from its end to the execution that
 * carried it, against the backlog at the trigger's share of the bucket that bounds it (list reads, 100 jobs a page;
 * with Download Artifact, downloads) plus two Poll Times.
 */
async function burstLag(
	options: PollingTriggerBenchOptions,
	pollMinutes: number,
	downloadArtifact: boolean,
): Promise<ResultRow> {
	const load: PolledLoad = {
		name: `burst, ${every(pollMinutes)}, ${download(downloadArtifact)}`,
		pollMinutes,
		downloadArtifact,
		ending: { burst: options.burst },
		failedEvery: 0,
		seed: options.seed,
	};
	const result = await measured(load);
	const bound = drainBoundMs(load);
	const ceiling = downloadArtifact
		? `${PLATINUM.artifacts / 2} downloads a minute`
		: `${PLATINUM.reads / 2} list pages (of 100) a minute`;
	return {
		benchmark: 'P6',
		metric: `lag of the last job of a burst of ${options.burst.toLocaleString('en-US')} completions, Poll Times ${every(pollMinutes)}, ${download(downloadArtifact)}`,
		value: round(result.lastLagMs / MINUTE_MS, 1),
		unit: 'min',
		baseline: {
			label: 'backlog ÷ the share of the account’s ceiling + 2 Poll Times',
			value: round(bound / MINUTE_MS, 1),
		},
		ratio: ratio(result.lastLagMs, bound),
		target: '≤ 1',
		meetsTarget: result.lastLagMs <= bound,
		note: `ceiling: 50% of the platinum plan, ${ceiling}; ${result.polls} polls, the longest ${round(result.longestPollMs / MINUTE_MS, 1)} min of its ${pollMinutes}; ${result.executions} executions of at most ${result.largestExecution} jobs; ${result.requests.list} list requests and ${result.requests.download} downloads, at most ${result.peakPerMinute.list} and ${result.peakPerMinute.download} in a minute, ${result.requests.rateLimited} answered 429; static data at most ${Math.round(result.peakStaticDataBytes / 1024)} KB`,
	};
}

/**
 * The most completions one account can produce — its write bucket at three writes a job, 20 a minute on the platinum
 * plan — for a while: the worst lag of the jobs that ended in the second half against the first half's.
 */
async function sustainedLag(
	options: PollingTriggerBenchOptions,
	pollMinutes: number,
	downloadArtifact: boolean,
): Promise<ResultRow> {
	const perMinute = PLATINUM.writes / 3;
	const result = await measured({
		name: `sustained, ${every(pollMinutes)}, ${download(downloadArtifact)}`,
		pollMinutes,
		downloadArtifact,
		ending: { perMinute, minutes: options.sustainedMinutes },
		failedEvery: 0,
		seed: options.seed,
	});
	const [first, second] = result.halves;
	return {
		benchmark: 'P6',
		metric: `worst lag, second half of ${options.sustainedMinutes / 60} hours at ${perMinute} completions a minute (the write ceiling), Poll Times ${every(pollMinutes)}, ${download(downloadArtifact)}`,
		value: round(second / MINUTE_MS, 1),
		unit: 'min',
		baseline: { label: 'worst lag, first half', value: round(first / MINUTE_MS, 1) },
		ratio: ratio(second, first),
		target: '≤ 1 (the lag does not grow)',
		meetsTarget: second <= first,
		note: `${result.jobs} jobs; most waiting at once ${result.peakBacklog}; ${result.requests.download} downloads, at most ${result.peakPerMinute.download} a minute; ${result.requests.rateLimited} answered 429`,
	};
}

/**
 * The gap between a job's end and its emission, Poll Times every minute: long jobs finish at random moments, created
 * before all the jobs that keep arriving (deep in the list), on an account of `size` jobs, in the sandbox's default
 * order (newest created first) and a scrambled one (new jobs land anywhere).
 */
async function gaps(
	order: ListOrder,
	size: number,
	options: PollingTriggerBenchOptions,
): Promise<ResultRow> {
	const result = await measured({
		name: `gaps, ${size} jobs, ${order}`,
		pollMinutes: 1,
		downloadArtifact: false,
		history: size,
		listOrder: order,
		ending: { longJobs: options.gapJobs, overMinutes: options.gapMinutes, newerEach: 20 },
		failedEvery: 0,
		seed: options.seed,
	});
	const lags = result.longJobLagsMs!;
	const twoPolls = 2 * MINUTE_MS;
	return {
		benchmark: 'P6',
		metric: `longest gap finish → emission, Poll Times every minute, ${size.toLocaleString('en-US')} jobs, ${order}`,
		value: round(lags.worst / 1000, 0),
		unit: 's',
		baseline: { label: 'two Poll Times', value: twoPolls / 1000 },
		ratio: ratio(lags.worst, twoPolls),
		target: '≤ 1',
		meetsTarget: lags.worst <= twoPolls,
		note: `${options.gapJobs} jobs finishing at random moments over ${options.gapMinutes} min while ${20 * options.gapJobs} newer ones arrive; median gap ${round(lags.median / 1000, 0)} s; ${result.requests.list} list requests, at most ${result.peakPerMinute.list} a minute (50% of the platinum plan's ${PLATINUM.reads})`,
	};
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
	for (const pollMinutes of options.pollMinutes) {
		for (const downloadArtifact of [false, true]) {
			rows.push(await burstLag(options, pollMinutes, downloadArtifact));
		}
	}
	for (const pollMinutes of options.pollMinutes) {
		for (const downloadArtifact of [false, true]) {
			rows.push(await sustainedLag(options, pollMinutes, downloadArtifact));
		}
	}
	return rows;
}
