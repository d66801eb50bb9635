// One results table for the whole `npm run bench` and for R5's totals: printed to stdout and written as JSON under
// bench/results/. Every figure sits beside the baseline it was measured against in the same run. It lives here, not in
// bench/, because the reliability tier writes through it too, and tests import nothing from bench/.

import { execFileSync } from 'node:child_process';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';

export interface ResultRow {
	/** P1…P7, or a fault matrix (R5) */
	benchmark: string;
	metric: string;
	value: number | null;
	unit: string;
	/** What the value is compared with, measured in the same run (absent when the row is itself a baseline). */
	baseline?: { label: string; value: number | null };
	/** value ÷ baseline value. */
	ratio?: number | null;
	target?: string;
	/** Whether the target is met; absent when the row has no target. */
	meetsTarget?: boolean;
	/** The counts behind a matrix row (R5: jobs, faults injected, lost, duplicated, stalled). */
	counts?: Record<string, number>;
	note?: string;
}

export interface BenchReport {
	generatedAt: string;
	commit: string | null;
	machine: {
		cpus: number;
		cpuModel: string;
		node: string;
		loadBefore: number[];
		loadAfter: number[];
	};
	settings: Record<string, unknown>;
	rows: ResultRow[];
	skipped: Array<{ benchmark: string; reason: string }>;
}

export const RESULTS_DIR = path.resolve(__dirname, '../../bench/results');

export function machineLoad(): number[] {
	return loadavg().map((load) => Math.round(load * 100) / 100);
}

export function currentCommit(): string | null {
	try {
		return execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'ignore'],
		}).trim();
	} catch {
		return null;
	}
}

export function newReport(settings: Record<string, unknown>): BenchReport {
	return {
		generatedAt: new Date().toISOString(),
		commit: currentCommit(),
		machine: {
			cpus: cpus().length,
			cpuModel: cpus()[0]?.model ?? 'unknown',
			node: process.version,
			loadBefore: machineLoad(),
			loadAfter: [],
		},
		settings,
		rows: [],
		skipped: [],
	};
}

/** value ÷ baseline to three significant digits (a ratio of 0.001 must not print as 0). */
export function ratio(value: number | null, baseline: number | null): number | null {
	if (value === null || baseline === null || baseline === 0) return null;
	return Number((value / baseline).toPrecision(3));
}

export function round(value: number, digits = 1): number {
	const scale = 10 ** digits;
	return Math.round(value * scale) / scale;
}

function formatNumber(value: number | null | undefined): string {
	if (value === null || value === undefined) return '–';
	if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString('en-US');
	return String(value);
}

/** A Markdown table, so the same text pastes into docs/benchmarks.md. */
export function renderTable(report: BenchReport): string {
	const header = ['', 'metric', 'value', 'baseline (same run)', 'ratio', 'target', 'met'];
	const lines = report.rows.map((row) => [
		row.benchmark,
		row.metric,
		`${formatNumber(row.value)} ${row.unit}`.trim(),
		row.baseline ? `${formatNumber(row.baseline.value)} (${row.baseline.label})` : '',
		row.ratio === undefined ? '' : `${formatNumber(row.ratio)}×`,
		row.target ?? '',
		row.meetsTarget === undefined ? '' : row.meetsTarget ? 'yes' : 'NO',
	]);
	const widths = header.map((title, column) =>
		Math.max(title.length, ...lines.map((line) => line[column].length)),
	);
	const render = (cells: string[]) =>
		`| ${cells.map((cell, column) => cell.padEnd(widths[column])).join(' | ')} |`;
	const table = [
		render(header),
		render(widths.map((width) => '-'.repeat(width))),
		...lines.map(render),
	];
	const notes = report.rows
		.filter((row) => row.note)
		.map((row) => `- ${row.benchmark} ${row.metric}: ${row.note}`);
	const skipped = report.skipped.map((entry) => `- ${entry.benchmark} not run: ${entry.reason}`);
	const context = `Load average ${report.machine.loadBefore.join(' / ')} before, ${report.machine.loadAfter.join(' / ')} after; ${report.machine.cpus} × ${report.machine.cpuModel}, Node ${report.machine.node}, commit ${report.commit ?? 'unknown'}.`;
	return [...table, '', context, ...notes, ...skipped].join('\n');
}

/**
 * Writes bench/results/<timestamp>.json, then rebuilds bench/results/latest.json from every dated result; returns the
 * two paths.
 */
export async function writeReport(report: BenchReport): Promise<string[]> {
	await mkdir(RESULTS_DIR, { recursive: true });
	const stamped = path.join(RESULTS_DIR, `${report.generatedAt.replace(/[:.]/g, '-')}.json`);
	const latest = path.join(RESULTS_DIR, 'latest.json');
	await writeFile(stamped, `${JSON.stringify(report, null, '\t')}\n`);
	await writeFile(latest, `${JSON.stringify(await latestOfEach(), null, '\t')}\n`);
	return [stamped, latest];
}

export interface LatestRow extends ResultRow {
	/** The dated result the row comes from (its commit, machine, load and settings). */
	from: { file: string; generatedAt: string; commit: string | null };
}

/**
 * For each benchmark (P1…P7, R5), the rows of the newest dated result that has it: a run of one benchmark
 * (`--only P5`) replaces that benchmark's rows and leaves the others'.
 */
async function latestOfEach(): Promise<{ generatedAt: string; rows: LatestRow[] }> {
	const files = (await readdir(RESULTS_DIR))
		.filter((name) => /^\d{4}-.*\.json$/.test(name))
		.sort()
		.reverse();
	const rows: LatestRow[] = [];
	const seen = new Set<string>();
	for (const file of files) {
		const report = JSON.parse(await readFile(path.join(RESULTS_DIR, file), 'utf8')) as BenchReport;
		const benchmarks = new Set(report.rows.map((row) => row.benchmark));
		for (const benchmark of [...benchmarks].filter((name) => !seen.has(name))) {
			const from = { file, generatedAt: report.generatedAt, commit: report.commit };
			rows.push(
				...report.rows
					.filter((row) => row.benchmark === benchmark)
					.map((row) => ({ ...row, from })),
			);
			seen.add(benchmark);
		}
	}
	rows.sort((a, b) => a.benchmark.localeCompare(b.benchmark));
	return { generatedAt: new Date().toISOString(), rows };
}
