// The Polling Trigger under a load, on a clock the run drives (support/engine/polling-clock.ts): its real poll() in
// n8n-core's PollContext (support/engine/polling-harness.ts) against a sandbox of its own with the service's default
// rate limits (platinum: 60 writes, 120 reads, 60 downloads a minute), n8n's ticks at the Poll Times, jobs ending as
// the load says at their moment of the clock — also while a poll runs. What it emitted is then judged against the
// sandbox's own records (each job that ended emitted once, in its state, completed ones with a transcript) and each
// job's lag measured: from its end to the emission that carried it, on the service's clock. Used by R5 (counts) and
// bench P6 (the lags against what the account's rate limits allow).
import type { INodeExecutionData } from 'n8n-workflow';

import { SandboxAdmin } from '../../../sandbox/admin-client';
import { mulberry32 } from '../../../sandbox/random';
import type { ListOrder } from '../../../sandbox/list-order';
import type { RateLimitConfig } from '../../../sandbox/rate-limit';
import { startSandbox, type RunningSandbox } from '../../../sandbox/server';
import { binaryBytes, startRecordingProxy, type RecordingProxy } from '../engine/harness';
import { PollingClock } from '../engine/polling-clock';
import { PollingTriggerUnderTest } from '../engine/polling-harness';
import { servedArtifact } from './paused-batch';

export const MINUTE_MS = 60_000;
/** The sandbox's platinum plan (its defaults, docs/api-notes.md): downloads and reads per minute. */
export const PLATINUM = { writes: 60, reads: 120, artifacts: 60 } as const;
/** Jobs on one page of GET /transcriptions. */
const PAGE_JOBS = 100;
/** Transcripts the judge compares byte for byte with the service's (the rest: each a binary of the right kind). */
const COMPARED_ARTIFACTS = 40;

export interface PolledLoad {
	name: string;
	/** Poll Times: every this many minutes (1, 15, 60). */
	pollMinutes: number;
	downloadArtifact: boolean;
	/**
	 * Jobs that end: `burst` at once, just after a tick; `perMinute` at the start of each minute for `minutes`; or
	 * `longJobs` started at once and ending at random moments over `overMinutes`, each with `newerEach` newer jobs
	 * ending beside it (the long jobs, created before them, sit deeper in the list as it grows).
	 */
	ending:
		| { burst: number }
		| { perMinute: number; minutes: number }
		| { longJobs: number; overMinutes: number; newerEach: number };
	/** Completed jobs on the account before the activation (250 unless told). */
	history?: number;
	/** The sandbox's rate limits (its defaults unless told: the platinum plan above). */
	rateLimits?: RateLimitConfig;
	/** Every this many ending jobs one fails (0: all complete). */
	failedEvery: number;
	listOrder?: ListOrder;
	/** Options → Share of Rate Limits (%), the node's default unless told. */
	sharePercent?: number;
	seed: number;
}

export interface PolledLoadResult {
	jobs: number;
	lost: string[];
	duplicated: string[];
	stalled: string[];
	/** Things emitted that should not have been, or not as they should. */
	reasons: string[];
	/** The lag of the job emitted last (ms): when the last of the load went out. */
	lastLagMs: number;
	worstLagMs: number;
	/** The long jobs' lags (ms), for `longJobs` loads: their longest and their median. */
	longJobLagsMs: { worst: number; median: number } | undefined;
	/** Worst lags of the jobs that ended in the first and in the second half of a sustained load (ms). */
	halves: [number, number];
	/** When the load had ended, for the lag of the last job (ms after the first end). */
	polls: number;
	executions: number;
	/** The most jobs one execution carried. */
	largestExecution: number;
	peakBacklog: number;
	/** Requests of the trigger, by kind, and the 429 answers among them. */
	requests: { list: number; download: number; rateLimited: number };
	/** The most list requests / downloads in one minute of the service's clock. */
	peakPerMinute: { list: number; download: number };
	/** The largest static data n8n saved (bytes). */
	peakStaticDataBytes: number;
	/** The longest poll (ms). */
	longestPollMs: number;
	/** Each poll: when it began (ms after the first tick), how long it took, how many jobs it emitted. */
	pollLog: Array<{ atMs: number; tookMs: number; emitted: number }>;
	/** What the trigger emitted and the errors of its polls, and the key it read with (for R4's scan). */
	items: INodeExecutionData[];
	errors: Error[];
	apiKey: string;
}

