// One real n8n: its user folder, its CLI, its server process.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';

import { freePort, run, waitFor } from './processes';
import type { CommandResult } from './processes';
import type { N8nInstall } from './versions';

export interface N8nOptions {
	install: N8nInstall;
	/** Holds `.n8n/` (database, nodes, binary data) and the log. */
	userFolder: string;
	/** Folder the Read/Write Files from Disk node may use. */
	filesFolder: string;
	port?: number;
}

export class N8nInstance {
	readonly install: N8nInstall;
	readonly userFolder: string;
	readonly port: number;
	readonly baseUrl: string;
	readonly logFile: string;
	private readonly filesFolder: string;
	private server: ChildProcess | undefined;
	private exited: Promise<void> | undefined;

	private constructor(options: N8nOptions, port: number) {
		this.install = options.install;
		this.userFolder = options.userFolder;
		this.filesFolder = options.filesFolder;
		this.port = port;
		this.baseUrl = `http://127.0.0.1:${port}`;
		this.logFile = path.join(options.userFolder, 'n8n.log');
	}

	static async create(options: N8nOptions): Promise<N8nInstance> {
		await mkdir(options.userFolder, { recursive: true });
		await mkdir(options.filesFolder, { recursive: true });
		return new N8nInstance(options, options.port ?? (await freePort()));
	}

	/** The environment a user's n8n would have, quiet and offline, on loopback only. */
	private async environment(): Promise<NodeJS.ProcessEnv> {
		// Nothing of the caller's n8n, npm or jest settings leaks in (jest's NODE_ENV=test silences n8n).
		const inherited = Object.fromEntries(
			Object.entries(process.env).filter(
				([name]) => !/^(N8N_|npm_|JEST_)/.test(name) && name !== 'NODE_ENV',
			),
		);
		return {
			...inherited,
			NODE_ENV: 'production',
			PATH: `${path.dirname(this.install.nodeBinary)}:${process.env.PATH ?? ''}`,
			N8N_USER_FOLDER: this.userFolder,
			N8N_ENCRYPTION_KEY: 'tss-e2e-encryption-key',
			N8N_PORT: String(this.port),
			N8N_HOST: '127.0.0.1',
			N8N_LISTEN_ADDRESS: '127.0.0.1',
			N8N_PROTOCOL: 'http',
			WEBHOOK_URL: `${this.baseUrl}/`,
			N8N_EDITOR_BASE_URL: `${this.baseUrl}/`,
			N8N_SECURE_COOKIE: 'false',
			N8N_DIAGNOSTICS_ENABLED: 'false',
			N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
			N8N_PERSONALIZATION_ENABLED: 'false',
			N8N_TEMPLATES_ENABLED: 'false',
			N8N_HIRING_BANNER_ENABLED: 'false',
			// The list of verified community packages comes from api.n8n.io, unreachable here.
			N8N_VERIFIED_PACKAGES_ENABLED: 'false',
			N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem',
			N8N_RESTRICT_FILE_ACCESS_TO: this.filesFolder,
			N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
			N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '5',
			N8N_LOG_LEVEL: process.env.E2E_N8N_LOG_LEVEL ?? 'info',
			N8N_LOG_OUTPUT: 'console',
			// Each process gets its own task-broker port so several n8n (other suites, `execute`) can run at once.
			N8N_RUNNERS_BROKER_PORT: String(await freePort()),
			DB_SQLITE_POOL_SIZE: '2',
			GENERIC_TIMEZONE: 'UTC',
			TZ: 'UTC',
		};
	}

	/** Runs an n8n CLI command (import, execute, …) against this user folder. */
	async cli(
		args: string[],
		options: { allowFailure?: boolean; timeoutMs?: number } = {},
	): Promise<CommandResult> {
		return await run(this.install.nodeBinary, [this.install.n8nBin, ...args], {
			env: await this.environment(),
			cwd: this.userFolder,
			timeoutMs: options.timeoutMs ?? 180_000,
			allowFailure: options.allowFailure,
		});
	}

	async start(): Promise<void> {
		if (this.server) return;
		const log = createWriteStream(this.logFile, { flags: 'a' });
		const server = spawn(this.install.nodeBinary, [this.install.n8nBin, 'start'], {
			env: await this.environment(),
			cwd: this.userFolder,
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		server.stdout?.pipe(log);
		server.stderr?.pipe(log);
		this.server = server;
		this.exited = new Promise((resolve) => server.once('exit', () => resolve()));
		const ready = waitFor(
			`n8n ${this.install.n8nVersion} on ${this.baseUrl} (log: ${this.logFile})`,
			async () => {
				// The readiness probe answers before the REST routes exist, and until they do every path answers
				// 200 "n8n is starting up" in HTML; the settings route (JSON) is among the last to appear.
				const response = await fetch(`${this.baseUrl}/rest/settings`);
				const isJson = response.headers.get('content-type')?.includes('application/json') ?? false;
				await response.body?.cancel();
				return response.ok && isJson ? true : undefined;
			},
			{ timeoutMs: 240_000, intervalMs: 500 },
		);
		const exitedEarly = this.exited.then(() => {
			throw new Error(`n8n exited during start-up (code ${server.exitCode}); see ${this.logFile}`);
		});
		await Promise.race([ready, exitedEarly]).catch((error: unknown) => {
			server.kill('SIGKILL');
			throw error;
		});
	}

	async stop(): Promise<void> {
		const server = this.server;
		if (!server || !this.exited) return;
		this.server = undefined;
		if (server.exitCode === null && server.signalCode === null) {
			server.kill('SIGTERM');
			const killLater = setTimeout(() => server.kill('SIGKILL'), 20_000);
			await this.exited;
			clearTimeout(killLater);
		}
	}
}
