// P5 queue-mode throughput: N single-item executions (media uploaded to a production webhook, Transcribe and Download,
// SRT) on a queue-mode n8n — one main, two webhook processors behind a round-robin router, 1 or 2 workers of
// concurrency 5, PostgreSQL and Redis — against a service whose write bucket is the ceiling (three writes per job).
// Poll mode holds a worker slot for the whole job, so it is bounded by slots ÷ job length; Pause Until Webhook
// releases the slot while the job runs, so it is bounded by the service's ceiling, whatever the job length.
// Throughput is executions ÷ (first accepted write → last accepted write, on the service's clock): every execution
// makes its three writes when it starts, so that span is what the write bucket governs, and no client can push it
// past the ceiling (beyond one window's edge: N windows' writes can span a little over N − 1 windows). Beside it, the
// share of the write ceiling used (writes per minute of that span ÷ the ceiling), and the earlier formula, executions
// ÷ (first upload → last execution finished − one job length), which breaks when the run's elapsed time is close to
// one job length (b2749ca's run: 50 Pause executions of 60 s jobs in 94 s → 89.7/min, 1.49× the ceiling). (The rate
// between the first and the last to finish is no measure for Pause either — eba447d's committed 172.2 and 197.6/min —
// n8n's queue serves first in, first out, so resumes wait behind the executions still starting and the finishes bunch
// up at the end.)
//
// It also runs N executions on two workers against a tight bucket with this checkout, and with each --pacer-baseline
// tarball, counting 429 answers after the first window and failed items (the pacer's before/after).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { startSandbox, type RunningSandbox } from '../sandbox/server';
import { CREDENTIAL_TYPE } from '../test/support/n8n/environment';
import { n8nInstall, type N8nVersionId } from '../test/support/n8n/versions';
import { startQueueCluster, type QueueCluster } from '../test/support/queue/cluster';
import {
	runManyExecutions,
	type ManyExecutionsResult,
} from '../test/support/queue/many-executions';
import { servicesUnavailable } from '../test/support/queue/services';
import { transcribeWorkflow } from '../test/support/queue/workflows';
import { startCountingProxy, type CountingProxy } from '../test/support/sandbox/counting-proxy';
import { ratio, round, type ResultRow } from '../test/support/bench-results';

export interface PacerBaseline {
	label: string;
	tarball: string;
}

export interface QueueBenchOptions {
	versionId: N8nVersionId;
	executions: number;
	/** The job lengths Pause is measured at (the first is also Poll's). */
	jobSeconds: number[];
	windowSeconds: number;
	writesPerWindow: number;
	workerConcurrency: number;
	/** Earlier builds of the pack to compare the rate-limit pacer with, on two workers and a tight bucket. */
	pacerBaselines: PacerBaseline[];
	pacerWindowSeconds: number;
	pacerWritesPerWindow: number;
	/** Executions of each pacer comparison run (all at once, jobs of 1 s). */
	pacerExecutions: number;
	/** Executions of each Poll run (`executions` is the Pause runs'): Poll on long jobs takes executions ÷ slots job lengths. */
	pollExecutions: number;
	/** The wait modes measured (default both). */
	modes: Mode[];
}

const WRITES_PER_JOB = 3;
const CREDENTIAL = { id: 'tssBenchQueue001', name: 'Transcription Service (bench)' };

export type Mode = 'poll' | 'pauseUntilWebhook';

interface Service {
	sandbox: RunningSandbox;
	proxy: CountingProxy;
	close(): Promise<void>;
}

async function startService(
	jobSeconds: number,
	windowSeconds: number,
	writesPerWindow: number,
): Promise<Service> {
	const sandbox = await startSandbox({
		port: 0,
		quiet: true,
		allowLocalWebhooks: true,
		jobSeconds,
		rateLimits: {
			windowSeconds,
			perTier: { platinum: writesPerWindow, premium: writesPerWindow },
		},
	});
	const proxy = await startCountingProxy(sandbox.baseUrl, { now: () => sandbox.clock.now() });
	return {
		sandbox,
		proxy,
		async close() {
			await proxy.close();
			await sandbox.close();
		},
	};
}