/** The bound the issue sets: the backlog at the account's ceiling (the trigger's share of it), plus two Poll Times. */
export function drainBoundMs(load: PolledLoad, sharePercent = 50): number {
	const count =
		'burst' in load.ending
			? load.ending.burst
			: 'longJobs' in load.ending
				? load.ending.longJobs * (1 + load.ending.newerEach)
				: 0;
	const share = sharePercent / 100;
	const perMinute = load.downloadArtifact
		? Math.floor(PLATINUM.artifacts * share)
		: Math.floor(PLATINUM.reads * share) * PAGE_JOBS;
	const needing = load.downloadArtifact
		? count - (load.failedEvery > 0 ? Math.floor(count / load.failedEvery) : 0)
		: count;
	return (needing / perMinute) * MINUTE_MS + 2 * load.pollMinutes * MINUTE_MS;
}

export async function runPolledLoad(load: PolledLoad): Promise<PolledLoadResult> {
	const clock = new PollingClock();
	clock.install();
	let sandbox: RunningSandbox | undefined;
	let proxy: RecordingProxy | undefined;
	try {
		sandbox = await startSandbox({
			port: 0,
			quiet: true,
			seed: load.seed,
			realNow: () => clock.now(),
			listOrder: load.listOrder,
			rateLimits: load.rateLimits,
		});
		clock.drives(sandbox.clock);
		const admin = new SandboxAdmin(sandbox.baseUrl);
		const key = await admin.createKey({ mode: 'live', tier: 'platinum' });
		const perMinute = { list: new Map<number, number>(), download: new Map<number, number>() };
		proxy = await startRecordingProxy(sandbox.baseUrl, (incoming) => {
			const url = incoming.url ?? '';
			const kind = /^\/api\/v1\/transcriptions\?/.test(url)
				? 'list'
				: /\/artifact(\.\w+)?$/.test(url.split('?')[0])
					? 'download'
					: undefined;
			if (kind) {
				const minute = Math.floor(clock.now() / MINUTE_MS);
				perMinute[kind].set(minute, (perMinute[kind].get(minute) ?? 0) + 1);
			}
			return undefined;
		});
		for (let left = load.history ?? 250; left > 0; left -= 10_000) {
			await admin.seedJobs({ account_id: key.account_id, count: Math.min(left, 10_000) });
		}
		await admin.seedJobs({ account_id: key.account_id, count: 20, status: 'failed' });
		await clock.passTo(clock.now() + 60 * MINUTE_MS);
		const pollTimes =
			load.pollMinutes === 1
				? { item: [{ mode: 'everyMinute' }] }
				: load.pollMinutes === 60
					? { item: [{ mode: 'everyHour', minute: 0 }] }
					: { item: [{ mode: 'everyX', value: load.pollMinutes, unit: 'minutes' }] };
		const trigger = await PollingTriggerUnderTest.start({
			parameters: {
				pollTimes,
				events: ['transcription.completed', 'transcription.failed'],
				downloadArtifact: load.downloadArtifact,
				artifactFormat: 'srt',
				binaryPropertyName: 'data',
				...(load.sharePercent ? { options: { rateLimitShare: load.sharePercent } } : {}),
			},
			credentials: { apiKey: key.key, baseUrl: proxy.baseUrl },
		});
		clock.advanceToPhase(0, 300);
		await trigger.activate();

		// The ticks: every Poll Time from the activation on; the load starts just after the first.
		const pollMs = load.pollMinutes * MINUTE_MS;
		const firstTick = clock.now() + pollMs;
		const ended = new Map<string, number>();
		const endJobs = async (count: number) => {
			const failed = load.failedEvery > 0 ? Math.floor(count / load.failedEvery) : 0;
			for (const [status, n] of [
				['completed', count - failed],
				['failed', failed],
			] as const) {
				if (n === 0) continue;
				const { job_ids } = await admin.seedJobs({ account_id: key.account_id, count: n, status });
				for (const jobId of job_ids) ended.set(jobId, clock.now());
			}
		};
		const loadStart = firstTick + 1000;
		let planned = 0;
		let loadEnds = loadStart;
		const longJobs: string[] = [];
		const { ending } = load;
		if ('burst' in ending) {
			clock.at(loadStart, async () => await endJobs(ending.burst));
			planned = ending.burst;
		} else if ('perMinute' in ending) {
			for (let minute = 0; minute < ending.minutes; minute++) {
				clock.at(loadStart + minute * MINUTE_MS, async () => await endJobs(ending.perMinute));
			}
			planned = ending.perMinute * ending.minutes;
			loadEnds = loadStart + (ending.minutes - 1) * MINUTE_MS;
		} else {
			const { job_ids } = await admin.seedJobs({
				account_id: key.account_id,
				count: ending.longJobs,
				status: 'processing',
				held: true,
			});
			longJobs.push(...job_ids);
			const random = mulberry32(load.seed);
			for (const jobId of job_ids) {
				const at = loadStart + Math.floor(random() * ending.overMinutes * MINUTE_MS);
				loadEnds = Math.max(loadEnds, at);
				clock.at(at, async () => {
					await admin.completeJob(jobId);
					ended.set(jobId, clock.now());
					await endJobs(ending.newerEach);
				});
			}
			planned = ending.longJobs * (1 + ending.newerEach);
		}

		let polls = 0;
		let peakBacklog = 0;
		let peakStaticDataBytes = 0;
		let longestPollMs = 0;
		const pollLog: PolledLoadResult['pollLog'] = [];
		const emittedIds = new Set<string>();
		let counted = 0;
		const maxTicks = Math.ceil((drainBoundMs(load) + (loadEnds - loadStart)) / pollMs) * 3 + 10;
		let quiet = 0;
		for (let tick = 0; tick < maxTicks && quiet < 2; tick++) {
			const at = firstTick + tick * pollMs;
			await clock.passTo(at);
			polls++;
			const emittedBefore = trigger.emissions.length;
			await trigger.poll();
			longestPollMs = Math.max(longestPollMs, clock.now() - at);
			pollLog.push({
				atMs: at - firstTick,
				tookMs: clock.now() - at,
				emitted: trigger.emissions
					.slice(emittedBefore)
					.reduce((sum, items) => sum + items.length, 0),
			});
			for (; counted < trigger.emissions.length; counted++) {
				for (const item of trigger.emissions[counted]) emittedIds.add(String(item.json.job_id));
			}
			peakBacklog = Math.max(peakBacklog, ended.size - emittedIds.size);
			peakStaticDataBytes = Math.max(
				peakStaticDataBytes,
				Buffer.byteLength(JSON.stringify(trigger.storedStaticData)),
			);
			const everything = ended.size >= planned && emittedIds.size >= ended.size;
			quiet = everything && trigger.emissions.length === emittedBefore ? quiet + 1 : 0;
		}

		// Judged with the rate limits out of the way: the comparison is the test's, not the trigger's.
		await admin.setRateLimits({ perTier: { platinum: 1_000_000, premium: 1_000_000 } });
		const judged = await judge(sandbox.baseUrl, admin, key, trigger, ended, load.downloadArtifact);
		const lags: Array<{ jobId: string; endedAt: number; lagMs: number; emittedAt: number }> = [];
		trigger.emissions.forEach((items, index) => {
			for (const item of items) {
				const endedAt = Date.parse(String(item.json.created_at));
				lags.push({
					jobId: String(item.json.job_id),
					endedAt,
					lagMs: trigger.emittedAt[index] - endedAt,
					emittedAt: trigger.emittedAt[index],
				});
			}
		});
		const last = lags.reduce(
			(latest, lag) => (lag.emittedAt > latest.emittedAt ? lag : latest),
			lags[0] ?? { jobId: '', endedAt: 0, lagMs: 0, emittedAt: 0 },
		);
		const middle = loadStart + (loadEnds - loadStart) / 2;
		const longJobLags = trigger
			.items()
			.filter((item) => longJobs.includes(String(item.json.job_id)))
			.map(
				(item) =>
					lags.find((lag) => lag.endedAt === Date.parse(String(item.json.created_at)))!.lagMs,
			)
			.sort((a, b) => a - b);
		const worst = (of: typeof lags) => Math.max(0, ...of.map((lag) => lag.lagMs));
		const exchanges = proxy.exchanges;
		const isList = (url: string) => /^\/api\/v1\/transcriptions\?/.test(url);
		const isDownload = (url: string) => /\/artifact(\.\w+)?$/.test(url.split('?')[0]);
		return {
			...judged,
			lastLagMs: last.lagMs,
			worstLagMs: worst(lags),
			longJobLagsMs:
				longJobs.length > 0
					? {
							worst: longJobLags[longJobLags.length - 1] ?? Number.POSITIVE_INFINITY,
							median: longJobLags[Math.floor(longJobLags.length / 2)] ?? Number.POSITIVE_INFINITY,
						}
					: undefined,
			halves: [
				worst(lags.filter((lag) => lag.endedAt < middle)),
				worst(lags.filter((lag) => lag.endedAt >= middle)),
			],
			polls,
			executions: trigger.emissions.length,
			largestExecution: Math.max(0, ...trigger.emissions.map((items) => items.length)),
			peakBacklog,
			requests: {
				list: exchanges.filter((exchange) => isList(exchange.url)).length,
				download: exchanges.filter((exchange) => isDownload(exchange.url)).length,
				rateLimited: exchanges.filter((exchange) => exchange.status === 429).length,
			},
			peakPerMinute: {
				list: Math.max(0, ...perMinute.list.values()),
				download: Math.max(0, ...perMinute.download.values()),
			},
			peakStaticDataBytes,
			longestPollMs,
			pollLog,
			items: trigger.items(),
			errors: trigger.errors,
			apiKey: key.key,
		};
	} finally {
		await proxy?.close();
		await sandbox?.close();
		clock.uninstall();
	}
}

