// One n8n server process: its environment's common part, its start (log, readiness, early exit) and its stop.
// The e2e suite's single n8n and every process of the queue cluster start and stop through here.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import path from 'node:path';

import { waitFor } from './processes';
import type { N8nInstall } from './versions';

/** The caller's environment without its n8n, npm, jest or database settings (jest's NODE_ENV=test silences n8n),
 * plus what every n8n here runs with: production, quiet, offline, on loopback, in UTC. */
export function quietN8nEnvironment(install: N8nInstall, logLevel = 'info'): NodeJS.ProcessEnv {
	const inherited = Object.fromEntries(
		Object.entries(process.env).filter(
			([name]) => !/^(N8N_|npm_|JEST_|DB_|QUEUE_|EXECUTIONS_)/.test(name) && name !== 'NODE_ENV',
		),
	);
	return {
		...inherited,
		NODE_ENV: 'production',
		PATH: `${path.dirname(install.nodeBinary)}:${process.env.PATH ?? ''}`,
		N8N_HOST: '127.0.0.1',
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_PROTOCOL: 'http',
		N8N_SECURE_COOKIE: 'false',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		// The list of verified community packages comes from api.n8n.io, unreachable here.
		N8N_VERIFIED_PACKAGES_ENABLED: 'false',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		N8N_LOG_LEVEL: logLevel,
		N8N_LOG_OUTPUT: 'console',
		GENERIC_TIMEZONE: 'UTC',
		TZ: 'UTC',
	};
}

export interface N8nProcessOptions {
	install: N8nInstall;
	/** `start`, `worker --concurrency=5`, `webhook`. */
	args: string[];
	env: NodeJS.ProcessEnv;
	cwd: string;
	/** stdout and stderr are appended here. */
	logFile: string;
	/** Names the process in errors: "n8n 2.8.4 on http://…". */
	what: string;
	/** Answers 200 with JSON once the process serves what the tests need. */
	readyUrl: string;
	timeoutMs: number;
	/** Called as soon as the process exists, before readiness (to kill it with the test run, for instance). */
	onSpawn?: (child: ChildProcess) => void;
}

export interface N8nProcess {
	child: ChildProcess;
	exited: Promise<void>;
}

/** Starts n8n and resolves once `readyUrl` answers JSON; kills it and rejects if it exits or times out first. */
export async function startN8nProcess(options: N8nProcessOptions): Promise<N8nProcess> {
	const log = createWriteStream(options.logFile, { flags: 'a' });
	const child = spawn(options.install.nodeBinary, [options.install.n8nBin, ...options.args], {
		env: options.env,
		cwd: options.cwd,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	options.onSpawn?.(child);
	child.stdout?.pipe(log);
	child.stderr?.pipe(log);
	const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
	const ready = waitFor(
		`${options.what} (log: ${options.logFile})`,
		async () => {
			// Until the REST routes exist every path answers 200 "n8n is starting up" in HTML, so only JSON counts.
			const response = await fetch(options.readyUrl);
			const isJson = response.headers.get('content-type')?.includes('application/json') ?? false;
			await response.body?.cancel();
			return response.ok && isJson ? true : undefined;
		},
		{ timeoutMs: options.timeoutMs, intervalMs: 500 },
	);
	const exitedEarly = exited.then(() => {
		throw new Error(
			`${options.what} exited during start-up (code ${child.exitCode}); see ${options.logFile}`,
		);
	});
	await Promise.race([ready, exitedEarly]).catch((error: unknown) => {
		child.kill('SIGKILL');
		throw error;
	});
	return { child, exited };
}

/** SIGTERM, then SIGKILL if n8n's graceful shutdown has not ended after `graceMs`. */
export async function stopN8nProcess(running: N8nProcess, graceMs: number): Promise<void> {
	const { child, exited } = running;
	if (child.exitCode !== null || child.signalCode !== null) return;
	child.kill('SIGTERM');
	const killLater = setTimeout(() => child.kill('SIGKILL'), graceMs);
	await exited;
	clearTimeout(killLater);
}
