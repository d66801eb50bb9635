// `npm run bench`: runs P1–P9, prints one table and writes it to bench/results/ (a dated file; latest.json keeps each
// benchmark's newest rows). Each benchmark reports its figure beside a baseline measured in the same run. `-- --only
// P3,P4` runs a subset; BENCH_QUICK=1 shrinks every size for a smoke run (its figures are not the ones to report). P5
// (queue mode, about 80 minutes: Poll mode on 60 s jobs is slow by nature) always measures this checkout's rate-limit
// pacer, and takes `-- --pacer-baseline <label>=<tarball>` (repeatable) to compare it with earlier builds of the pack; BENCH_P5_EXECUTIONS (Pause runs, default 200), BENCH_P5_POLL_EXECUTIONS
// (default 200), BENCH_P5_JOB_SECONDS (default "60,10": Poll and Pause at the first length, Pause alone at the others)
// and BENCH_P5_MODES (default "poll,pauseUntilWebhook") shorten it. P7 compares with a build of BENCH_P7_BASELINE
// (a git revision, default 05a2b4f) made in the same run, P8 with one of BENCH_P8_BASELINE (default 7abdae3).
// BENCH_P2_GIB (default 1) sets P2's file size, to show its figures do not grow with the file. P9 (transcribe from a
// URL) takes BENCH_P9_GIB (default 1) and BENCH_P9_ROUNDS (default 3); BENCH_P9_QUEUE=0 leaves out its queue-mode part
// (2 GiB in database mode on n8n 2.8, BENCH_P9_QUEUE_N8N another install); BENCH_N8N=2.41 measures in n8n 2.41's n8n-core.
import '../test/support/engine/setup-env';

import { parseArgs } from 'node:util';

import { runThroughputBenchmark } from './p1-throughput';
import { runMemoryBenchmark } from './p2-memory';
import { runTriggerBenchmark } from './p3-trigger';
import { runVerifyBenchmark } from './p3-verify';
import { runPollingBenchmark } from './p4-polling';
import { runQueueBenchmark, type Mode, type PacerBaseline } from './p5-queue';
import { runPollingTriggerBenchmark } from './p6-polling-trigger';
import { runPauseReadsBenchmark } from './p7-pause-reads';
import { runAnswerSizesBenchmark } from './p8-answer-sizes';
import { runMediaLinkBenchmark } from './p9-media-link';
import { isN8nVersionId, type N8nVersionId } from '../test/support/n8n/versions';
import {
	machineLoad,
	newReport,
	renderTable,
	writeReport,
	type BenchReport,
} from '../test/support/bench-results';
import { runMain } from './lib/run-main';

const quick = process.env.BENCH_QUICK === '1';

const settings = {
	quick,
	seed: 20261122,
	p1: quick
		? { items: 12, concurrency: 10, windowSeconds: 5, writesPerWindow: 12, jobSeconds: 1 }
		: { items: 100, concurrency: 10, windowSeconds: 5, writesPerWindow: 15, jobSeconds: 2 },
	p2: {
		fileBytes: quick
			? 64 * 1024 * 1024
			: Number(process.env.BENCH_P2_GIB ?? 1) * 1024 * 1024 * 1024,
	},
	p3: quick
		? { events: 100, ratePerSecond: 20, verifyRounds: 2 }
		: { events: 1000, ratePerSecond: 20, verifyRounds: 7 },
	p4: {
		jobSeconds: [10, 60, 600],
		jobsPerLength: 3,
		wallSecondsPerJob: quick ? 5 : 60,
		pauseWaitMinutes: quick ? [1, 10] : [1, 10, 60],
		pauseClockFactor: 20,
	},
	p5: {
		versionId: '2.8' as const,
		executions: Number(process.env.BENCH_P5_EXECUTIONS ?? (quick ? 20 : 200)),
		jobSeconds: (process.env.BENCH_P5_JOB_SECONDS ?? (quick ? '10' : '60,10'))
			.split(',')
			.map(Number),
		windowSeconds: 10,
		writesPerWindow: 30,
		workerConcurrency: 5,
		pacerWindowSeconds: 5,
		pacerWritesPerWindow: 15,
		pacerExecutions: quick ? 20 : 200,
		pollExecutions: Number(process.env.BENCH_P5_POLL_EXECUTIONS ?? (quick ? 20 : 200)),
		modes: (process.env.BENCH_P5_MODES ?? 'poll,pauseUntilWebhook').split(',') as Mode[],
	},
	p6: quick
		? {
				accountSizes: [10, 1000],
				gapMinutes: 10,
				gapJobs: 5,
				burst: 1000,
				sustainedMinutes: 120,
				pollMinutes: [1, 60],
			}
		: {
				accountSizes: [10, 1000, 10_000],
				gapMinutes: 30,
				gapJobs: 20,
				burst: 10_000,
				sustainedMinutes: 240,
				pollMinutes: [1, 15, 60],
			},
	p7: {
		batchSizes: quick ? [1, 10] : [1, 10, 100],
		jobSeconds: 4,
		concurrency: 10,
		baselineRevision: process.env.BENCH_P7_BASELINE ?? '05a2b4f',
	},
	p9: {
		fileBytes: (quick ? 1 / 16 : Number(process.env.BENCH_P9_GIB ?? 1)) * 1024 * 1024 * 1024,
		rounds: Number(process.env.BENCH_P9_ROUNDS ?? (quick ? 1 : 3)),
		queue:
			process.env.BENCH_P9_QUEUE === '0'
				? null
				: {
						versionId: queueVersion(process.env.BENCH_P9_QUEUE_N8N ?? '2.8'),
						linkBytes: (quick ? 0.25 : 2) * 1024 * 1024 * 1024,
						noLengthBytes: 600 * 1024 * 1024,
						baselineBytes: (quick ? 0.6 : 1) * 1024 * 1024 * 1024,
					},
	},
	p8: {
		baselineRevision: process.env.BENCH_P8_BASELINE ?? '7abdae3',
		hostileBytes: (quick ? 128 : 256) * 1024 * 1024,
		legitBytes: 40 * 1024 * 1024,
	},
};

