// `npm run bench`: runs P1–P4 and P6, prints one table and writes it to bench/results/. Each benchmark reports its
// figure beside a baseline measured in the same run. `-- --only P3,P4` runs a subset; BENCH_QUICK=1 shrinks every
// size for a smoke run (its figures are not the ones to report).
import '../test/setup-env';

import { parseArgs } from 'node:util';

import { runThroughputBenchmark } from './p1-throughput';
import { runMemoryBenchmark } from './p2-memory';
import { runTriggerBenchmark } from './p3-trigger';
import { runVerifyBenchmark } from './p3-verify';
import { runPollingBenchmark } from './p4-polling';
import { runPollingTriggerBenchmark } from './p6-polling-trigger';
import { machineLoad, newReport, renderTable, writeReport, type BenchReport } from './lib/report';

const quick = process.env.BENCH_QUICK === '1';

const settings = {
	quick,
	seed: 20261122,
	p1: quick
		? { items: 12, concurrency: 10, windowSeconds: 5, writesPerWindow: 12, jobSeconds: 1 }
		: { items: 100, concurrency: 10, windowSeconds: 5, writesPerWindow: 15, jobSeconds: 2 },
	p2: { fileBytes: quick ? 64 * 1024 * 1024 : 1024 * 1024 * 1024 },
	p3: quick
		? { events: 100, ratePerSecond: 20, verifyRounds: 2 }
		: { events: 1000, ratePerSecond: 20, verifyRounds: 7 },
	p4: {
		jobSeconds: [10, 60, 600],
		jobsPerLength: 3,
		wallSecondsPerJob: quick ? 5 : 60,
		pauseMaxJobSeconds: quick ? 10 : 600,
	},
	p6: quick
		? { accountSizes: [10, 1000], gapPolls: 10, gapJobs: 5 }
		: { accountSizes: [10, 1000, 10_000], gapPolls: 30, gapJobs: 20 },
};

async function main(): Promise<void> {
	const { values } = parseArgs({ options: { only: { type: 'string' } } });
	const selected = new Set((values.only ?? 'P1,P2,P3,P4,P6').toUpperCase().split(','));
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
	if (selected.has('P1'))
		await collect(report, 'P1', () =>
			runThroughputBenchmark({ ...settings.p1, seed: settings.seed }),
		);
	if (selected.has('P2')) await collect(report, 'P2', () => runMemoryBenchmark(settings.p2));
	if (selected.has('P3')) await collect(report, 'P3', () => runTriggerBenchmark(settings.p3));

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

main().then(
	() => process.exit(0),
	(error: unknown) => {
		process.stderr.write(
			`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
		);
		process.exit(1);
	},
);
