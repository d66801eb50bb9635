// A baseline for a benchmark: the package at an earlier git revision, built into a temporary folder that reuses this
// checkout's node_modules, so a figure and its baseline are measured in the same run on the same machine.
import { execFileSync, execSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { PACKAGE_DIR } from '../../test/support/engine/harness';

export function buildRevision(revision: string): { packageDir: string; remove(): void } {
	const packageDir = mkdtempSync(path.join(tmpdir(), `tss-bench-${revision}-`));
	execSync(`git archive ${revision} | tar -x -C ${JSON.stringify(packageDir)}`, {
		cwd: PACKAGE_DIR,
		stdio: 'ignore',
	});
	symlinkSync(path.join(PACKAGE_DIR, 'node_modules'), path.join(packageDir, 'node_modules'), 'dir');
	execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.json'], {
		cwd: packageDir,
		stdio: 'inherit',
	});
	if (
		!existsSync(
			path.join(packageDir, 'dist/nodes/TranscriptionService/TranscriptionService.node.js'),
		)
	) {
		throw new Error(`building ${revision} produced no node`);
	}
	return { packageDir, remove: () => rmSync(packageDir, { recursive: true, force: true }) };
}
