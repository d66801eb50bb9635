// Jest global setup of the tiers that read dist/ (engine, docs, release; jest.config.js) and of `npm run
// test:engine:latest`: a dist/ older than its sources is rebuilt here, once, before any of their tests runs; if it is
// still stale after the build, the run stops. Jest runs it only when a selected test belongs to one of those tiers, so
// the unit and sandbox-service tiers need no build.
import { execFileSync } from 'node:child_process';
import path from 'node:path';

import { describeStaleBuild, DIST_VERIFIED, staleBuildReasons } from './freshness';

export default function globalSetup(): void {
	const root = path.resolve(__dirname, '../../..');
	const before = staleBuildReasons(root);
	if (before.length === 0) return verified(root);
	process.stderr.write(
		`\n[build] dist/ does not match the sources (${describeStaleBuild(before)}): running npm run build\n`,
	);
	execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
	const after = staleBuildReasons(root);
	if (after.length > 0)
		throw new Error(
			`dist/ is still stale after npm run build (${describeStaleBuild(after)}); the tests would read old code`,
		);
	verified(root);
}

/** Tells the test files (the workers inherit this process's environment) that dist/ matched its sources at the start. */
function verified(root: string): void {
	process.env[DIST_VERIFIED] = root;
}