function workflowId(mode: Mode, jobSeconds: number): string {
	return `tssB${mode === 'poll' ? 'Poll' : 'Pause'}${String(jobSeconds).padStart(4, '0')}`.padEnd(
		16,
		'0',
	);
}

function webhookPath(mode: Mode, jobSeconds: number): string {
	return `bench-${mode}-${jobSeconds}`;
}

interface Run {
	label: string;
	result: ManyExecutionsResult;
}

async function withCluster<T>(
	options: QueueBenchOptions,
	workers: number,
	service: Service,
	runs: Array<{ mode: Mode; jobSeconds: number }>,
	use: (cluster: QueueCluster) => Promise<T>,
	tarball?: string,
): Promise<T> {
	const workDir = await mkdtemp(path.join(tmpdir(), 'tss-bench-queue-'));
	const cluster = await startQueueCluster({
		versionId: options.versionId,
		workDir,
		workers,
		webhookProcessors: 2,
		workerConcurrency: options.workerConcurrency,
		tarball,
		credentials: [
			{
				...CREDENTIAL,
				type: CREDENTIAL_TYPE,
				data: {
					apiKey: service.sandbox.keys.platinum_live.key,
					signingSecret: service.sandbox.keys.platinum_live.signing_secret,
					previousSigningSecret: '',
					baseUrl: service.proxy.baseUrl,
					pathPrefix: '/api/v1',
				},
			},
		],
		workflows: () =>
			runs.map(({ mode, jobSeconds }) =>
				transcribeWorkflow({
					id: workflowId(mode, jobSeconds),
					path: webhookPath(mode, jobSeconds),
					credential: CREDENTIAL,
					formats: ['srt'],
					waitMode: mode,
					maxWaitSeconds: 3600,
					pollIntervalSeconds: 2,
					maxPollIntervalSeconds: 30,
				}),
			),
		activate: runs.map(({ mode, jobSeconds }) => workflowId(mode, jobSeconds)),
	});
	try {
		return await use(cluster);
	} finally {
		await cluster.stop();
		await rm(workDir, { recursive: true, force: true });
	}
}

async function measure(
	cluster: QueueCluster,
	service: Service,
	mode: Mode,
	jobSeconds: number,
	options: { executions: number; windowSeconds: number },
): Promise<ManyExecutionsResult> {
	const label = `${mode}, ${cluster.workers.length} worker(s), ${jobSeconds} s jobs`;
	process.stderr.write(`[P5] ${label}: ${options.executions} executions…\n`);
	const result = await runManyExecutions({
		cluster,
		workflowId: workflowId(mode, jobSeconds),
		webhookPath: webhookPath(mode, jobSeconds),
		count: options.executions,
		proxy: service.proxy,
		windowSeconds: options.windowSeconds,
		timeoutMs: 3 * 60 * 60 * 1000,
	});
	process.stderr.write(
		`[P5] ${label}: ${round(perMinute(result))} /min over the writes (${round(perMinuteAfterOneJob(result, jobSeconds))} by the earlier formula), ${result.failedItems} failed, ${result.rateLimited} × 429, ${Math.round(result.elapsedMs / 1000)} s\n`,
	);
	return result;
}

/** Executions per minute from the first accepted write to the last. */
function perMinute(result: ManyExecutionsResult): number {
	return (result.executions * 60_000) / result.writeSpanMs;
}

/** The earlier formula: executions per minute of (first upload → last finished − one job length). */
function perMinuteAfterOneJob(result: ManyExecutionsResult, jobSeconds: number): number {
	return (result.executions * 60_000) / (result.elapsedMs - jobSeconds * 1000);
}

function note(run: Run): string {
	const { result } = run;
	return `${run.label}: ${result.executions} executions in ${Math.round(result.elapsedMs / 1000)} s (writes over ${round(result.writeSpanMs / 1000)} s), ${result.failedItems} failed, ${result.rateLimited} × 429 (${result.rateLimitedAfterFirstWindow} after the first window), runs per worker ${JSON.stringify(result.runsByWorker)}`;
}

