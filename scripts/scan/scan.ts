// `npm run scan`: n8n's community-package scanner (@n8n/scan-community-package) run here the way n8n's
// registry scan runs it before listing a package as verified — its own analyzePackage(), ESLint config and
// file patterns over two legs:
//   source   the checkout the provenance points at: package.json + {nodes,credentials}/**/*.{js,ts,json}
//   tarball  the packed package: **/*.js + package.json
// The registry fetches both (the attested commit from GitHub, the tarball from npm); here the source is
// the git checkout as it would be committed (tracked and untracked files, not ignored ones) and the tarball
// is a fresh `npm pack` (build first) or the one given. Prints every file each leg lints; exits 1 on any
// violation (2 on a bad argument).
//
//   tsx scripts/scan/scan.ts [--project DIR] [--tarball FILE]
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
	cpSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readFileSync,
	rmSync,
	statSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

interface AnalysisResult {
	passed: boolean;
	message?: string;
	details?: string;
}

/** The exports of the scanner's scanner/scanner.mjs that the registry scan uses. */
interface Scanner {
	SOURCE_FILE_PATTERNS: string[];
	analyzePackage(packageDir: string, filePatterns: string[]): Promise<AnalysisResult>;
	findPackageRoot(sourceDir: string, packageName: string): string | null;
}

type GlobSync = (patterns: string[], options: { cwd: string; ignore: string[] }) => string[];

/** What `analyzePackageByName` passes for the tarball leg (its `.ts` rules only false-positive on `.d.ts`). */
const TARBALL_FILE_PATTERNS = ['**/*.js', 'package.json'];
/** The ignore list analyzePackage() globs with, so the files listed here are the files it lints. */
const ANALYZE_IGNORE = ['node_modules/**', '**/package-lock.json'];

const SCAN_DIR = __dirname;
const REPO_ROOT = path.resolve(SCAN_DIR, '..', '..');

const write = (line = '') => process.stdout.write(`${line}\n`);
const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

class UsageError extends Error {}

function parseArgs(argv: string[]): { project: string; tarball?: string } {
	let project = REPO_ROOT;
	let tarball: string | undefined;
	for (let i = 0; i < argv.length; i++) {
		const value = argv[i + 1];
		if (
			(argv[i] === '--project' || argv[i] === '--tarball') &&
			(!value || value.startsWith('--'))
		) {
			throw new UsageError(`${argv[i]} needs a value`);
		}
		if (argv[i] === '--project') project = path.resolve(argv[++i]);
		else if (argv[i] === '--tarball') tarball = path.resolve(argv[++i]);
		else throw new UsageError(`unknown argument '${argv[i]}'`);
	}
	return { project, tarball };
}

