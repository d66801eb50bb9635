// The pack as users get it: `npm pack` of the built package, installed into the n8n user folder's
// `.n8n/nodes` the way n8n's community-package installer lays it out.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { run } from './processes';
import { REPO_ROOT } from './versions';

export const PACKAGE_NAME = 'n8n-nodes-transcription-service';

/** Packs dist/ (run `npm run build` first); returns the tarball's path. */
export async function packPackage(destination: string): Promise<string> {
	if (!existsSync(path.join(REPO_ROOT, 'dist')))
		throw new Error('dist/ is missing: run `npm run build` first');
	await mkdir(destination, { recursive: true });
	const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', destination], {
		cwd: REPO_ROOT,
	});
	const [packed] = JSON.parse(stdout) as Array<{ filename: string }>;
	return path.join(destination, packed.filename);
}

/** Installs the tarball into `<userFolder>/.n8n/nodes`; n8n then names the nodes `n8n-nodes-transcription-service.<name>`. */
export async function installIntoUserFolder(userFolder: string, tarball: string): Promise<void> {
	const nodesFolder = path.join(userFolder, '.n8n', 'nodes');
	await mkdir(nodesFolder, { recursive: true });
	const manifest = path.join(nodesFolder, 'package.json');
	if (!existsSync(manifest)) {
		await writeFile(
			manifest,
			`${JSON.stringify({ name: 'installed-nodes', private: true }, null, 2)}\n`,
		);
	}
	// n8n provides n8n-workflow itself: the peer dependency must not bring a second copy.
	await run(
		'npm',
		[
			'install',
			tarball,
			'--omit=peer',
			'--legacy-peer-deps',
			'--no-audit',
			'--no-fund',
			'--ignore-scripts',
		],
		{ cwd: nodesFolder },
	);
}
