#!/usr/bin/env node
// Writes the lockfile of an n8n install folder (test/e2e/n8n-<v>/) whose n8n pins releases the npm registry in use does
// not serve (n8n 2.16 and later here: patch releases of internal @n8n/* packages). It resolves the folder's package.json
// with `npm install --package-lock-only`; each time npm answers ETARGET ("No matching version found for <name>@<version>"),
// it asks `npm view <name> versions --json` and pins <name>, through package.json's `overrides`, to the highest release
// of the same major.minor the registry has, then resolves again. A resolution of n8n's ~2,000 packages takes minutes, so
// before it a walk over n8n's own packages (n8n-*, @n8n/*: those exactly pinned from n8n down) asks the same
// `npm view` questions and pins what it finds missing the same way; the ETARGET rounds then catch anything else. The
// substitutions found are kept in package.json's `tssMissingReleases` ("<name>@<wanted>": "<used>") and replaced on the
// next run, so they are always the registry's answer, never a hand-made list. Other overrides stay as written.
//
//   node scripts/e2e/pin-missing-releases.mjs test/e2e/n8n-2.41
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const RECORD = 'tssMissingReleases';
const MAX_SUBSTITUTIONS = 100;

function log(message) {
	process.stderr.write(`[e2e:pin] ${message}\n`);
}

