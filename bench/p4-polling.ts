// P4 waiting cost: GET /transcriptions/{job_id} requests per job for 10 s, 60 s and 600 s jobs, by Transcribe and
// Download in Wait Mode "Poll" (default poll options) against a fixed 5 s poll, both running side by side against the
// same sandbox; and in Wait Mode "Pause Until Webhook", whose execution is paused until the service's signed events
// reach its resume URL (n8n's waiting-webhook steps, as test/support/engine/waiting-harness.ts runs them). Long jobs run on sandbox time sped up on both sides (see lib/time-scale.ts) so
// that no job takes more than `wallSecondsPerJob` of wall time; short ones run in real time, where the speed-up
// would also stretch every request's own latency into seconds of sandbox time.

import { startSandbox } from '../sandbox/server';
import { makeWav } from '../test/support/fixtures/media';
import { startCountingProxy, type Exchange } from '../test/support/sandbox/counting-proxy';
import {
	ACTION_NODE_NAME,
	pauseUntilWebhookParameters,
	runTranscribeAndDownload,
	wavItems,
} from '../test/support/engine/batch-runs';
import { transcribeWithFixedPoll } from './lib/fixed-poll-client';
import { ratio, round, type ResultRow } from '../test/support/bench-results';
import { scaleTime } from './lib/time-scale';
import { PausedRun } from '../test/support/engine/waiting-harness';

export interface PollingBenchOptions {
	jobSeconds: number[];
	jobsPerLength: number;
	wallSecondsPerJob: number;
	seed: number;
	/** Pause Until Webhook runs in real time (see runPauseArm); longer jobs are left out of it (quick runs). */
	pauseMaxJobSeconds: number;
}

const FIXED_POLL_SECONDS = 5;
const STATUS_PATH = /^\/api\/v1\/transcriptions\/([^/?]+)(\?.*)?$/;

interface PollCount {
	gets: number;
	notModified: number;
	/** Sandbox seconds from the job's completion to the first GET that saw it. */
	detectionLagSeconds: number;
}

function countPolls(exchanges: Exchange[], jobId: string, completedAtMs: number): PollCount {
	const polls = exchanges.filter(
		(exchange) => exchange.method === 'GET' && STATUS_PATH.exec(exchange.url)?.[1] === jobId,
	);
	const seen = polls.find(
		(exchange) =>
			exchange.status === 200 &&
			(exchange.responseJson as { status?: string } | undefined)?.status === 'completed',
	);
	return {
		gets: polls.length,
		notModified: polls.filter((exchange) => exchange.status === 304).length,
		detectionLagSeconds: seen ? (seen.startedAtMs - completedAtMs) / 1000 : Number.NaN,
	};
}

function mean(values: number[]): number {
	return values.reduce((sum, value) => sum + value, 0) / values.length;
}

export async function runPollingBenchmark(options: PollingBenchOptions): Promise<ResultRow[]> {
	const rows: ResultRow[] = [];
	// In real time, every length at once, beside the sped-up polling arms: the longest job sets P4's duration.
	const pauseArms = Promise.all(
		options.jobSeconds
			.filter((jobSeconds) => jobSeconds <= options.pauseMaxJobSeconds)
			.map(async (jobSeconds) => await runPauseArm(jobSeconds, options)),
	);
	for (const jobSeconds of options.jobSeconds) {
		const factor = Math.max(1, jobSeconds / options.wallSecondsPerJob);
		const sandbox = await startSandbox({ port: 0, quiet: true, jobSeconds, seed: options.seed });
		const proxy = await startCountingProxy(sandbox.baseUrl, { now: () => sandbox.clock.now() });
		const timeScale = scaleTime(sandbox.clock, factor);
		try {
			const credentials = { apiKey: sandbox.keys.platinum_live.key, baseUrl: proxy.baseUrl };
			const media = makeWav({ seconds: 1 });
			const [ours, fixed] = await Promise.all([
				runTranscribeAndDownload({
					items: await wavItems(options.jobsPerLength, `p4-${jobSeconds}s`),
					credentials,
					concurrency: options.jobsPerLength,
				}),
				Promise.all(
					Array.from({ length: options.jobsPerLength }, (_, index) =>
						transcribeWithFixedPoll({
							baseUrl: proxy.baseUrl,
							apiKey: credentials.apiKey,
							media,
							fileName: `p4-fixed-${jobSeconds}s-${index}.wav`,
							intervalMs: (FIXED_POLL_SECONDS * 1000) / factor,
						}),
					),
				),
			]);
			if (ours.error) throw ours.error;
			const ourJobs = ours
				.output(ACTION_NODE_NAME)
				.map((item) => item.json as { job_id: string; status: string; updated_at: string });
			const failed = ourJobs.filter((job) => job.status !== 'completed');
			if (failed.length > 0) throw new Error(`P4: ${failed.length} of our jobs did not complete`);

			const completedAt = new Map<string, number>();
			for (const exchange of proxy.exchanges) {
				const body = exchange.responseJson as
					{ job_id?: string; status?: string; updated_at?: string } | undefined;
				if (body?.status === 'completed' && body.job_id && body.updated_at)
					completedAt.set(body.job_id, Date.parse(body.updated_at));
			}
			const measure = (jobIds: string[]) =>
				jobIds.map((jobId) =>
					countPolls(proxy.exchanges, jobId, completedAt.get(jobId) ?? Number.NaN),
				);
			const ourCounts = measure(ourJobs.map((job) => job.job_id));
			const fixedCounts = measure(fixed.map((job) => job.jobId));

			const ourGets = round(mean(ourCounts.map((count) => count.gets)), 1);
			const fixedGets = round(mean(fixedCounts.map((count) => count.gets)), 1);
			const notModifiedShare = round(
				(100 * ourCounts.reduce((sum, count) => sum + count.notModified, 0)) /
					ourCounts.reduce((sum, count) => sum + count.gets, 0),
				0,
			);
			rows.push({
				benchmark: 'P4',
				metric: `GETs per ${jobSeconds} s job (our wait loop)`,
				value: ourGets,
				unit: 'GETs',
				baseline: { label: `fixed ${FIXED_POLL_SECONDS} s poll`, value: fixedGets },
				ratio: ratio(ourGets, fixedGets),
				note:
					`completion seen ${round(mean(ourCounts.map((count) => count.detectionLagSeconds)), 1)} s after it happened (ours) vs ` +
					`${round(mean(fixedCounts.map((count) => count.detectionLagSeconds)), 1)} s (fixed poll: its lag depends on where the job ends ` +
					`between two polls, 2.5 s on average); ${options.jobsPerLength} jobs each${factor > 1 ? `, sandbox time ×${round(factor, 1)}` : ', real time'}`,
			});
			rows.push({
				benchmark: 'P4',
				metric: `304 share of our GETs, ${jobSeconds} s job`,
				value: notModifiedShare,
				unit: '%',
			});
		} finally {
			timeScale.stop();
			await proxy.close();
			await sandbox.close();
		}
	}
	for (const arm of await pauseArms) rows.push(...arm);
	return rows;
}

