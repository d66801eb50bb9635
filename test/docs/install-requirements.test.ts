// What README → "Try it" asks of a machine, held to package.json and the lockfile `npm ci` installs: the Node floor
// the README states is `engines.node`, every locked package accepts that floor, every locked package with an
// install script has a decision in package.json's `allowScripts` (npm 11 runs the scripts of packages it does not
// name, with a warning, and skips those set to false), and the project's .npmrc keeps every npm, npm 10 included
// (which ignores allowScripts), from running any of them (docs/contributing.md → Dependencies).
import { execFileSync, spawnSync } from 'node:child_process';
import {
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	rmSync,
	writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import semver from 'semver';

const ROOT = path.resolve(__dirname, '../..');

interface LockEntry {
	name?: string;
	version?: string;
	engines?: unknown;
	hasInstallScript?: boolean;
}

const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
	engines: { node: string };
	scripts: Record<string, string>;
	allowScripts?: Record<string, boolean>;
};
const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
	packages: Record<string, LockEntry>;
};
const locked = Object.entries(lock.packages)
	.filter(([location]) => location !== '')
	.map(([location, entry]) => ({
		...entry,
		name:
			entry.name ?? location.slice(location.lastIndexOf('node_modules/') + 'node_modules/'.length),
	}));

/** The lowest Node `engines.node` admits: the floor the README states. */
const floor = semver.minVersion(manifest.engines.node);

describe('the Node floor', () => {
	it('is a lower bound in package.json (engines.node ">=X.Y")', () => {
		expect(manifest.engines.node).toMatch(/^>=\d+\.\d+(\.\d+)?$/);
		expect(floor).not.toBeNull();
	});

	it('is the one README → "Try it" states', () => {
		const [major, minor] = [floor!.major, floor!.minor];
		expect(readFileSync(path.join(ROOT, 'README.md'), 'utf8')).toContain(
			`Node ${major}.${minor} or later`,
		);
	});

	it("is accepted by every locked package's engines.node", () => {
		const refusing = locked
			.filter(({ engines }) => typeof engines === 'object' && engines !== null)
			.map(({ name, version, engines }) => ({
				name,
				version,
				range: (engines as { node?: unknown }).node,
			}))
			.filter(({ range }) => typeof range === 'string')
			.filter(({ range }) => !semver.satisfies(floor!, range as string))
			.map(({ name, version, range }) => `${name}@${version} wants Node ${range}`);
		expect(refusing).toEqual([]);
	});
});

describe("package.json's allowScripts", () => {
	const decided = Object.keys(manifest.allowScripts ?? {}).map((spec) =>
		// An entry is a name, or name@range (npm install-scripts approve pins the version).
		spec.replace(/(?<=.)@.*$/, ''),
	);
	const withScripts = locked.filter((entry) => entry.hasInstallScript);

	it('names every locked package that has an install script', () => {
		const undecided = withScripts
			.filter(({ name }) => !decided.includes(name))
			.map(({ name, version }) => `${name}@${version}`);
		expect(undecided).toEqual([]);
	});

	it('names only locked packages that have one (npm install-scripts prune would drop the others)', () => {
		const stale = decided.filter((name) => !withScripts.some((entry) => entry.name === name));
		expect(stale).toEqual([]);
	});
});

/**
 * Packs, into `dir`, a package whose preinstall writes `marker` into the node_modules/ it is installed in (the script
 * runs in node_modules/tss-install-script-probe); returns the tarball's path.
 */
function packInstallScriptProbe(dir: string, env: NodeJS.ProcessEnv = process.env): string {
	const probe = path.join(dir, 'probe');
	mkdirSync(probe, { recursive: true });
	writeFileSync(
		path.join(probe, 'package.json'),
		JSON.stringify({
			name: 'tss-install-script-probe',
			version: '1.0.0',
			scripts: { preinstall: `node -e "require('fs').writeFileSync('../marker', 'ran')"` },
		}),
	);
	const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], {
		cwd: probe,
		env,
		encoding: 'utf8',
	}).trim();
	return path.join(dir, tarball);
}

