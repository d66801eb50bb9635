// Child processes and ports for the e2e harness.
import { spawn } from 'node:child_process';
import type { SpawnOptions } from 'node:child_process';
import { createServer } from 'node:net';

/** A loopback port nobody listens on right now. */
export async function freePort(): Promise<number> {
	return await new Promise((resolve, reject) => {
		const server = createServer();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const address = server.address();
			const port = typeof address === 'object' && address !== null ? address.port : 0;
			server.close(() => resolve(port));
		});
	});
}

export interface CommandResult {
	code: number | null;
	stdout: string;
	stderr: string;
}

/** Runs a command to completion; rejects on a non-zero exit unless `allowFailure`. */
export async function run(
	command: string,
	args: string[],
	options: SpawnOptions & { allowFailure?: boolean; timeoutMs?: number } = {},
): Promise<CommandResult> {
	const { allowFailure, timeoutMs, ...spawnOptions } = options;
	return await new Promise((resolve, reject) => {
		const child = spawn(command, args, { ...spawnOptions, stdio: ['ignore', 'pipe', 'pipe'] });
		let stdout = '';
		let stderr = '';
		child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
		child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
		const timer = timeoutMs ? setTimeout(() => child.kill('SIGKILL'), timeoutMs) : undefined;
		child.once('error', reject);
		child.once('close', (code) => {
			if (timer) clearTimeout(timer);
			const result = { code, stdout, stderr };
			if (code !== 0 && !allowFailure) {
				reject(
					new Error(
						`${command} ${args.join(' ')} exited with ${code}\n${stderr.slice(-4000)}${stdout.slice(-2000)}`,
					),
				);
			} else {
				resolve(result);
			}
		});
	});
}

export async function waitFor<T>(
	what: string,
	probe: () => Promise<T | undefined>,
	{ timeoutMs = 60_000, intervalMs = 250 } = {},
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	let lastError: unknown;
	while (Date.now() < deadline) {
		try {
			const value = await probe();
			if (value !== undefined) return value;
		} catch (error) {
			lastError = error;
		}
		await new Promise((resolve) => setTimeout(resolve, intervalMs));
	}
	const reason = lastError instanceof Error ? `: ${lastError.message}` : '';
	throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}${reason}`);
}
