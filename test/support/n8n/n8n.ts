// One real n8n: its user folder, its CLI, its server process.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';

import {
	quietN8nEnvironment,
	startN8nProcess,
	stopN8nProcess,
	type N8nProcess,
} from './n8n-process';
import { freePort, run } from './processes';
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
	private server: N8nProcess | undefined;

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
		return {
			...quietN8nEnvironment(this.install, process.env.E2E_N8N_LOG_LEVEL),
			N8N_USER_FOLDER: this.userFolder,
			N8N_ENCRYPTION_KEY: 'tss-e2e-encryption-key',
			N8N_PORT: String(this.port),
			WEBHOOK_URL: `${this.baseUrl}/`,
			N8N_EDITOR_BASE_URL: `${this.baseUrl}/`,
			N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem',
			N8N_RESTRICT_FILE_ACCESS_TO: this.filesFolder,
			N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '5',
			// Each process gets its own task-broker port so several n8n (other suites, `execute`) can run at once; never
			// the server's own port, which is free too until n8n binds it.
			N8N_RUNNERS_BROKER_PORT: String(await this.brokerPort()),
			DB_SQLITE_POOL_SIZE: '2',
		};
	}

	private async brokerPort(): Promise<number> {
		let port = await freePort();
		while (port === this.port) port = await freePort();
		return port;
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
		this.server = await startN8nProcess({
			install: this.install,
			args: ['start'],
			env: await this.environment(),
			cwd: this.userFolder,
			logFile: this.logFile,
			what: `n8n ${this.install.n8nVersion} on ${this.baseUrl}`,
			// The readiness probe answers before the REST routes exist; the settings route is among the last to appear.
			readyUrl: `${this.baseUrl}/rest/settings`,
			timeoutMs: 240_000,
		});
	}

	async stop(): Promise<void> {
		const server = this.server;
		this.server = undefined;
		if (server) await stopN8nProcess(server, 20_000);
	}
}