/** Installs (or finds in the cache) the scanner and returns the folder holding its node_modules. */
function installScanner(): string {
	const out = execFileSync('bash', [path.join(SCAN_DIR, 'install.sh')], {
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	return out.trim().split('\n').pop() as string;
}

/** The version installed at the top of the scanner's tree (the one its ESLint plugins resolve). */
function versionOf(scannerHome: string, name: string): string {
	const manifest = path.join(scannerHome, 'node_modules', name, 'package.json');
	return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

/**
 * The files git would put in the next commit: tracked ones still on disk plus untracked ones that are not
 * ignored, copied to `dest`. The registry lints the attested commit's archive, which holds tracked files
 * only; untracked ones are included here so a new node file is linted before it is committed.
 */
function snapshotCheckout(project: string, dest: string): number {
	let listing: string;
	try {
		listing = execFileSync(
			'git',
			['-C', project, 'ls-files', '-z', '--cached', '--others', '--exclude-standard'],
			{ encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
		);
	} catch {
		throw new Error(`${project} is not a git checkout: the source leg lints what git would commit`);
	}
	let copied = 0;
	for (const file of listing.split('\0').filter(Boolean)) {
		const from = path.join(project, file);
		if (!existsSync(from) || !statSync(from).isFile()) continue;
		cpSync(from, path.join(dest, file));
		copied++;
	}
	return copied;
}

/** `npm pack` of the project into `dest`; returns the tarball's path. */
function packProject(project: string, dest: string): string {
	mkdirSync(dest, { recursive: true });
	const out = execFileSync('npm', ['pack', '--json', '--pack-destination', dest], {
		cwd: project,
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	const [packed] = JSON.parse(out) as Array<{ filename: string }>;
	return path.join(dest, packed.filename);
}

function integrityOf(file: string): string {
	return `sha512-${createHash('sha512').update(readFileSync(file)).digest('base64')}`;
}

/** Unpacks like the scanner does (`tar -xzf … --strip-components=1`). */
function unpack(tarball: string, dest: string): void {
	mkdirSync(dest, { recursive: true });
	execFileSync('tar', ['-xzf', tarball, '-C', dest, '--strip-components=1']);
}

/**
 * Lints one leg and prints its files and verdict. `shownAs` stands for the temporary folder in the scanner's
 * report: '' for the checkout (paths relative to the project), `package/` for the tarball (paths inside it).
 */
async function lintLeg(
	scanner: Scanner,
	glob: GlobSync,
	leg: { name: string; dir: string; patterns: string[]; shownAs: string },
): Promise<{ files: number; passed: boolean }> {
	const { name, dir, patterns, shownAs } = leg;
	const files = glob(patterns, { cwd: dir, ignore: ANALYZE_IGNORE }).sort();
	write(`${name} leg: ${files.length} files (${patterns.join(' + ')})`);
	for (const file of files) write(`  ${file}`);
	const started = performance.now();
	const result = await scanner.analyzePackage(dir, patterns);
	if (result.passed) {
		write(`${name} leg: 0 violations in ${files.length} files (${seconds(started)})`);
	} else {
		const why = result.message ?? 'the scanner did not pass it';
		write(`${name} leg: FAILED — ${why} (${seconds(started)})`);
		if (result.details) write(result.details.split(`${dir}${path.sep}`).join(shownAs).trimEnd());
	}
	return { files: files.length, passed: result.passed };
}

async function main(): Promise<number> {
	const started = performance.now();
	const { project, tarball: givenTarball } = parseArgs(process.argv.slice(2));

	const scannerHome = installScanner();
	const scannerPackage = path.join(scannerHome, 'node_modules/@n8n/scan-community-package');
	const fromScanner = createRequire(path.join(scannerPackage, 'package.json'));
	const versions = [
		'eslint',
		'@n8n/eslint-plugin-community-nodes',
		'eslint-plugin-n8n-nodes-base',
		'typescript',
		'n8n-workflow',
	].map((name) => `${name} ${versionOf(scannerHome, name)}`);
	write(
		`scanner: @n8n/scan-community-package ${versionOf(scannerHome, '@n8n/scan-community-package')}` +
			` (${versions.join(', ')}) in ${scannerHome}`,
	);

	const work = mkdtempSync(path.join(tmpdir(), 'tss-scan-'));
	// The scanner makes a temp folder when it is loaded and leaves it behind: keep it inside ours.
	process.env.TMPDIR = work;
	// eslint-plugin-n8n-nodes-base reads NODE_ENV=test (set by jest, for one) as its own test mode and then
	// takes every file for Test.node.ts, which no real scan does.
	delete process.env.NODE_ENV;
	try {
		const scanner = (await import(
			pathToFileURL(path.join(scannerPackage, 'scanner/scanner.mjs')).href
		)) as Scanner;
		const glob = (fromScanner('fast-glob') as { sync: GlobSync }).sync;

		const sourceDir = path.join(work, 'source');
		const copied = snapshotCheckout(project, sourceDir);

		const tarball = givenTarball ?? packProject(project, path.join(work, 'pack'));
		const packageDir = path.join(work, 'package');
		unpack(tarball, packageDir);
		const manifest = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as {
			name: string;
			version: string;
		};

		write(`source: ${project} (${copied} files git would commit)`);
		write(`tarball: ${path.basename(tarball)} ${integrityOf(tarball)}`);
		write(`package: ${manifest.name}@${manifest.version}`);

		// The registry scan looks the package up by name in the source checkout (monorepos included).
		const packageRoot = scanner.findPackageRoot(sourceDir, manifest.name);
		if (!packageRoot) {
			write(`FAILED: no package.json named '${manifest.name}' in the source checkout`);
			return 1;
		}

		const source = await lintLeg(scanner, glob, {
			name: 'source',
			dir: packageRoot,
			patterns: scanner.SOURCE_FILE_PATTERNS,
			shownAs: '',
		});
		const packed = await lintLeg(scanner, glob, {
			name: 'tarball',
			dir: packageDir,
			patterns: TARBALL_FILE_PATTERNS,
			shownAs: 'package/',
		});
		const passed = source.passed && packed.passed;
		write(
			`scan ${passed ? 'passed' : 'FAILED'}: source ${source.files} files, tarball ${packed.files} files` +
				` (${seconds(started)})`,
		);
		return passed ? 0 : 1;
	} finally {
		rmSync(work, { recursive: true, force: true });
	}
}

main().then(
	(code) => process.exit(code),
	(error: unknown) => {
		process.stderr.write(`scan: ${error instanceof Error ? error.message : String(error)}\n`);
		process.exit(error instanceof UsageError ? 2 : 1);
	},
);
