// `npm run scan` (scripts/scan/scan.ts) on copies of this project: the real scanner, installed beside the
// project as the script does it (cached in ~/.cache/tss-scan; the first run installs it, ~20 s). A clean copy
// passes and lists exactly the files of each leg; deliberately bad files, made here and never committed, fail
// the leg they belong to, with the file and the rule named and the exit code 1.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
	cpSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	rmSync,
	writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');
const SCAN = path.join(ROOT, 'scripts', 'scan', 'scan.ts');
const SCAN_TIMEOUT_MS = 180_000;

let work: string;

beforeAll(() => {
	if (!existsSync(path.join(ROOT, 'dist', 'nodes'))) {
		throw new Error('dist/ is missing: run `npm run build` first (`npm test` does)');
	}
	work = mkdtempSync(path.join(tmpdir(), 'tss-scan-test-'));
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A copy of the project as committed, plus the built dist/, in a fresh git repository. */
function copyProject(name: string): string {
	const dir = path.join(work, name);
	const tracked = execFileSync('git', ['-C', ROOT, 'ls-files', '-z'], { encoding: 'utf8' })
		.split('\0')
		.filter((file) => file && existsSync(path.join(ROOT, file)));
	for (const file of tracked) cpSync(path.join(ROOT, file), path.join(dir, file));
	cpSync(path.join(ROOT, 'dist'), path.join(dir, 'dist'), { recursive: true });
	execFileSync('git', ['init', '-q'], { cwd: dir });
	return dir;
}

function place(dir: string, file: string, content: string): void {
	mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
	writeFileSync(path.join(dir, file), content);
}

function scan(...args: string[]): { status: number | null; stdout: string; stderr: string } {
	return spawnSync(TSX, [SCAN, ...args], { encoding: 'utf8', timeout: SCAN_TIMEOUT_MS });
}

/** The files listed under `<leg> leg: N files (…)`. */
function listed(stdout: string, leg: string): string[] {
	const lines = stdout.split('\n');
	const start = lines.findIndex(
		(line) => line.startsWith(`${leg} leg: `) && line.includes(' files ('),
	);
	const files: string[] = [];
	for (const line of lines.slice(start + 1)) {
		if (!line.startsWith('  ')) break;
		files.push(line.trim());
	}
	return files;
}

describe('npm run scan on a clean copy of the project, with a tarball packed beforehand', () => {
	let project: string;
	let tarball: string;
	let result: ReturnType<typeof scan>;

	beforeAll(() => {
		project = copyProject('clean');
		// Ignored by git (dist/ at any depth), so not in the attested source: the scan must not lint it.
		place(
			project,
			'nodes/TranscriptionService/dist/Leftover.node.ts',
			'setTimeout(() => {}, 1);\n',
		);
		const packDir = path.join(work, 'clean-pack');
		mkdirSync(packDir);
		const [packed] = JSON.parse(
			execFileSync('npm', ['pack', '--json', '--pack-destination', packDir], {
				cwd: project,
				encoding: 'utf8',
				stdio: ['ignore', 'pipe', 'ignore'],
			}),
		) as Array<{ filename: string }>;
		tarball = path.join(packDir, packed.filename);
		result = scan('--project', project, '--tarball', tarball);
	}, SCAN_TIMEOUT_MS);

	it('passes with exit code 0', () => {
		expect(result.stderr).not.toMatch(/^scan: /m);
		expect(result.stdout).toMatch(
			/^scan passed: source \d+ files, tarball \d+ files \(\d+\.\d s\)$/m,
		);
		expect(result.status).toBe(0);
	});

	it('lints, in the source leg, package.json and every nodes/ and credentials/ source git would commit', () => {
		const committed = execFileSync('git', ['-C', project, 'ls-files', '-o', '--exclude-standard'], {
			encoding: 'utf8',
		})
			.split('\n')
			.filter(
				(file) => file === 'package.json' || /^(nodes|credentials)\/.*\.(js|ts|json)$/.test(file),
			)
			.sort();
		expect(committed).toContain('credentials/TranscriptionServiceApi.credentials.ts');
		expect(listed(result.stdout, 'source')).toEqual(committed);
		expect(result.stdout).toContain(`source leg: ${committed.length} files (`);
		expect(result.stdout).toContain(`source leg: 0 violations in ${committed.length} files`);
	});

	it('lints, in the tarball leg, the given tarball’s .js files and package.json, not its .d.ts', () => {
		const entries = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' })
			.split('\n')
			.map((entry) => entry.replace(/^package\//, ''))
			.filter((file) => file === 'package.json' || file.endsWith('.js'))
			.sort();
		expect(entries).toContain('dist/nodes/TranscriptionService/TranscriptionService.node.js');
		expect(listed(result.stdout, 'tarball')).toEqual(entries);
		expect(result.stdout).toContain(`tarball leg: 0 violations in ${entries.length} files`);
	});

	it('names the tarball and its integrity', () => {
		const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
		expect(result.stdout).toContain(`tarball: ${path.basename(tarball)} ${integrity}\n`);
		expect(result.stdout).toContain('package: n8n-nodes-transcription-service@');
	});

	it('says which scanner it ran', () => {
		expect(result.stdout).toMatch(
			/^scanner: @n8n\/scan-community-package 0\.32\.0 \(eslint 9\.29\.0, .*typescript 5\.9\.3, n8n-workflow [\d.]+\) in /m,
		);
	});
});

describe('npm run scan with deliberately bad files, packing the project itself', () => {
	let result: ReturnType<typeof scan>;

	beforeAll(() => {
		const project = copyProject('bad');
		// Not yet committed (untracked, not ignored): linted all the same, and inline disables do not count.
		place(
			project,
			'nodes/TranscriptionService/helpers/sleep.ts',
			[
				'// eslint-disable-next-line @n8n/community-nodes/no-restricted-globals',
				'export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));',
				'',
			].join('\n'),
		);
		// Only in the build output: the source is clean, the tarball is not.
		place(
			project,
			'dist/nodes/TranscriptionService/helpers/exec.js',
			"const { execSync } = require('child_process');\nmodule.exports = () => execSync('id');\n",
		);
		result = scan('--project', project);
	}, SCAN_TIMEOUT_MS);

	it('fails with exit code 1', () => {
		expect(result.stdout).toMatch(/^scan FAILED: source \d+ files, tarball \d+ files/m);
		expect(result.status).toBe(1);
	});

	it('fails the source leg on the new node file, naming it and the rule, despite its eslint-disable comment', () => {
		expect(listed(result.stdout, 'source')).toContain(
			'nodes/TranscriptionService/helpers/sleep.ts',
		);
		expect(result.stdout).toMatch(/^source leg: FAILED — ESLint violations found/m);
		expect(result.stdout).toMatch(
			/^nodes\/TranscriptionService\/helpers\/sleep\.ts\n.*Use of restricted global 'setTimeout'.*@n8n\/community-nodes\/no-restricted-globals$/m,
		);
	});

	it('fails the tarball leg on the compiled file that only the package contains', () => {
		expect(listed(result.stdout, 'tarball')).toContain(
			'dist/nodes/TranscriptionService/helpers/exec.js',
		);
		expect(result.stdout).toMatch(/^tarball leg: FAILED — ESLint violations found/m);
		expect(result.stdout).toMatch(
			/^package\/dist\/nodes\/TranscriptionService\/helpers\/exec\.js\n.*Require of 'child_process' is not allowed.*@n8n\/community-nodes\/no-restricted-imports$/m,
		);
	});
});

describe('npm run scan arguments', () => {
	it('exits 2 on an argument it does not know, before installing anything', () => {
		const result = scan('--tarbal', 'x.tgz');
		expect(result.stderr).toBe("scan: unknown argument '--tarbal'\n");
		expect(result.status).toBe(2);
	});

	it('exits 2 when an option has no value', () => {
		const result = scan('--tarball');
		expect(result.stderr).toBe('scan: --tarball needs a value\n');
		expect(result.status).toBe(2);
	});
});

describe('the scanner’s own command line, which the release workflow reads after publishing', () => {
	it('prints the verdict the workflow looks for', () => {
		const home = execFileSync('bash', [path.join(ROOT, 'scripts', 'scan', 'install.sh')], {
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'ignore'],
		}).trim();
		const cli = readFileSync(
			path.join(home, 'node_modules', '@n8n', 'scan-community-package', 'scanner', 'cli.mjs'),
			'utf8',
		);
		expect(cli).toContain('has passed all security checks`');
		expect(cli).toContain('has failed security checks`');
	});
});
