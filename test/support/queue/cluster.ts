// n8n in queue mode on one machine, laid out as n8n's queue-mode docs describe it: one main (editor, API, the
// leader's timers; production webhooks off), workers that take executions from Redis through Bull, webhook
// processors that receive production webhooks and resume calls, all sharing one PostgreSQL database and one
// encryption key; a router in front sends webhooks to the processors in turn. The pack is installed into every
// process's `~/.n8n/nodes` as users install it. Binary data is left to n8n's own default for queue mode, `database`
// from n8n 2.0 (filesystem mode is not meant for several processes); the suite checks binary ids say so.
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { N8nApi } from '../n8n/rest';
import { installIntoUserFolder, packPackage } from '../n8n/package';
import {
	quietN8nEnvironment,
	startN8nProcess,
	stopN8nProcess,
	type N8nProcess,
} from '../n8n/n8n-process';
import { freePort, run, type CommandResult } from '../n8n/processes';
import { n8nInstall, type N8nInstall, type N8nVersionId } from '../n8n/versions';
import type { WorkflowJson } from '../n8n/workflows';
import { ownChild } from './children';
import { WebhookRouter } from '../n8n/webhook-router';
import { startPostgres, startRedis, type RunningPostgres, type RunningRedis } from './services';

export type ProcessRole = 'main' | 'worker' | 'webhook';

export interface CredentialFile {
	id: string;
	name: string;
	type: string;
	data: Record<string, unknown>;
}

export interface QueueClusterOptions {
	versionId: N8nVersionId;
	/** Emptied, then holds every process's user folder and log. */
	workDir: string;
	workers?: number;
	webhookProcessors?: number;
	/** Executions one worker runs at a time (`n8n worker --concurrency`). */
	workerConcurrency?: number;
	/** A tarball to install instead of packing this checkout's dist/ (e.g. an older commit's, for a before/after). */
	tarball?: string;
	/** Built once the router's address is known (webhook and resume URLs depend on it). */
	credentials: CredentialFile[];
	workflows: (routerBaseUrl: string) => WorkflowJson[];
	activate?: string[];
}

const ENCRYPTION_KEY = 'tss-queue-encryption-key';

/** One n8n process of the cluster. */
export class QueueProcess {
	readonly logFile: string;
	readonly baseUrl: string | undefined;
	private spawned: N8nProcess | undefined;

	constructor(
		readonly name: string,
		readonly role: ProcessRole,
		private readonly install: N8nInstall,
		readonly userFolder: string,
		private readonly environment: NodeJS.ProcessEnv,
		/** The HTTP port: the server's for main and webhook processors, the health check's for workers. */
		readonly port: number,
		private readonly args: string[],
	) {
		this.logFile = path.join(userFolder, 'n8n.log');
		this.baseUrl = `http://127.0.0.1:${port}`;
	}

	get pid(): number | undefined {
		return this.spawned?.child.pid;
	}

	get running(): boolean {
		const child = this.spawned?.child;
		return child !== undefined && child.exitCode === null && child.signalCode === null;
	}

	async cli(args: string[]): Promise<CommandResult> {
		return await run(this.install.nodeBinary, [this.install.n8nBin, ...args], {
			env: this.environment,
			cwd: this.userFolder,
			timeoutMs: 240_000,
		});
	}

	async start(): Promise<void> {
		if (this.running) return;
		this.spawned = await startN8nProcess({
			install: this.install,
			args: this.args,
			env: this.environment,
			cwd: this.userFolder,
			logFile: this.logFile,
			what: `n8n ${this.role} "${this.name}" on ${this.baseUrl}`,
			// The main's readiness probe answers before the REST routes exist; the settings route is among the last.
			readyUrl: `${this.baseUrl}${this.role === 'main' ? '/rest/settings' : '/healthz/readiness'}`,
			timeoutMs: 300_000,
			onSpawn: ownChild,
		});
	}

	async stop(): Promise<void> {
		const running = this.spawned;
		this.spawned = undefined;
		if (running) await stopN8nProcess(running, 30_000);
	}

	/** Resident memory of the process now (bytes), from /proc. */
	async rssBytes(): Promise<number> {
		return (await procStatusKiB(this.pid, 'VmRSS')) * 1024;
	}