export interface Emissions {
	jobs: number;
	lost: string[];
	duplicated: string[];
	stalled: string[];
	/** Things emitted that should not have been, or not as they should. */
	reasons: string[];
	/** Each job's first item. */
	first: Map<string, INodeExecutionData>;
}

/**
 * Each job of `ended` emitted once and nothing else: a job not emitted is stalled while the stored state still owes a
 * search or waiting jobs, else lost; an item beyond a job's first is a duplicate.
 */
export function countEmissions(
	trigger: PollingTriggerUnderTest,
	ended: Iterable<string>,
): Emissions {
	const endedIds = new Set(ended);
	const first = new Map<string, INodeExecutionData>();
	const result: Emissions = {
		jobs: endedIds.size,
		lost: [],
		duplicated: [],
		stalled: [],
		reasons: [],
		first,
	};
	for (const item of trigger.items()) {
		const jobId = String(item.json.job_id);
		if (first.has(jobId)) result.duplicated.push(jobId);
		else first.set(jobId, item);
	}
	for (const jobId of first.keys()) {
		if (!endedIds.has(jobId))
			result.reasons.push(`${jobId}: emitted, but it ended before the trigger's start`);
	}
	const state = trigger.storedState();
	const stillOwed = Object.values(state?.statuses ?? {}).some(
		(status) => status?.scan !== undefined || (status?.pending?.length ?? 0) > 0,
	);
	for (const jobId of endedIds) {
		if (!first.has(jobId)) (stillOwed ? result.stalled : result.lost).push(jobId);
	}
	return result;
}

