// Compares the tests of two jest runs by name, for a move of tests between files: run the files involved before and
// after with `--json --outputFile=…`, then
//
//   npx tsx scripts/test-names.ts before.json after.json
//
// It lists every test (its describe path and title) that changed files, and every one lost or gained; it exits 0 only
// when the two runs hold the same names, as often each (a pure move), and every test passed in both.
import { readFileSync } from 'node:fs';
import path from 'node:path';

interface JestJson {
	testResults: Array<{
		name: string;
		assertionResults: Array<{ ancestorTitles: string[]; title: string; status: string }>;
	}>;
}

interface Names {
	count: Map<string, number>;
	files: Map<string, Set<string>>;
	failed: string[];
}

function namesOf(file: string): Names {
	const run = JSON.parse(readFileSync(file, 'utf8')) as JestJson;
	const names: Names = { count: new Map(), files: new Map(), failed: [] };
	for (const result of run.testResults) {
		const testFile = path.relative(process.cwd(), result.name);
		for (const test of result.assertionResults) {
			const name = [...test.ancestorTitles, test.title].join(' › ');
			names.count.set(name, (names.count.get(name) ?? 0) + 1);
			names.files.set(name, (names.files.get(name) ?? new Set()).add(testFile));
			if (test.status !== 'passed') names.failed.push(`${testFile}: ${name} (${test.status})`);
		}
	}
	return names;
}

const [beforeFile, afterFile] = process.argv.slice(2);
if (!beforeFile || !afterFile) {
	process.stderr.write('usage: npx tsx scripts/test-names.ts before.json after.json\n');
	process.exit(2);
}
const before = namesOf(beforeFile);
const after = namesOf(afterFile);
const total = (names: Names) => [...names.count.values()].reduce((sum, count) => sum + count, 0);
const differ = (from: Names, to: Names) =>
	[...from.count].flatMap(([name, count]) =>
		Array<string>(Math.max(0, count - (to.count.get(name) ?? 0))).fill(name),
	);
const lost = differ(before, after);
const gained = differ(after, before);
const moved = [...before.files].filter(([name, files]) => {
	const now = after.files.get(name);
	return now !== undefined && [...files].sort().join() !== [...now].sort().join();
});

const lines = [`before: ${total(before)} tests; after: ${total(after)}`];
lines.push(`moved to another file: ${moved.length}`);
for (const [name, files] of moved) {
	lines.push(
		`  ${[...files].join(', ')} → ${[...(after.files.get(name) ?? [])].join(', ')}: ${name}`,
	);
}
lines.push(`lost: ${lost.length}`, ...lost.map((name) => `  - ${name}`));
lines.push(`gained: ${gained.length}`, ...gained.map((name) => `  + ${name}`));
const failed = [...before.failed, ...after.failed];
lines.push(`not passed: ${failed.length}`, ...failed.map((test) => `  ! ${test}`));
const same = lost.length === 0 && gained.length === 0 && failed.length === 0;
lines.push(same ? 'the same tests, all passed' : 'the tests differ');
process.stdout.write(`${lines.join('\n')}\n`);
process.exit(same ? 0 : 1);