function npm(args, cwd) {
	return spawnSync('npm', args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

function npmAsync(args, cwd) {
	return new Promise((resolve) => {
		const child = spawn('npm', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (chunk) => (stdout += chunk));
		child.stderr.on('data', (chunk) => (stderr += chunk));
		child.on('close', (status) => resolve({ status, stdout, stderr }));
	});
}

const INTERNAL = /^(n8n|n8n-.+|@n8n\/.+)$/;

/** What `npm view` says of a package: its versions and, for one of them, its dependencies. */
async function view(name, version, cwd) {
	const result = await npmAsync(
		['view', `${name}@${version}`, 'versions', 'dependencies', '--json'],
		cwd,
	);
	const noSuchVersion = result.status !== 0 && /No match found for version/.test(result.stderr);
	if (result.status !== 0 && !noSuchVersion)
		throw new Error(`npm view ${name}@${version}: ${result.stderr}`);
	if (!noSuchVersion) {
		const answer = JSON.parse(result.stdout);
		return { versions: [answer.versions].flat(), dependencies: answer.dependencies ?? {} };
	}
	const all = await npmAsync(['view', name, 'versions', '--json'], cwd);
	if (all.status !== 0) throw new Error(`npm view ${name}: ${all.stderr}`);
	return { versions: [JSON.parse(all.stdout)].flat(), dependencies: undefined };
}

/**
 * Walks n8n's own packages pinned to an exact release from the folder's dependencies down, and returns the missing ones
 * with their substitutes ("<name>@<wanted>" → "<used>"), following the substitute's dependencies instead.
 */
async function walkInternalPins(dependencies, cwd) {
	const found = {};
	const seen = new Set();
	let pending = Object.entries(dependencies);
	while (pending.length > 0) {
		const batch = pending
			.filter(
				([name, spec]) => INTERNAL.test(name) && parseVersion(spec) && !seen.has(`${name}@${spec}`),
			)
			.filter(
				([name, spec], index, all) => all.findIndex(([n, s]) => n === name && s === spec) === index,
			);
		for (const [name, spec] of batch) seen.add(`${name}@${spec}`);
		pending = [];
		const answers = [];
		for (let start = 0; start < batch.length; start += 6) {
			answers.push(
				...(await Promise.all(
					batch
						.slice(start, start + 6)
						.map(async ([name, spec]) => ({ name, spec, ...(await view(name, spec, cwd)) })),
				)),
			);
		}
		for (const { name, spec, versions, dependencies: deps } of answers) {
			if (deps) {
				pending.push(...Object.entries(deps));
				continue;
			}
			const substitute = sameMinorSubstitute(spec, versions);
			if (!substitute) continue; // the ETARGET rounds will report it
			found[`${name}@${spec}`] = substitute;
			log(`walk: ${name}@${spec} missing → ${substitute}`);
			pending.push([name, substitute]);
		}
	}
	return found;
}

function parseVersion(version) {
	const match = /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
	return match ? match.slice(1).map(Number) : undefined;
}

/** The highest release (no prerelease) of `wanted`'s major.minor among `published`, or undefined. */
function sameMinorSubstitute(wanted, published) {
	const [major, minor] = parseVersion(wanted) ?? [];
	if (major === undefined) return undefined;
	const candidates = published
		.map((version) => ({ version, parts: parseVersion(version) }))
		.filter(({ parts }) => parts && parts[0] === major && parts[1] === minor);
	candidates.sort((a, b) => a.parts[2] - b.parts[2]);
	return candidates.at(-1)?.version;
}

function missingRelease(npmOutput) {
	const match = /No matching version found for (.+)@([^@\s]+?)\.?\s*$/m.exec(npmOutput);
	return match ? { name: match[1], version: match[2] } : undefined;
}

async function main() {
	const folder = process.argv[2];
	if (!folder) {
		log('usage: node scripts/e2e/pin-missing-releases.mjs <install folder with package.json>');
		process.exit(2);
	}
	const manifestPath = path.join(folder, 'package.json');
	const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
	const overrides = { ...(manifest.overrides ?? {}) };
	for (const pinned of Object.keys(manifest[RECORD] ?? {})) {
		delete overrides[pinned.slice(0, pinned.lastIndexOf('@'))];
	}
	const staging = mkdtempSync(path.join(tmpdir(), 'tss-pin-'));
	try {
		const found = await walkInternalPins(manifest.dependencies ?? {}, staging);
		for (const [wanted, used] of Object.entries(found)) {
			const name = wanted.slice(0, wanted.lastIndexOf('@'));
			if (overrides[name] !== undefined && overrides[name] !== used)
				throw new Error(
					`${name} is missing at two releases (${overrides[name]} and ${used}): one override cannot pin both`,
				);
			overrides[name] = used;
		}
		for (let round = 0; ; round++) {
			const attempt = { ...manifest, overrides };
			delete attempt[RECORD];
			writeFileSync(path.join(staging, 'package.json'), `${JSON.stringify(attempt, null, 2)}\n`);
			rmSync(path.join(staging, 'package-lock.json'), { force: true });
			const started = Date.now();
			const result = npm(
				['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'],
				staging,
			);
			const seconds = ((Date.now() - started) / 1000).toFixed(0);
			if (result.status === 0) {
				log(`resolved in round ${round + 1} (${seconds} s)`);
				break;
			}
			const output = `${result.stdout}\n${result.stderr}`;
			const missing = /\bETARGET\b/.test(output) ? missingRelease(output) : undefined;
			if (!missing) {
				process.stderr.write(output);
				throw new Error('npm failed for another reason than a missing release (above)');
			}
			if (missing.name in overrides || round >= MAX_SUBSTITUTIONS) {
				throw new Error(`${missing.name}@${missing.version} is missing even after pinning it`);
			}
			const view = npm(['view', missing.name, 'versions', '--json'], staging);
			if (view.status !== 0) throw new Error(`npm view ${missing.name}: ${view.stderr}`);
			const published = [JSON.parse(view.stdout)].flat();
			const substitute = sameMinorSubstitute(missing.version, published);
			if (!substitute) {
				throw new Error(
					`${missing.name}@${missing.version} is missing and the registry has no other release of its major.minor`,
				);
			}
			log(
				`round ${round + 1} (${seconds} s): ${missing.name}@${missing.version} missing → ${substitute}`,
			);
			overrides[missing.name] = substitute;
			found[`${missing.name}@${missing.version}`] = substitute;
		}
		const sortedFound = Object.fromEntries(
			Object.entries(found).sort(([a], [b]) => a.localeCompare(b)),
		);
		const written = { ...manifest, overrides, [RECORD]: sortedFound };
		writeFileSync(manifestPath, `${JSON.stringify(written, null, 2)}\n`);
		copyFileSync(path.join(staging, 'package-lock.json'), path.join(folder, 'package-lock.json'));
		log(
			`${Object.keys(found).length} missing releases pinned; wrote ${manifestPath} and package-lock.json`,
		);
		for (const [wanted, used] of Object.entries(sortedFound))
			process.stdout.write(`${wanted} → ${used}\n`);
	} finally {
		rmSync(staging, { recursive: true, force: true });
	}
}

await main();
