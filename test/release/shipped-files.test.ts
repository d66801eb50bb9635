// What the package ships (package.json "files": ["dist"]) is what the nodes run, and nothing else: the service's side
// of the contract (src/service: signing, format selection, …) stays with the sandbox and the tests.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');
const dist = path.join(root, 'dist');
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
	n8n: { nodes: string[]; credentials: string[] };
};

function filesUnder(dir: string): string[] {
	return readdirSync(dir).flatMap((name) => {
		const full = path.join(dir, name);
		return statSync(full).isDirectory() ? filesUnder(full) : [full];
	});
}

function hasCode(file: string): boolean {
	return readFileSync(file, 'utf8')
		.split('\n')
		.some(
			(line) =>
				line.trim() !== '' &&
				!/^"use strict";$|^Object\.defineProperty\(exports, "__esModule", \{ value: true \}\);$|^\/\/# sourceMappingURL=/.test(
					line.trim(),
				),
		);
}

/** Every dist/ file reachable from the entry points through relative require() calls. */
function reachable(entries: string[]): Set<string> {
	const seen = new Set<string>();
	const pending = [...entries];
	while (pending.length > 0) {
		const file = pending.pop() as string;
		if (seen.has(file)) continue;
		seen.add(file);
		for (const [, target] of readFileSync(file, 'utf8').matchAll(/require\("(\.[^"]+)"\)/g)) {
			const resolved = path.resolve(path.dirname(file), target);
			pending.push(
				existsSync(`${resolved}.js`) ? `${resolved}.js` : path.join(resolved, 'index.js'),
			);
		}
	}
	return seen;
}

describe('the shipped package (dist/)', () => {
	beforeAll(() => {
		if (!existsSync(dist)) throw new Error('dist/ is missing: run `npm run build` (npm test does)');
	});

	const entries = () =>
		[...manifest.n8n.nodes, ...manifest.n8n.credentials].map((file) => path.join(root, file));

	it('holds every node and credential package.json names', () => {
		for (const entry of entries()) expect(existsSync(entry)).toBe(true);
	});

	it('names every node of nodes/ in package.json, so n8n loads each one', () => {
		const nodeFiles = filesUnder(path.join(root, 'nodes'))
			.filter((file) => file.endsWith('.node.ts'))
			.map((file) =>
				path.relative(root, path.join(dist, path.relative(root, file))).replace(/\.ts$/, '.js'),
			);
		expect(nodeFiles).toContain(
			'dist/nodes/TranscriptionServicePollingTrigger/TranscriptionServicePollingTrigger.node.js',
		);
		expect([...manifest.n8n.nodes].sort()).toEqual(nodeFiles.sort());
	});

	it('holds no JavaScript the nodes do not run', () => {
		// Type-only modules (node.type.ts, types.ts) compile to an empty module: no code to run, nothing to object to.
		const shipped = filesUnder(dist).filter((file) => file.endsWith('.js') && hasCode(file));
		const used = reachable(entries());
		expect(
			shipped.filter((file) => !used.has(file)).map((file) => path.relative(root, file)),
		).toEqual([]);
	});

	it('cites no section of the API specification in what it says: users do not have the specification', () => {
		// Comments are not compiled (removeComments), so whatever is left is text an error or a field can show.
		const citations = filesUnder(dist)
			.filter((file) => file.endsWith('.js'))
			.flatMap((file) =>
				[
					...readFileSync(file, 'utf8').matchAll(/.{0,40}\bspec(ification)? §?\d[\d.]*.{0,5}/gi),
				].map(([text]) => `${path.relative(root, file)}: ${text}`),
			);
		expect(citations).toEqual([]);
	});

	it('holds none of the service side (src/service)', () => {
		expect(existsSync(path.join(dist, 'src', 'service'))).toBe(false);
		const shipped = filesUnder(dist).filter((file) => file.endsWith('.js'));
		for (const file of shipped) {
			expect(readFileSync(file, 'utf8')).not.toMatch(
				/signPayload|canonicalJson|selectArtifactFormat|formatContentDisposition/,
			);
		}
	});
});
