// P4 polling cost: GET /transcriptions/{job_id} requests per job for 10 s, 60 s and 600 s jobs, by the node's
// wait loop (Transcribe and Download with default poll options) against a fixed 5 s poll, both running side by
// side against the same sandbox. Long jobs run on sandbox time sped up on both sides (see lib/time-scale.ts) so
// that no job takes more than `wallSecondsPerJob` of wall time; short ones run in real time, where the speed-up
// would also stretch every request's own latency into seconds of sandbox time.

import { startSandbox } from '../sandbox/server';
import { makeWav } from '../test/fixtures/media';
import { startCountingProxy, type Exchange } from './lib/counting-proxy';
import { ACTION_NODE_NAME, runTranscribeAndDownload, wavItems } from './lib/engine';
import { transcribeWithFixedPoll } from './lib/fixed-poll-client';
import { ratio, round, type ResultRow } from './lib/report';
import { scaleTime } from './lib/time-scale';

export interface PollingBenchOptions {
	jobSeconds: number[];
	jobsPerLength: number;
	wallSecondsPerJob: number;
	seed: number;
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
	return rows;
}