function queueVersion(versionId: string): N8nVersionId {
	if (!isN8nVersionId(versionId))
		throw new Error(`BENCH_P9_QUEUE_N8N names no n8n install: "${versionId}"`);
	return versionId;
}

async function main(): Promise<void> {
	const { values } = parseArgs({
		options: {
			only: { type: 'string' },
			'pacer-baseline': { type: 'string', multiple: true },
		},
	});
	const selected = new Set((values.only ?? 'P1,P2,P3,P4,P5,P6,P7,P8,P9').toUpperCase().split(','));
	const pacerBaselines: PacerBaseline[] = (values['pacer-baseline'] ?? []).map((entry) => {
		const [label, tarball] = entry.split('=');
		if (!label || !tarball)
			throw new Error(`--pacer-baseline takes <label>=<tarball>, not "${entry}"`);
		return { label, tarball };
	});
	const report = newReport(settings);

	// Cheapest first, so a smoke run fails fast on the parts that need the most setup.
	if (selected.has('P3'))
		report.rows.push(...runVerifyBenchmark({ rounds: settings.p3.verifyRounds }));
	if (selected.has('P4'))
		await collect(report, 'P4', () => runPollingBenchmark({ ...settings.p4, seed: settings.seed }));
	if (selected.has('P6'))
		await collect(report, 'P6', () =>
			runPollingTriggerBenchmark({ ...settings.p6, seed: settings.seed }),
		);
	if (selected.has('P7'))
		await collect(report, 'P7', () =>
			runPauseReadsBenchmark({ ...settings.p7, seed: settings.seed }),
		);
	if (selected.has('P8')) await collect(report, 'P8', () => runAnswerSizesBenchmark(settings.p8));
	if (selected.has('P1'))
		await collect(report, 'P1', () =>
			runThroughputBenchmark({ ...settings.p1, seed: settings.seed }),
		);
	if (selected.has('P2')) await collect(report, 'P2', () => runMemoryBenchmark(settings.p2));
	if (selected.has('P9')) await collect(report, 'P9', () => runMediaLinkBenchmark(settings.p9));
	if (selected.has('P3')) await collect(report, 'P3', () => runTriggerBenchmark(settings.p3));
	if (selected.has('P5'))
		await collect(report, 'P5', () => runQueueBenchmark({ ...settings.p5, pacerBaselines }));

	report.machine.loadAfter = machineLoad();
	process.stdout.write(`\n${renderTable(report)}\n\n`);
	const paths = await writeReport(report);
	process.stdout.write(`Written to ${paths.join(' and ')}\n`);
}

/**
 * A benchmark that cannot run here (e.g. no n8n install) or that breaks is listed with its reason, so the others'
 * figures are still printed and written.
 */
async function collect(
	report: BenchReport,
	benchmark: string,
	run: () => Promise<BenchReport['rows'] | { skipped: string }>,
): Promise<void> {
	try {
		const result = await run();
		if ('skipped' in result) report.skipped.push({ benchmark, reason: result.skipped });
		else report.rows.push(...result);
	} catch (error) {
		process.stderr.write(
			`${benchmark} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
		);
		report.skipped.push({
			benchmark,
			reason: `failed: ${error instanceof Error ? error.message : String(error)}`,
		});
	}
}

runMain(main);