/** Each job that ended emitted once, in its state; a completed one with a transcript of the service's. */
async function judge(
	sandboxBaseUrl: string,
	admin: SandboxAdmin,
	key: { key: string; account_id: string },
	trigger: PollingTriggerUnderTest,
	ended: Map<string, number>,
	downloads: boolean,
): Promise<Pick<PolledLoadResult, 'jobs' | 'lost' | 'duplicated' | 'stalled' | 'reasons'>> {
	const records = await admin.records(key.account_id);
	const statusOf = new Map(records.jobs.map((job) => [job.job_id, job.status]));
	const { first, ...result } = countEmissions(trigger, ended.keys());
	let compared = 0;
	for (const [jobId, item] of first) {
		if (!ended.has(jobId)) continue;
		const status = statusOf.get(jobId);
		let problem: string | undefined;
		if (item.json.status !== status) {
			problem = `emitted as ${String(item.json.status)}, the job is ${status}`;
		} else if (status === 'completed' && downloads) {
			const binary = item.binary?.data;
			if (!binary) problem = `no transcript (${JSON.stringify(item.json.artifact_error ?? null)})`;
			else if (binary.mimeType !== 'application/x-subrip' || !binary.fileName?.endsWith('.srt')) {
				problem = `a transcript of ${binary.mimeType} named ${binary.fileName}`;
			} else if (compared++ < COMPARED_ARTIFACTS) {
				const served = await servedArtifact(sandboxBaseUrl, key.key, jobId, 'srt');
				if (!(await binaryBytes(binary)).equals(served)) {
					problem = 'SRT bytes differ from the service’s';
				}
			}
		}
		if (problem) {
			result.lost.push(jobId);
			result.reasons.push(`${jobId}: ${problem}`);
		}
	}
	return result;
}
