// Regenerates test/release/github-workflow.schema.json, the JSON schema the release workflow is validated
// against at test time (no network then): SchemaStore's GitHub Actions workflow schema
// (https://json.schemastore.org/github-workflow.json, Apache-2.0, © SchemaStore contributors).
//
// No npm package ships that schema as a file. @action-validator/core, a workflow validator, embeds it
// verbatim in its WebAssembly module, so it is cut out of that package's published tarball, whose
// integrity is checked first:
//
//   node test/release/extract-github-workflow-schema.mjs
//
// Prints the SHA-256 of the schema's canonical JSON (stable across formatting) for the test to pin.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const PACKAGE = '@action-validator/core@0.6.0';
const INTEGRITY =
	'sha512-tPglwCr8Mm8SWzwnVewwFmqRx91F0WvMsM0BRAqH4CLalyGndm53Xvp+UcUSzswpk1wkjIDYI7RyEhWMLyPkig==';
const SCHEMA_ID = 'https://json.schemastore.org/github-workflow.json';
const OUTPUT = path.join(import.meta.dirname, 'github-workflow.schema.json');

/** The JSON object that starts before `"$id": SCHEMA_ID`, found by walking to its matching brace. */
function schemaIn(text) {
	const idAt = text.indexOf(`"$id": "${SCHEMA_ID}"`);
	if (idAt < 0) throw new Error(`${SCHEMA_ID} is not in ${PACKAGE}`);
	const start = text.lastIndexOf('{\n', idAt);
	let depth = 0;
	let inString = false;
	let escaped = false;
	for (let i = start; i < text.length; i++) {
		const char = text[i];
		if (inString) {
			if (escaped) escaped = false;
			else if (char === '\\') escaped = true;
			else if (char === '"') inString = false;
		} else if (char === '"') inString = true;
		else if (char === '{') depth++;
		else if (char === '}' && --depth === 0) return JSON.parse(text.slice(start, i + 1));
	}
	throw new Error('unterminated schema');
}

const work = mkdtempSync(path.join(tmpdir(), 'workflow-schema-'));
try {
	const [packed] = JSON.parse(
		execFileSync('npm', ['pack', PACKAGE, '--json', '--pack-destination', work], {
			encoding: 'utf8',
		}),
	);
	if (packed.integrity !== INTEGRITY) {
		throw new Error(`${PACKAGE} integrity ${packed.integrity}, expected ${INTEGRITY}`);
	}
	execFileSync('tar', ['-xzf', path.join(work, packed.filename), '-C', work]);
	const wasm = readFileSync(path.join(work, 'package', 'action_validator_bg.wasm'));
	const schema = schemaIn(wasm.toString('utf8'));
	writeFileSync(OUTPUT, `${JSON.stringify(schema, null, '\t')}\n`);
	execFileSync('npx', ['prettier', '--write', OUTPUT], { stdio: 'ignore' });
	const digest = createHash('sha256').update(JSON.stringify(schema)).digest('hex');
	console.log(`${OUTPUT}: ${schema.$id} from ${PACKAGE}, canonical sha256 ${digest}`);
} finally {
	rmSync(work, { recursive: true, force: true });
}
