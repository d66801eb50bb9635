// Compares the latest engine run (test/engine/.work/results/latest.json, written by test/support/results-reporter.js) with
// test/engine/n8n-core-latest/known-failures.json: passes only when the tests that failed are exactly the listed ones
// that ran, each with its reason's text in the failure. Prints what it found either way.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const resultsFile = path.join(root, 'test/engine/.work/results/latest.json');
const knownFile = path.join(root, 'test/engine/n8n-core-latest/known-failures.json');

if (!existsSync(resultsFile)) {
	console.error(`[engine:latest] no results in ${resultsFile}: the run did not complete`);
	process.exit(1);
}
const results = JSON.parse(readFileSync(resultsFile, 'utf8'));
const known = JSON.parse(readFileSync(knownFile, 'utf8'));
const key = (test) => `${path.basename(test.file)} › ${test.name}`;
const ran = new Map(results.tests.map((test) => [key(test), test]));
const expected = new Map(known.tests.map((entry) => [entry.test, entry]));

const problems = [];
for (const [name, test] of ran) {
	if (test.status !== 'failed') continue;
	const entry = expected.get(name);
	const reason = entry && known.reasons[entry.reason];
	if (!reason) problems.push(`fails, not a known failure: ${name}\n    ${firstLine(test.failure)}`);
	else if (!entry.evidenceNotInAssertion && !test.failure?.includes(reason.evidence))
		problems.push(
			`fails for another reason than "${reason.evidence}": ${name}\n    ${firstLine(test.failure)}`,
		);
}
for (const [name] of expected) {
	const test = ran.get(name);
	if (test && test.status === 'passed')
		problems.push(`now passes: remove it from ${path.relative(root, knownFile)}: ${name}`);
}

const modules = Object.entries(results.modules)
	.map(([name, version]) => `${name} ${version}`)
	.join(', ');
const counts = { passed: 0, failed: 0, other: 0 };
for (const test of ran.values()) counts[test.status in counts ? test.status : 'other']++;
console.log(
	`[engine:latest] ${modules} on Node ${results.node}: ${counts.passed} passed, ${counts.failed} failed` +
		(counts.other ? `, ${counts.other} skipped` : ''),
);
const knownFailed = [...ran.values()].filter(
	(test) => test.status === 'failed' && expected.has(key(test)),
);
for (const [id, reason] of Object.entries(known.reasons)) {
	const count = knownFailed.filter((test) => expected.get(key(test)).reason === id).length;
	if (count > 0) console.log(`[engine:latest] ${count} known failure(s), ${id}: ${reason.summary}`);
}
if (problems.length > 0) {
	console.error(`[engine:latest] FAILED:\n  ${problems.join('\n  ')}`);
	process.exit(1);
}

function firstLine(text = '') {
	return text.split('\n').find((line) => line.trim()) ?? '';
}