describe("the project's .npmrc", () => {
	let work: string;
	beforeAll(() => {
		work = mkdtempSync(path.join(tmpdir(), 'tss-npmrc-'));
	});
	afterAll(() => rmSync(work, { recursive: true, force: true }));

	/**
	 * Installs a package whose preinstall writes a marker file into a fresh project holding `npmrc` as its .npmrc, with
	 * no user or global npm configuration and no npm_config_* variable inherited; says whether the script ran.
	 */
	function preinstallRuns(name: string, npmrc: string): boolean {
		const dir = path.join(work, name);
		mkdirSync(dir, { recursive: true });
		const env = Object.fromEntries(
			Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)),
		);
		for (const level of ['user', 'global']) {
			const empty = path.join(dir, `empty-${level}-npmrc`);
			writeFileSync(empty, '');
			env[`npm_config_${level}config`] = empty;
		}
		const tarball = packInstallScriptProbe(dir, env);
		const project = path.join(dir, 'project');
		mkdirSync(project);
		writeFileSync(
			path.join(project, 'package.json'),
			JSON.stringify({
				name: 'tss-npmrc-check',
				version: '1.0.0',
				private: true,
				dependencies: { 'tss-install-script-probe': `file:${tarball}` },
			}),
		);
		writeFileSync(path.join(project, '.npmrc'), npmrc);
		execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--loglevel=error'], {
			cwd: project,
			env,
			stdio: 'pipe',
		});
		return existsSync(path.join(project, 'node_modules', 'marker'));
	}

	// eslint-plugin-n8n-nodes-base's preinstall is `npx only-allow pnpm`: run, it would fetch whatever only-allow the
	// registry serves that day and execute it, and npm 10 ignores allowScripts.
	it('keeps npm from running the install scripts of dependencies (a probe package with a preinstall)', () => {
		expect(preinstallRuns('without', '')).toBe(true);
		const npmrc = readFileSync(path.join(ROOT, '.npmrc'), 'utf8');
		expect(preinstallRuns('with', npmrc)).toBe(false);
	});

	it('does not let npx install missing packages unasked', () => {
		const npmrc = readFileSync(path.join(ROOT, '.npmrc'), 'utf8');
		expect(npmrc).not.toMatch(/^\s*yes\s*=\s*true/m);
	});

	it("is not defeated by package.json: no pre/post script of the project's own, which ignore-scripts would skip", () => {
		const hooks = Object.keys(manifest.scripts).filter((script) =>
			/^(pre|post)(?!pare)/.test(script),
		);
		expect(hooks).toEqual([]);
	});
});

// The installs the project's scripts make for n8n, its Node releases, n8n-core, the scanner and n8n-node live outside the
// project and are started through `npm run` (dev, test:e2e, e2e:install, scan …), which hands them the project's
// `ignore-scripts=true` as npm_config_ignore_scripts: scripts/lib/portable.sh drops it again (n8n's sqlite3 and the
// `node` package's platform binary come from install scripts). Run here as `npm run` runs them: through npm, from the
// project's root, with the cache of scripts/e2e/cache.sh in a temporary folder.
describe("the installs the project's scripts make outside it", () => {
	let work: string;
	let probeTarball: string;
	beforeAll(() => {
		work = mkdtempSync(path.join(tmpdir(), 'tss-nested-install-'));
		probeTarball = packInstallScriptProbe(work);
	});
	afterAll(() => rmSync(work, { recursive: true, force: true }));

	/** Runs `script` through `npm exec` in the project's root, as `npm run` would run it. */
	function underNpmRun(cache: string, script: string) {
		const env: NodeJS.ProcessEnv = Object.fromEntries(
			Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)),
		);
		env.TSS_E2E_CACHE = cache;
		return spawnSync('npm', ['exec', '--offline', '--call', `bash -c '${script}'`], {
			cwd: ROOT,
			env,
			encoding: 'utf8',
		});
	}

	function folderWithProbe(name: string): string {
		const folder = path.join(work, name);
		mkdirSync(folder);
		writeFileSync(
			path.join(folder, 'package.json'),
			JSON.stringify({
				name,
				private: true,
				dependencies: { 'tss-install-script-probe': `file:${probeTarball}` },
			}),
		);
		return folder;
	}

	it("drops the project's ignore-scripts, which every `npm run` child gets from npm", () => {
		const run = underNpmRun(
			work,
			'echo "before=$npm_config_ignore_scripts"; source scripts/e2e/cache.sh; echo "after=${npm_config_ignore_scripts-unset}"',
		);
		expect(run.status).toBe(0);
		expect(run.stdout).toContain('before=true');
		expect(run.stdout).toContain('after=unset');
	});

	it('runs the install scripts of what it installs (a probe with a preinstall)', () => {
		const cache = path.join(work, 'cache-runs');
		const folder = folderWithProbe('runs');
		const run = underNpmRun(
			cache,
			`source scripts/e2e/cache.sh && lock_cache && cached_install probe ${folder} "$(command -v node)" true && echo "dir=$cached_dir"`,
		);
		expect(run.status).toBe(0);
		const installed = /dir=(.+)/.exec(run.stdout)?.[1];
		expect(installed).toBeDefined();
		expect(existsSync(path.join(installed!, 'node_modules', 'marker'))).toBe(true);
	});

	it('keeps nothing of a failed install, says so, and clears a staging folder an interrupted one left', () => {
		const cache = path.join(work, 'cache-fails');
		mkdirSync(path.join(cache, '.staging-probe-interrupted'), { recursive: true });
		const folder = folderWithProbe('fails');
		const run = underNpmRun(
			cache,
			`source scripts/e2e/cache.sh && refuse() { echo "[check] refused $1" >&2; exit 1; } && lock_cache && cached_install probe ${folder} "$(command -v node)" refuse`,
		);
		expect(run.status).toBe(1);
		expect(run.stderr).toContain('left by an install that did not finish');
		expect(run.stderr).toContain(
			'the install failed (the lines above say why) and nothing of it was kept',
		);
		expect(readdirSync(cache).filter((name) => name.startsWith('.staging-'))).toEqual([]);
		expect(readdirSync(cache).filter((name) => name.startsWith('probe-'))).toEqual([]);
	});
});
