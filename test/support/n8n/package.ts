// The pack as users get it: packed and installed into the n8n user folder's `.n8n/nodes` by the commands of
// README → Install, run as written (scripts/install-steps.ts reads them), so the README says what the suites prove.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';

import { installSteps, tarballName } from '../../../scripts/install-steps';
import { run } from './processes';
import { REPO_ROOT } from './versions';

export const PACKAGE_NAME = 'n8n-nodes-transcription-service';

async function runSteps(lines: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
	await run('bash', ['-euo', 'pipefail', '-c', lines.join('\n')], { cwd, env });
}

function newestModified(folder: string): number {
	let newest = 0;
	for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
		if (entry.isFile())
			newest = Math.max(newest, statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
	}
	return newest;
}

/**
 * Runs README's `pack` step (`npm run pack:n8n`) unless the tarball it wrote is newer than dist/ and package.json
 * (`npm run test:e2e` and `test:queue` run that step before the suites), and copies the tarball into `destination`.
 */
export async function packPackage(destination: string): Promise<string> {
	const packed = path.join(REPO_ROOT, tarballName());
	const dist = path.join(REPO_ROOT, 'dist');
	const fresh =
		existsSync(packed) &&
		existsSync(dist) &&
		statSync(packed).mtimeMs >=
			Math.max(newestModified(dist), statSync(path.join(REPO_ROOT, 'package.json')).mtimeMs);
	if (!fresh) await runSteps(installSteps().pack, REPO_ROOT);
	await mkdir(destination, { recursive: true });
	const tarball = path.join(destination, tarballName());
	await copyFile(packed, tarball);
	return tarball;
}

/**
 * Runs README's `by-hand` step from the tarball's folder with HOME = `userFolder`, so its `~/.n8n/nodes` is this
 * n8n's (N8N_USER_FOLDER); npm keeps the user's own configuration and cache. n8n then names the nodes
 * `n8n-nodes-transcription-service.<name>`. A tarball under another name (an older build, for a before/after) is
 * copied under the name the step installs.
 */
export async function installIntoUserFolder(userFolder: string, tarball: string): Promise<void> {
	let folder = path.dirname(tarball);
	if (path.basename(tarball) !== tarballName()) {
		folder = path.join(folder, `install-${path.basename(tarball, '.tgz')}`);
		await mkdir(folder, { recursive: true });
		await copyFile(tarball, path.join(folder, tarballName()));
	}
	await runSteps(installSteps()['by-hand'], folder, {
		...process.env,
		HOME: userFolder,
		npm_config_userconfig: process.env.npm_config_userconfig ?? path.join(homedir(), '.npmrc'),
		npm_config_cache: process.env.npm_config_cache ?? path.join(homedir(), '.npm'),
	});
}
