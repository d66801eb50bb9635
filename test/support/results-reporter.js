// A jest reporter that writes what one run proved, per test, to a JSON file: the e2e suite (one per n8n version)
// and the engine tier (project or latest n8n-core). scripts/version-table.ts renders the README's version table
// from these files, and scripts/engine/check-known-failures.mjs reads the latest engine run's.
//   reporters: ['default', ['<rootDir>/test/support/results-reporter.js', { kind: 'e2e' | 'engine', id, output, only? }]]
// `only` keeps the tests whose file path contains it (the engine tier's files inside `npm test`). The file is
// removed when a run (with `only`: one of its files) starts, so a run that dies in its setup leaves no stale results.
const { execFileSync } = require('node:child_process');
const { mkdirSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const path = require('node:path');

/** What the run was about, read when it ends (the e2e global setup writes its context file by then). */
function describeTarget({ kind, id, contextFile, modules }) {
	if (kind === 'e2e') {
		const context = JSON.parse(readFileSync(contextFile, 'utf8'));
		return { n8n: context.n8nVersion, node: context.nodeVersion };
	}
	const version = (name) =>
		JSON.parse(readFileSync(path.join(modules, name, 'package.json'), 'utf8')).version;
	return {
		modules: { 'n8n-core': version('n8n-core'), 'n8n-workflow': version('n8n-workflow') },
		node: process.version,
	};
}

function commitOf(root) {
	try {
		return execFileSync('git', ['describe', '--always', '--dirty'], {
			cwd: root,
			encoding: 'utf8',
		}).trim();
	} catch {
		return 'unknown';
	}
}

class ResultsReporter {
	constructor(globalConfig, options) {
		this.root = globalConfig.rootDir;
		this.options = options;
	}

	onRunStart() {
		if (!this.options.only) rmSync(this.options.output, { force: true });
	}

	/** With `only`, the old results go when the first of its files starts (a run without them keeps them). */
	onTestFileStart(test) {
		if (this.options.only && test.path.includes(this.options.only))
			rmSync(this.options.output, { force: true });
	}

	onRunComplete(_contexts, results) {
		const only = this.options.only;
		const files = results.testResults.filter((file) => !only || file.testFilePath.includes(only));
		if (files.length === 0) return;
		let target;
		try {
			target = describeTarget(this.options);
		} catch (error) {
			// The e2e global setup failed before writing its context: nothing was proven.
			process.stderr.write(`[results] not written: ${error.message}\n`);
			return;
		}
		const tests = files.flatMap((file) => {
			const relative = path.relative(this.root, file.testFilePath);
			if (file.testExecError || (file.failureMessage && file.testResults.length === 0))
				return [{ file: relative, name: '(file)', status: 'failed', failure: file.failureMessage }];
			return file.testResults.map((test) => ({
				file: relative,
				name: [...test.ancestorTitles, test.title].join(' › '),
				status: test.status,
				...(test.status === 'failed'
					? { failure: test.failureMessages.join('\n').slice(0, 2000) }
					: {}),
			}));
		});
		mkdirSync(path.dirname(this.options.output), { recursive: true });
		writeFileSync(
			this.options.output,
			`${JSON.stringify(
				{
					kind: this.options.kind,
					id: this.options.id,
					...target,
					commit: commitOf(this.root),
					finishedAt: new Date().toISOString(),
					tests,
				},
				null,
				2,
			)}\n`,
		);
	}
}

module.exports = ResultsReporter;
