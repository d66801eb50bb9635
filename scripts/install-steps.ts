// README → Install is the one place that says how to install a build of this repository into n8n. Its command
// blocks are marked `<!-- install-step: NAME -->`; the e2e and queue harnesses run the `pack` and `by-hand` blocks
// as written (test/support/n8n/package.ts) and the docs test holds the Docker blocks (not run: CI has no Docker) to
// the same install line, tarball and container, so the instructions cannot drift from what the suites prove.
import { readFileSync } from 'node:fs';
import path from 'node:path';

export const REPO_ROOT = path.resolve(__dirname, '..');
export const README = path.join(REPO_ROOT, 'README.md');

const STEPS = ['pack', 'by-hand', 'docker-exec', 'dockerfile', 'docker-run'] as const;
export type InstallStep = (typeof STEPS)[number];

/** The tarball `npm run pack:n8n` writes and every install step names: the package name, no version. */
export function tarballName(): string {
	const { name } = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
		name: string;
	};
	return `${name}.tgz`;
}

/** The lines of each marked block (comments and blank lines dropped); throws when a block is missing or doubled. */
export function installSteps(
	readme: string = readFileSync(README, 'utf8'),
): Record<InstallStep, string[]> {
	const found = new Map<string, string[]>();
	const marked = /<!-- install-step: ([a-z-]+) -->\s*\n```[a-z]*\n([\s\S]*?)\n```/g;
	for (const [, name, body] of readme.matchAll(marked)) {
		if (found.has(name)) throw new Error(`README.md marks the install step "${name}" twice`);
		found.set(
			name,
			body
				.split('\n')
				.map((line) => line.replace(/\s+#.*$/, '').trim())
				.filter((line) => line !== '' && !line.startsWith('#')),
		);
	}
	const steps = {} as Record<InstallStep, string[]>;
	for (const step of STEPS) {
		const lines = found.get(step);
		if (!lines?.length)
			throw new Error(`README.md has no install step "${step}" (<!-- install-step: ${step} -->)`);
		steps[step] = lines;
	}
	const unknown = [...found.keys()].filter((name) => !(STEPS as readonly string[]).includes(name));
	if (unknown.length > 0)
		throw new Error(`README.md marks unknown install steps: ${unknown.join(', ')}`);
	return steps;
}
