// Everything a queue run starts dies with it: a run that stops normally stops its processes in order, but one that
// crashes, times out or is interrupted must not leave n8n, PostgreSQL or Redis running on the machine.
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';

const children = new Set<ChildProcess>();
const folders = new Set<string>();
let hooked = false;

function killEverything(): void {
	for (const child of children) {
		if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
	}
	for (const folder of folders) rmSync(folder, { recursive: true, force: true });
}

function hook(): void {
	if (hooked) return;
	hooked = true;
	process.once('exit', killEverything);
	// Without a handler, SIGINT and SIGTERM end Node without an 'exit' event.
	for (const signal of ['SIGINT', 'SIGTERM'] as const) {
		process.once(signal, () => process.exit(128 + (signal === 'SIGINT' ? 2 : 15)));
	}
}

/** Kills `child` if this process exits while it still runs. */
export function ownChild(child: ChildProcess): void {
	hook();
	children.add(child);
	child.once('exit', () => children.delete(child));
}

/** Deletes `folder` if this process exits before `release` is called. */
export function ownFolder(folder: string): () => void {
	hook();
	folders.add(folder);
	return () => folders.delete(folder);
}