export async function runQueueBenchmark(
	options: QueueBenchOptions,
): Promise<ResultRow[] | { skipped: string }> {
	const unavailable = servicesUnavailable();
	if (unavailable) return { skipped: unavailable };
	try {
		n8nInstall(options.versionId);
	} catch (error) {
		return { skipped: (error as Error).message };
	}

	const [jobSeconds, ...otherLengths] = options.jobSeconds;
	const writeCeiling = options.writesPerWindow * (60 / options.windowSeconds);
	const ceiling = writeCeiling / WRITES_PER_JOB;
	const slots = (workers: number) => workers * options.workerConcurrency;
	const slotBound = (workers: number) => (slots(workers) * 60) / jobSeconds;
	const runs: Run[] = [];
	const throughputOf = (run: Run | undefined) => (run ? perMinute(run.result) : null);

	for (const workers of [1, 2]) {
		const service = await startService(jobSeconds, options.windowSeconds, options.writesPerWindow);
		const plan = options.modes.map((mode) => ({ mode, jobSeconds }));
		try {
			await withCluster(options, workers, service, plan, async (cluster) => {
				for (const { mode } of plan) {
					const result = await measure(cluster, service, mode, jobSeconds, {
						executions: mode === 'poll' ? options.pollExecutions : options.executions,
						windowSeconds: options.windowSeconds,
					});
					runs.push({ label: `${mode} ${workers}w ${jobSeconds}s`, result });
				}
			});
		} finally {
			await service.close();
		}
	}
	for (const length of options.modes.includes('pauseUntilWebhook') ? otherLengths : []) {
		const service = await startService(length, options.windowSeconds, options.writesPerWindow);
		const plan = [{ mode: 'pauseUntilWebhook' as const, jobSeconds: length }];
		try {
			await withCluster(options, 2, service, plan, async (cluster) => {
				const result = await measure(cluster, service, 'pauseUntilWebhook', length, options);
				runs.push({ label: `pauseUntilWebhook 2w ${length}s`, result });
			});
		} finally {
			await service.close();
		}
	}

	const rows: ResultRow[] = [];
	const runOf = (label: string) => runs.find((run) => run.label === label);
	/** Accepted writes ÷ what the bucket allowed in the windows the run's writes spanned. */
	const bucketUse = (run: Run) =>
		run.result.writes / (run.result.writeWindows * options.writesPerWindow);
	const pauseRows = (workers: number, length: number): ResultRow[] => {
		const run = runOf(`pauseUntilWebhook ${workers}w ${length}s`);
		if (!run) return [];
		const pause = throughputOf(run);
		const earlier = perMinuteAfterOneJob(run.result, length);
		const writesPerMinute = (run.result.writes * 60_000) / run.result.writeSpanMs;
		const setup = `${workers} worker${workers > 1 ? 's' : ''} × ${options.workerConcurrency}, ${length} s jobs`;
		return [
			{
				benchmark: 'P5',
				metric: `Pause Until Webhook, ${setup}: executions ÷ (first write → last write)`,
				value: round(pause as number),
				unit: 'executions/min',
				baseline: { label: 'write-bucket ceiling', value: round(ceiling) },
				ratio: ratio(pause, ceiling),
				target: '≥ 0.9 × ceiling',
				meetsTarget: pause !== null && pause >= 0.9 * ceiling,
				note: `${note(run)}; the bucket used at ${Math.round(bucketUse(run) * 100)} % over the ${run.result.writeWindows} windows its writes spanned`,
			},
			{
				benchmark: 'P5',
				metric: `Pause Until Webhook, ${setup}: share of the write ceiling used`,
				value: round(writesPerMinute / writeCeiling, 3),
				unit: '× the ceiling (writes per minute ÷ ceiling)',
				baseline: { label: 'write ceiling, writes/min', value: round(writeCeiling) },
				note: `${run.result.writes} writes accepted over ${round(run.result.writeSpanMs / 1000)} s = ${round(writesPerMinute)} writes/min`,
			},
			{
				benchmark: 'P5',
				metric: `Pause Until Webhook, ${setup}: executions ÷ (first upload → last finished − one job length), the earlier formula`,
				value: round(earlier),
				unit: 'executions/min',
				baseline: { label: 'write-bucket ceiling', value: round(ceiling) },
				ratio: ratio(earlier, ceiling),
				note: 'overstates when the run lasts little more than one job length; kept for comparison with earlier runs',
			},
		];
	};
	for (const workers of [1, 2]) {
		const pollRun = runOf(`poll ${workers}w ${jobSeconds}s`);
		const poll = throughputOf(pollRun);
		if (pollRun)
			rows.push({
				benchmark: 'P5',
				metric: `Poll, ${workers} worker${workers > 1 ? 's' : ''} × ${options.workerConcurrency}, ${jobSeconds} s jobs: executions ÷ (first write → last write)`,
				value: poll === null ? null : round(poll),
				unit: 'executions/min',
				baseline: { label: `slots ÷ job length`, value: round(slotBound(workers)) },
				ratio: ratio(poll, slotBound(workers)),
				note: `${note(pollRun)}; ${round(perMinuteAfterOneJob(pollRun.result, jobSeconds))} /min by the earlier formula`,
			});
		const pause = pauseRows(workers, jobSeconds);
		rows.push(...pause);
		const pauseRate = throughputOf(runOf(`pauseUntilWebhook ${workers}w ${jobSeconds}s`));
		if (pollRun && pause.length > 0)
			rows.push({
				benchmark: 'P5',
				metric: `Pause ÷ Poll, ${workers} worker${workers > 1 ? 's' : ''}, ${jobSeconds} s jobs`,
				value: ratio(pauseRate, poll),
				unit: '×',
				target: '≥ 4 ×',
				meetsTarget: pauseRate !== null && poll !== null && pauseRate >= 4 * poll,
			});
	}
	for (const length of otherLengths) rows.push(...pauseRows(2, length));
	const failed = runs.reduce((sum, run) => sum + run.result.failedItems, 0);
	rows.push({
		benchmark: 'P5',
		metric: `failed items, all ${runs.length} runs`,
		value: failed,
		unit: 'items',
		target: '0',
		meetsTarget: failed === 0,
	});

	rows.push(...(await comparePacers(options)));
	return rows;
}