/**
 * Pause Until Webhook on a sandbox of its own, in real time: the service signs each event with its own clock, and one
 * running minutes ahead of n8n's is refused (±300 s) as it should be, so sandbox time is not sped up here.
 */
async function runPauseArm(jobSeconds: number, options: PollingBenchOptions): Promise<ResultRow[]> {
	const sandbox = await startSandbox({
		port: 0,
		quiet: true,
		jobSeconds,
		seed: options.seed,
		allowLocalWebhooks: true,
	});
	const proxy = await startCountingProxy(sandbox.baseUrl);
	try {
		const run = await PausedRun.start({
			parameters: pauseUntilWebhookParameters({
				concurrency: options.jobsPerLength,
				maxWaitSeconds: jobSeconds * 3,
			}),
			input: await wavItems(options.jobsPerLength, `p4-pause-${jobSeconds}s`),
			credentials: {
				apiKey: sandbox.keys.platinum_live.key,
				baseUrl: proxy.baseUrl,
				signingSecret: sandbox.keys.platinum_live.signing_secret,
			},
		});
		await run.finished();
		await run.close();
		const jobs = run.output().map((item) => item.json as { job_id: string; status: string });
		if (jobs.some((job) => job.status !== 'completed')) {
			throw new Error('P4: a paused job did not complete');
		}
		// After the resume each job is read once, for the output's snapshot; any other GET was made while waiting.
		const gets = jobs.map((job) => countPolls(proxy.exchanges, job.job_id, Number.NaN).gets);
		const whileWaiting = round(mean(gets.map((count) => Math.max(0, count - 1))), 1);
		const fixedPollGets = round(jobSeconds / FIXED_POLL_SECONDS, 1);
		const resumedBy = run.calls.find((call) => call.resumed);
		const lagMs = (run.finishedAtMs ?? Number.NaN) - (resumedBy?.receivedAtMs ?? Number.NaN);
		return [
			{
				benchmark: 'P4',
				metric: `status GETs while waiting, per ${jobSeconds} s job (Pause Until Webhook)`,
				value: whileWaiting,
				unit: 'GETs',
				baseline: {
					label: `fixed ${FIXED_POLL_SECONDS} s poll (${jobSeconds} s ÷ ${FIXED_POLL_SECONDS} s)`,
					value: fixedPollGets,
				},
				ratio: ratio(whileWaiting, fixedPollGets),
				note: `${round(mean(gets), 1)} GET per job in all (its snapshot, after the last event); ${run.calls.length} events received, ${run.calls.filter((call) => call.resumed).length} resume; real time, ${options.jobsPerLength} jobs`,
			},
			{
				benchmark: 'P4',
				metric: `output after the last event, ${jobSeconds} s jobs (Pause Until Webhook)`,
				value: Math.round(lagMs),
				unit: 'ms',
				note: "wall time from the event that resumed the execution to the node's output (a snapshot and the SRT per job)",
			},
		];
	} finally {
		await proxy.close();
		await sandbox.close();
	}
}
