// `npm run versions:table [-- --write]`: the "n8n version × what was proven" table of docs/compatibility.md, rendered from the
// results the test runs wrote (test/support/results-reporter.js): test/e2e/.work/results/<version>.json per n8n version
// (`npm run test:e2e`) and test/engine/.work/results/{project,latest}.json (`npm test`, `npm run test:engine:latest`).
// Prints the table; with --write it replaces the block between the page's version-table markers. An n8n (or n8n-core) without
// results here keeps the row the page holds (its last run's, stamped with that run's commit and date).
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const E2E_RESULTS = path.join(ROOT, 'test/e2e/.work/results');
const ENGINE_RESULTS = path.join(ROOT, 'test/engine/.work/results');
const KNOWN_FAILURES = path.join(ROOT, 'test/engine/n8n-core-latest/known-failures.json');
const PAGE = path.join(ROOT, 'docs/compatibility.md');
const START = '<!-- version-table:start (npm run versions:table -- --write) -->';
const END = '<!-- version-table:end -->';

interface TestResult {
	file: string;
	name: string;
	status: 'passed' | 'failed' | 'pending' | 'skipped' | 'todo';
}

interface RunResults {
	kind: 'e2e' | 'engine';
	id: string;
	n8n?: string;
	modules?: Record<string, string>;
	node: string;
	commit: string;
	finishedAt: string;
	tests: TestResult[];
}

/** The e2e suite's files, as the table's columns, and what each proves. */
const E2E_COLUMNS: Array<{ file: string; title: string; proves: string }> = [
	{
		file: 'transcribe-and-download.test.ts',
		title: 'Transcribe and Download',
		proves:
			"three files in, each with its transcript and all four artifacts (SRT, TXT, PDF, DOCX) byte-identical to the service's; the form example answers with the transcript",
	},
	{
		file: 'pause-until-webhook-in-n8n.test.ts',
		title: 'Pause Until Webhook',
		proves:
			"three ~30 s jobs: the execution is saved as waiting while they run (at most 4 status reads: the watcher's two checks and one per event but the last), it resumes on the last signed event at the resume URL exactly as n8n gives it (signed, `?signature=…`, on 2.41) and outputs Poll mode's bytes; a forged resume request gets 401; n8n stopped and started while it waits is resumed by the service's repeated delivery; a failed job fails only its item",
	},
	{
		file: 'trigger.test.ts',
		title: 'Trigger',
		proves:
			"the sandbox's real signed webhook for a live job starts the workflow with the PDF downloaded; a forged signature gets 401 and starts nothing; the scheduled-batch and save-to-disk examples work together",
	},
	{
		file: 'polling-trigger-in-n8n.test.ts',
		title: 'Polling Trigger',
		proves:
			"with 150 jobs of history and the shortest poll n8n accepts (5 seconds; every minute on 2.41, which refuses less), every job that finishes after activation (completed and failed, one after 100 newer jobs, two while n8n is stopped) starts exactly one execution, and none of the history does; the polling example saves the completed job's DOCX byte-identical to the service's and sets the failed one aside",
	},
	{
		file: 'operations.test.ts',
		title: 'Other operations',
		proves:
			'Account Get, Send Test Event, Create Slot, Send Media, Create, Get, Download Artifact and Get Many in one workflow',
	},
	{
		file: 'ai-tool.test.ts',
		title: 'AI tool',
		proves:
			'n8n lists the action node, its `…Tool` variant and both triggers under the package name',
	},
	{
		file: 'editor-screenshots.test.ts',
		title: 'Editor',
		proves:
			"the editor's nodes panel finds the node; the Job field's list comes through n8n's editor endpoint (every page, labels, search, a revoked key's 401), a job picked in the editor is saved and runs (From List, By URL, By ID); the nodes, the Wait Mode choice and a finished run's four files are photographed",
	},
];

function readResults(folder: string): RunResults[] {
	if (!existsSync(folder)) return [];
	return readdirSync(folder)
		.filter((name) => name.endsWith('.json'))
		.map((name) => JSON.parse(readFileSync(path.join(folder, name), 'utf8')) as RunResults);
}

function compareVersions(a: string, b: string): number {
	const pa = a.split('.').map(Number);
	const pb = b.split('.').map(Number);
	for (let index = 0; index < Math.max(pa.length, pb.length); index++) {
		const difference = (pa[index] ?? 0) - (pb[index] ?? 0);
		if (difference !== 0) return difference;
	}
	return 0;
}

function cell(tests: TestResult[]): string {
	if (tests.length === 0) return 'not run';
	const passed = tests.filter((test) => test.status === 'passed').length;
	const failed = tests.filter((test) => test.status === 'failed').length;
	if (failed > 0) return `❌ ${failed} of ${tests.length} failed`;
	if (passed === 0) return 'skipped';
	return `✅ ${passed}/${tests.length}`;
}

function runStamp(run: RunResults): string {
	return `${run.commit}, ${run.finishedAt.slice(0, 10)}`;
}

/**
 * The rows the page holds now: the e2e rows by n8n version, the engine rows by the n8n-core they ran on. A run this
 * machine did not make (CI runs the e2e suite on 1.123 and 2.41; 2.8 and 2.15 are run by hand) keeps the row of its
 * last run, stamped with that run's commit and date.
 */