/** The same burst on two workers with each earlier build and with this checkout: 429s after the first window, failed items. */
async function comparePacers(options: QueueBenchOptions): Promise<ResultRow[]> {
	const builds = [...options.pacerBaselines, { label: 'this checkout', tarball: undefined }];
	const results: Array<{ label: string; result: ManyExecutionsResult }> = [];
	for (const build of builds) {
		const service = await startService(1, options.pacerWindowSeconds, options.pacerWritesPerWindow);
		try {
			await withCluster(
				options,
				2,
				service,
				[{ mode: 'poll', jobSeconds: 1 }],
				async (cluster) => {
					process.stderr.write(`[P5] pacer, ${build.label}\n`);
					const result = await measure(cluster, service, 'poll', 1, {
						executions: options.pacerExecutions,
						windowSeconds: options.pacerWindowSeconds,
					});
					results.push({ label: build.label, result });
				},
				build.tarball,
			);
		} finally {
			await service.close();
		}
	}
	const ours = results[results.length - 1].result;
	return results.map(({ label, result }) => ({
		benchmark: 'P5',
		metric: `429s after the first window, ${options.pacerExecutions} executions on 2 workers, ${options.pacerWritesPerWindow} writes per ${options.pacerWindowSeconds} s: ${label}`,
		value: result.rateLimitedAfterFirstWindow,
		unit: `× 429 (${result.failedItems} failed items)`,
		...(result === ours
			? {
					target: '0, 0 failed',
					meetsTarget: result.rateLimitedAfterFirstWindow === 0 && result.failedItems === 0,
				}
			: { baseline: { label: 'this checkout', value: ours.rateLimitedAfterFirstWindow } }),
		note: `${label}: ${result.rateLimited} × 429 in all (${JSON.stringify(result.rateLimitedByWindow)} by window; writes accepted by window ${JSON.stringify(result.writesByWindow)}), ${result.failedItems} failed ${JSON.stringify(result.failureCodes)}, ${result.writes} writes accepted`,
	}));
}
