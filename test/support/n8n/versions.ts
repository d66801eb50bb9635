// The n8n versions the end-to-end suite proves, and where scripts/e2e/install.sh puts them.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const REPO_ROOT = path.resolve(__dirname, '../../..');
/** The installs' links and each run's files (git-ignored), for the e2e and queue tiers and the scripts alike. */
export const WORK_DIR = path.join(REPO_ROOT, 'test/e2e/.work');

export type N8nVersionId = '1.123' | '2.8' | '2.15' | '2.41';
export const N8N_VERSION_IDS: readonly N8nVersionId[] = ['1.123', '2.8', '2.15', '2.41'];

export interface N8nInstall {
	id: N8nVersionId;
	/** The exact n8n version installed (from its package.json). */
	n8nVersion: string;
	/** The Node binary this n8n runs on (from the npm `node` package where this machine's Node 20 will not do). */
	nodeBinary: string;
	nodeVersion: string;
	n8nBin: string;
}

/**
 * The shortest poll interval each n8n lets a workflow activate with. n8n 2.41 refuses, on activation, a poll time that
 * fires more than once a minute ("The polling interval is too short. It has to be at least a minute.", n8n-core's
 * ActiveWorkflowTriggers); the older ones take a seconds field.
 */
export const SHORTEST_POLL_SECONDS: Readonly<Record<N8nVersionId, number>> = {
	'1.123': 5,
	'2.8': 5,
	'2.15': 5,
	'2.41': 60,
};

/** n8n 2.16 and later sign resume URLs: `/webhook-waiting/<execution id>?signature=<token>` (n8n PR #24159). */
export const SIGNS_RESUME_URLS: Readonly<Record<N8nVersionId, boolean>> = {
	'1.123': false,
	'2.8': false,
	'2.15': false,
	'2.41': true,
};

export function isN8nVersionId(value: string): value is N8nVersionId {
	return (N8N_VERSION_IDS as readonly string[]).includes(value);
}

export function n8nInstall(id: N8nVersionId): N8nInstall {
	// scripts/e2e/install.sh links the cached install here.
	const modules = path.join(WORK_DIR, `n8n-${id}`, 'node_modules');
	const nodeBinary = path.join(modules, '.tss-e2e', 'node');
	const n8nPackage = path.join(modules, 'n8n', 'package.json');
	if (!existsSync(nodeBinary) || !existsSync(n8nPackage)) {
		throw new Error(
			`n8n ${id} is not installed: run scripts/e2e/install.sh ${id} (or npm run e2e:install)`,
		);
	}
	const { version } = JSON.parse(readFileSync(n8nPackage, 'utf8')) as { version: string };
	return {
		id,
		n8nVersion: version,
		nodeBinary,
		nodeVersion: execFileSync(nodeBinary, ['--version'], { encoding: 'utf8' }).trim(),
		n8nBin: path.join(modules, 'n8n', 'bin', 'n8n'),
	};
}