	/** Peak resident memory since start or the last resetPeakRss() (bytes), from /proc. */
	async peakRssBytes(): Promise<number> {
		return (await procStatusKiB(this.pid, 'VmHWM')) * 1024;
	}

	/** Starts a new peak-RSS measurement (Linux: writing 5 to clear_refs resets VmHWM to the current RSS). */
	async resetPeakRss(): Promise<void> {
		if (this.pid === undefined) throw new Error(`${this.name} is not running`);
		await writeFile(`/proc/${this.pid}/clear_refs`, '5');
	}

	async log(): Promise<string> {
		return stripAnsi(await readFile(this.logFile, 'utf8').catch(() => ''));
	}
}

async function procStatusKiB(pid: number | undefined, field: string): Promise<number> {
	if (pid === undefined) throw new Error('the process is not running');
	const status = await readFile(`/proc/${pid}/status`, 'utf8');
	const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
	if (!match) throw new Error(`/proc/${pid}/status has no ${field}`);
	return Number(match[1]);
}

function stripAnsi(text: string): string {
	// eslint-disable-next-line no-control-regex
	return text.replace(/\u001b\[[0-9;]*m/g, '');
}

export interface QueueCluster {
	install: N8nInstall;
	postgres: RunningPostgres;
	redis: RunningRedis;
	router: WebhookRouter;
	main: QueueProcess;
	workers: QueueProcess[];
	webhookProcessors: QueueProcess[];
	/** The main's public and REST API, signed in as the owner. */
	api: N8nApi;
	/** Where the Read/Write Files from Disk node may read (shared by every process, like a mounted volume). */
	filesFolder: string;
	/** Which worker ran each execution, from the workers' logs (an execution that paused appears once per run). */
	workerRuns(): Promise<WorkerRun[]>;
	stop(): Promise<void>;
}

export interface WorkerRun {
	worker: string;
	executionId: string;
	job: string;
}

/** "Worker started execution 12 (job 34)" — the only record of which worker ran what (n8n's DB keeps none). */
export function parseWorkerRuns(worker: string, log: string): WorkerRun[] {
	return [...log.matchAll(/Worker started execution (\d+) \(job (\d+)\)/g)].map((match) => ({
		worker,
		executionId: match[1],
		job: match[2],
	}));
}

export async function startQueueCluster(options: QueueClusterOptions): Promise<QueueCluster> {
	const install = n8nInstall(options.versionId);
	await rm(options.workDir, { recursive: true, force: true });
	await mkdir(options.workDir, { recursive: true });
	const filesFolder = path.join(options.workDir, 'files');
	await mkdir(filesFolder, { recursive: true });

	const stoppers: Array<() => Promise<void>> = [];
	const stop = async () => {
		for (const stopOne of stoppers.splice(0).reverse()) {
			await stopOne().catch((error: unknown) =>
				process.stderr.write(`[queue] stopping: ${(error as Error).message}\n`),
			);
		}
	};
	try {
		const [postgres, redis] = await Promise.all([
			startPostgres(path.join(options.workDir, 'postgres.log')),
			startRedis(path.join(options.workDir, 'redis.log')),
		]);
		stoppers.push(postgres.stop, redis.stop);

		const mainPort = await freePort();
		const webhookCount = options.webhookProcessors ?? 2;
		const webhookPorts = await Promise.all(Array.from({ length: webhookCount }, () => freePort()));
		const router = await WebhookRouter.start(
			{ name: 'main', port: mainPort },
			webhookPorts.map((port, index) => ({ name: `webhook-${index + 1}`, port })),
		);
		stoppers.push(() => router.close());

		const shared: NodeJS.ProcessEnv = {
			...quietN8nEnvironment(install, process.env.QUEUE_N8N_LOG_LEVEL),
			N8N_ENCRYPTION_KEY: ENCRYPTION_KEY,
			// Resume URLs ($execution.resumeUrl) and the webhook URLs the editor shows point at the router.
			WEBHOOK_URL: `${router.baseUrl}/`,
			N8N_EDITOR_BASE_URL: `http://127.0.0.1:${mainPort}/`,
			N8N_RESTRICT_FILE_ACCESS_TO: filesFolder,
			N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '10',
			EXECUTIONS_MODE: 'queue',
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: postgres.host,
			DB_POSTGRESDB_PORT: String(postgres.port),
			DB_POSTGRESDB_DATABASE: postgres.database,
			DB_POSTGRESDB_USER: postgres.user,
			DB_POSTGRESDB_PASSWORD: '',
			// n8n's default pool of 2 connections makes a burst of uploads wait so long for one that the 5 s database
			// ping times out and the process answers 503 until the next ping; 10 per process is what operators set.
			DB_POSTGRESDB_POOL_SIZE: '10',
			QUEUE_BULL_REDIS_HOST: redis.host,
			QUEUE_BULL_REDIS_PORT: String(redis.port),
			// Parallel runs on one Redis would otherwise take each other's jobs.
			QUEUE_BULL_PREFIX: `tss-${path.basename(options.workDir)}-${process.pid}`,
		};

		const tarball = options.tarball ?? (await packPackage(options.workDir));
		const templateFolder = path.join(options.workDir, 'package-install');
		await installIntoUserFolder(templateFolder, tarball);

		const makeProcess = async (
			name: string,
			role: ProcessRole,
			port: number,
			args: string[],
			own: NodeJS.ProcessEnv,
		) => {
			const userFolder = path.join(options.workDir, name);
			// Every process has its own ~/.n8n, each with the package installed as users install it.
			await cp(path.join(templateFolder, '.n8n'), path.join(userFolder, '.n8n'), {
				recursive: true,
			});
			return new QueueProcess(
				name,
				role,
				install,
				userFolder,
				{
					...shared,
					...own,
					N8N_USER_FOLDER: userFolder,
					// Mains and workers run a task broker each; two on one port would collide.
					N8N_RUNNERS_BROKER_PORT: String(await freePort()),
				},
				port,
				args,
			);
		};

		const main = await makeProcess('main', 'main', mainPort, ['start'], {
			N8N_PORT: String(mainPort),
			// Production webhooks belong to the webhook processors.
			N8N_DISABLE_PRODUCTION_MAIN_PROCESS: 'true',
		});
		stoppers.push(() => main.stop());

		const credentialsFile = path.join(options.workDir, 'credentials.json');
		await writeFile(credentialsFile, JSON.stringify(options.credentials, null, 2));
		await main.cli(['import:credentials', `--input=${credentialsFile}`]);
		const workflows = options.workflows(router.baseUrl);
		if (workflows.length > 0) {
			const workflowsFolder = path.join(options.workDir, 'workflows');
			await mkdir(workflowsFolder, { recursive: true });
			for (const workflow of workflows) {
				await writeFile(
					path.join(workflowsFolder, `${workflow.id}.json`),
					JSON.stringify(workflow, null, 2),
				);
			}
			await main.cli(['import:workflow', '--separate', `--input=${workflowsFolder}`]);
		}

		await main.start();
		const api = new N8nApi(main.baseUrl as string);
		await api.signIn();
		// Activated before the webhook processors start, so none of them caches a webhook as missing.
		for (const workflowId of options.activate ?? []) await api.activateWorkflow(workflowId);

		const concurrency = options.workerConcurrency ?? 5;
		const workers: QueueProcess[] = [];
		for (let index = 1; index <= (options.workers ?? 2); index++) {
			const healthPort = await freePort();
			workers.push(
				await makeProcess(
					`worker-${index}`,
					'worker',
					healthPort,
					['worker', `--concurrency=${concurrency}`],
					{
						QUEUE_HEALTH_CHECK_ACTIVE: 'true',
						QUEUE_HEALTH_CHECK_PORT: String(healthPort),
						N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
					},
				),
			);
		}
		const webhookProcessors: QueueProcess[] = [];
		for (const [index, port] of webhookPorts.entries()) {
			webhookProcessors.push(
				await makeProcess(`webhook-${index + 1}`, 'webhook', port, ['webhook'], {
					N8N_PORT: String(port),
				}),
			);
		}
		for (const child of [...workers, ...webhookProcessors]) stoppers.push(() => child.stop());
		await Promise.all([...workers, ...webhookProcessors].map((child) => child.start()));

		return {
			install,
			postgres,
			redis,
			router,
			main,
			workers,
			webhookProcessors,
			api,
			filesFolder,
			async workerRuns() {
				const runs = await Promise.all(
					workers.map(async (worker) => parseWorkerRuns(worker.name, await worker.log())),
				);
				return runs.flat();
			},
			stop,
		};
	} catch (error) {
		await stop();
		throw error;
	}
}