function publishedRows(page: string): {
	e2e: Map<string, string[]>;
	engine: Map<string, string[]>;
} {
	const e2e = new Map<string, string[]>();
	const engine = new Map<string, string[]>();
	for (const line of page.split('\n')) {
		const cells = line.startsWith('| ') ? line.slice(2, -2).split(' | ') : [];
		const version = /^\*\*(\d+\.\d+\.\d+)\*\*$/.exec(cells[0] ?? '');
		const core = /^n8n-core (\d+\.\d+\.\d+)/.exec(cells[0] ?? '');
		if (version) e2e.set(version[1], cells);
		if (core) engine.set(core[1], cells);
	}
	return { e2e, engine };
}

function e2eTable(runs: RunResults[], earlier: Map<string, string[]>): string[] {
	const header = ['n8n', 'Node', ...E2E_COLUMNS.map((column) => column.title), 'run'];
	const fresh = runs.filter((run) => run.kind === 'e2e' && run.n8n);
	const kept = [...earlier]
		.filter(([version]) => !fresh.some((run) => run.n8n === version))
		.map(([version, row]) => ({ version, row }));
	const rows = fresh
		.map((run) => ({
			version: run.n8n!,
			row: [
				`**${run.n8n}**`,
				run.node.replace(/^v/, ''),
				...E2E_COLUMNS.map((column) =>
					cell(run.tests.filter((test) => path.basename(test.file) === column.file)),
				),
				runStamp(run),
			],
		}))
		.concat(kept)
		.sort((a, b) => compareVersions(a.version, b.version))
		.map(({ row }) => row);
	const legend = E2E_COLUMNS.map((column) => `- **${column.title}**: ${column.proves}.`);
	return [...markdownTable(header, rows), '', ...legend];
}

function engineTable(runs: RunResults[], earlier: Map<string, string[]>): string[] {
	const known = existsSync(KNOWN_FAILURES)
		? (JSON.parse(readFileSync(KNOWN_FAILURES, 'utf8')) as {
				reasons: Record<string, { summary: string }>;
				tests: Array<{ test: string; reason: string }>;
			})
		: { reasons: {}, tests: [] };
	const header = ['engine tier (`test/engine`) on', 'Node', 'tests', 'run'];
	const fresh = runs.filter((run) => run.kind === 'engine' && run.modules);
	const kept = [...earlier]
		.filter(([core]) => !fresh.some((run) => run.modules!['n8n-core'] === core))
		.map(([core, row]) => ({ core, row }));
	const rows = fresh
		.map((run) => {
			const modules = Object.entries(run.modules!)
				.map(([name, version]) => `${name} ${version}`)
				.join(', ');
			const failed = run.tests.filter((test) => test.status === 'failed');
			const passed = run.tests.filter((test) => test.status === 'passed').length;
			let outcome = `✅ ${passed}/${run.tests.length}`;
			if (failed.length > 0) {
				const reasons = new Set(
					failed.map((test) => {
						const entry = known.tests.find(
							(candidate) => candidate.test === `${path.basename(test.file)} › ${test.name}`,
						);
						return entry ? entry.reason : 'not a known failure';
					}),
				);
				outcome = `❌ ${failed.length} of ${run.tests.length} failed (${[...reasons].join(', ')})`;
			}
			return {
				core: run.modules!['n8n-core'],
				row: [
					`${modules}${run.id === 'latest' ? ' (the newest n8n-core the npm registry serves)' : " (the project's own)"}`,
					run.node.replace(/^v/, ''),
					outcome,
					runStamp(run),
				],
			};
		})
		.concat(kept)
		.sort((a, b) => compareVersions(a.core, b.core))
		.map(({ row }) => row);
	const reasons = Object.entries(known.reasons).map(
		([id, reason]) => `- \`${id}\`: ${reason.summary}.`,
	);
	const anyKnown = rows.some((row) => Object.keys(known.reasons).some((id) => row[2].includes(id)));
	return [...markdownTable(header, rows), ...(anyKnown ? ['', ...reasons] : [])];
}

function markdownTable(header: string[], rows: string[][]): string[] {
	if (rows.length === 0) return ['(no results yet: run the suites first)'];
	return [
		`| ${header.join(' | ')} |`,
		`|${header.map(() => '---').join('|')}|`,
		...rows.map((row) => `| ${row.join(' | ')} |`),
	];
}

const published = publishedRows(readFileSync(PAGE, 'utf8'));
const table = [
	...e2eTable(readResults(E2E_RESULTS), published.e2e),
	'',
	...engineTable(readResults(ENGINE_RESULTS), published.engine),
].join('\n');

if (process.argv.includes('--write')) {
	const page = readFileSync(PAGE, 'utf8');
	const start = page.indexOf(START);
	const end = page.indexOf(END);
	const name = path.relative(ROOT, PAGE);
	if (start < 0 || end < start) throw new Error(`${name} has no ${START} … ${END} block`);
	writeFileSync(PAGE, `${page.slice(0, start + START.length)}\n${table}\n${page.slice(end)}`);
	process.stdout.write(`${name}: version table updated\n`);
} else {
	process.stdout.write(`${table}\n`);
}
