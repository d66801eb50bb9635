// Jest global setup of `npm test` and `npm run test:engine:latest`: the engine tier loads dist/, so a dist/ older than
// its sources is rebuilt here, once, before any test runs; if it is still stale after the build, the run stops.
import { execFileSync } from 'node:child_process';
import path from 'node:path';

import { describeStaleBuild, staleBuildReasons } from '../support/engine/build-freshness';

export default function globalSetup(): void {
	const root = path.resolve(__dirname, '../..');
	const before = staleBuildReasons(root);
	if (before.length === 0) return;
	process.stderr.write(
		`\n[engine] dist/ does not match the sources (${describeStaleBuild(before)}): running npm run build\n`,
	);
	execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
	const after = staleBuildReasons(root);
	if (after.length > 0)
		throw new Error(
			`dist/ is still stale after npm run build (${describeStaleBuild(after)}); the engine tests would test old code`,
		);
}
