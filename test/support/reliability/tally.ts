// R5's totals: per fault class, the jobs that reached a terminal state at the service, the faults injected (counted
// from the records of the proxy, the router and the sandbox, never from the code under test) and what became of the
// jobs — lost, duplicated or stalled. Printed as one table and written to bench/results/ as the benchmarks are
// (test/support/bench-results.ts: a dated file and latest.json), one row per fault class and one per feature.
import {
	newReport,
	machineLoad,
	writeReport,
	type BenchReport,
	type ResultRow,
} from '../bench-results';

export type Feature = 'Pause Until Webhook' | 'Polling Trigger' | 'Media from a link';

export interface ClassTally {
	feature: Feature;
	faultClass: string;
	/** Jobs that reached a terminal state at the service (its own records). */
	jobs: number;
	/** Faults injected, counted from the records of what answered in the service's or n8n's place. */
	faults: number;
	/** Terminal jobs never output (or output other than as the service has them: wrong bytes, a wrong error). */
	lost: number;
	/** Outputs beyond the first of a job. */
	duplicated: number;
	/** Jobs still waited for when the run's bound was reached (Pause: ended by Max Wait instead of their result). */
	stalled: number;
	/** What the fault count is made of, and the job ids behind any loss. */
	detail: string;
}

export interface MatrixSettings {
	scale: number;
	[setting: string]: unknown;
}

export class Tally {
	readonly classes: ClassTally[] = [];

	/** `benchmark` names the rows in bench/results/ (latest.json keeps each benchmark's newest run). */
	constructor(private readonly benchmark = 'R5') {}

	add(tally: ClassTally): ClassTally {
		this.classes.push(tally);
		return tally;
	}

	/** One row per feature and one for both, summed over their classes. */
	totals(): ClassTally[] {
		const sum = (rows: ClassTally[], feature: ClassTally['feature'] | 'all') => ({
			feature: feature as Feature,
			faultClass: feature === 'all' ? 'all fault classes, both features' : 'all fault classes',
			jobs: rows.reduce((total, row) => total + row.jobs, 0),
			faults: rows.reduce((total, row) => total + row.faults, 0),
			lost: rows.reduce((total, row) => total + row.lost, 0),
			duplicated: rows.reduce((total, row) => total + row.duplicated, 0),
			stalled: rows.reduce((total, row) => total + row.stalled, 0),
			detail: `${rows.length} fault classes`,
		});
		const features = [...new Set(this.classes.map((row) => row.feature))];
		const perFeature = features.map((feature) =>
			sum(
				this.classes.filter((row) => row.feature === feature),
				feature,
			),
		);
		return features.length > 1 ? [...perFeature, sum(this.classes, 'all')] : perFeature;
	}

	/** A Markdown table of every class and the totals, as docs/reliability.md shows it. */
	render(): string {
		const header = [
			'feature',
			'fault class',
			'jobs',
			'faults injected',
			'lost',
			'duplicated',
			'stalled',
		];
		const line = (row: ClassTally) => [
			row.feature,
			row.faultClass,
			String(row.jobs),
			String(row.faults),
			String(row.lost),
			String(row.duplicated),
			String(row.stalled),
		];
		const lines = [...this.classes, ...this.totals()].map(line);
		const widths = header.map((title, column) =>
			Math.max(title.length, ...lines.map((cells) => cells[column].length)),
		);
		const render = (cells: string[]) =>
			`| ${cells.map((cell, column) => cell.padEnd(widths[column])).join(' | ')} |`;
		return [
			render(header),
			render(widths.map((width) => '-'.repeat(width))),
			...lines.map(render),
		].join('\n');
	}

	/** The rows as bench-results.ts writes them: target 0 lost + duplicated + stalled, the counts beside. */
	async write(settings: MatrixSettings): Promise<string[]> {
		const report: BenchReport = newReport({ r5: settings });
		report.rows.push(
			...[...this.classes, ...this.totals()].map((row) => resultRow(row, this.benchmark)),
		);
		report.machine.loadAfter = machineLoad();
		return await writeReport(report);
	}
}

function resultRow(row: ClassTally, benchmark: string): ResultRow {
	const failures = row.lost + row.duplicated + row.stalled;
	return {
		benchmark,
		metric: `${row.feature}: ${row.faultClass}`,
		value: failures,
		unit: 'jobs lost + duplicated + stalled',
		target: '0',
		meetsTarget: failures === 0,
		counts: {
			jobs: row.jobs,
			faultsInjected: row.faults,
			lost: row.lost,
			duplicated: row.duplicated,
			stalled: row.stalled,
		},
		note: `${row.jobs} jobs, ${row.faults} faults injected: ${row.detail}`,
	};
}
