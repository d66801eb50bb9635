// P4 waiting cost: GET /transcriptions/{job_id} requests per job for 10 s, 60 s and 600 s jobs, by Transcribe and
// Download in Wait Mode "Poll" (default poll options) against a fixed 5 s poll, both running side by side against the
// same sandbox. Long jobs run on sandbox time sped up on both sides (see lib/time-scale.ts) so that no job takes more
// than `wallSecondsPerJob` of wall time; short ones run in real time, where the speed-up would also stretch every
// request's own latency into seconds of sandbox time.
// And in Wait Mode "Pause Until Webhook", whose execution is paused until the service's signed events reach its resume
// URL (n8n's waiting-webhook steps, as test/support/engine/waiting-harness.ts runs them) while the node's watcher checks
// now and then: status reads per batch while it waits 1, 10 and 60 minutes, on this process's clock sped up (see
// p4-pause-clock.ts), after the polling arms.

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
import { fastClock } from './p4-pause-clock';
import { PausedRun } from '../test/support/engine/waiting-harness';

export interface PollingBenchOptions {
	jobSeconds: number[];
	jobsPerLength: number;
	wallSecondsPerJob: number;
	seed: number;
	/** Pause Until Webhook: how long the batch waits (its jobs' length), in minutes. */
	pauseWaitMinutes: number[];
	/** …on a clock this many times faster (p4-pause-clock.ts). */
	pauseClockFactor: number;
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
	// One after the other, after the polling arms: each speeds up this whole process's clock.
	for (const waitMinutes of options.pauseWaitMinutes)
		rows.push(await runPauseArm(waitMinutes, options));
	return rows;
}

/**
 * Pause Until Webhook on a sandbox of its own: a batch of `jobsPerLength` jobs that each take `waitMinutes`, on a clock
 * `pauseClockFactor` times faster. Counts, at the proxy, the status reads from the pause to the resume (the watcher's
 * checks and the events' reads) and in all, per batch.
 */
async function runPauseArm(waitMinutes: number, options: PollingBenchOptions): Promise<ResultRow> {
	const clock = fastClock(options.pauseClockFactor);
	const sandbox = await startSandbox({
		port: 0,
		quiet: true,
		jobSeconds: waitMinutes * 60,
		seed: options.seed,
		allowLocalWebhooks: true,
	});
	clock.drive(sandbox.clock);
	const proxy = await startCountingProxy(sandbox.baseUrl);
	try {
		const run = await PausedRun.start({
			parameters: pauseUntilWebhookParameters({
				concurrency: options.jobsPerLength,
				maxWaitSeconds: waitMinutes * 60 * 3,
			}),
			input: await wavItems(options.jobsPerLength, `p4-pause-${waitMinutes}min`),
			credentials: {
				apiKey: sandbox.keys.platinum_live.key,
				baseUrl: proxy.baseUrl,
				signingSecret: sandbox.keys.platinum_live.signing_secret,
			},
		});
		const pausedAtMs = Date.now();
		await run.finished();
		await run.close();
		const jobs = run.output().map((item) => item.json as { job_id: string; status: string });
		if (jobs.some((job) => job.status !== 'completed')) {
			throw new Error('P4: a paused job did not complete');
		}
		const resumedBy = run.calls.find((call) => call.resumed);
		if (!resumedBy) throw new Error('P4: no request resumed the execution');
		const statusReads = proxy.exchanges.filter(
			(exchange) => exchange.method === 'GET' && STATUS_PATH.test(exchange.url),
		);
		const whileWaiting = statusReads.filter(
			(exchange) =>
				exchange.startedAtMs >= pausedAtMs && exchange.startedAtMs < resumedBy.receivedAtMs,
		).length;
		const checks = run.calls.filter((call) => call.kind === 'check').length;
		const events = run.calls.length - checks;
		const fixedPollReads = options.jobsPerLength * ((waitMinutes * 60) / FIXED_POLL_SECONDS);
		return {
			benchmark: 'P4',
			metric: `status reads per batch of ${options.jobsPerLength} while it waits ${waitMinutes} min (Pause Until Webhook)`,
			value: whileWaiting,
			unit: 'reads',
			baseline: {
				label: `fixed ${FIXED_POLL_SECONDS} s poll of each job (${options.jobsPerLength} × ${waitMinutes * 60} s ÷ ${FIXED_POLL_SECONDS} s)`,
				value: fixedPollReads,
			},
			ratio: ratio(whileWaiting, fixedPollReads),
			note: `${checks} checks and ${events} events reached the resume URL, ${run.calls.filter((call) => call.resumed).length} resumed (by ${resumedBy.kind === 'check' ? 'a check' : 'an event'}); ${statusReads.length} status reads in all (${round(statusReads.length / options.jobsPerLength, 2)} per item, the output's snapshots included); clock ×${options.pauseClockFactor} (${round((waitMinutes * 60) / options.pauseClockFactor, 1)} s of wall time per wait)`,
		};
	} finally {
		clock.stop();
		await proxy.close();
		await sandbox.close();
	}
}
