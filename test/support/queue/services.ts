// The two services n8n's queue mode needs, each a private instance on loopback for one run: PostgreSQL 15 (the
// executions, workflows and binary data of every n8n process) and Redis 7 (the Bull queue between them). Both come
// from Debian's packages (scripts/queue/install.sh installs them when missing) and live in a temp folder that is
// deleted when they stop.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { freePort, run, waitFor } from '../n8n/processes';
import { ownChild, ownFolder } from './children';

export const POSTGRES_BIN_DIR = process.env.QUEUE_POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin';
export const REDIS_SERVER = process.env.QUEUE_REDIS_SERVER ?? 'redis-server';

export interface RunningPostgres {
	host: '127.0.0.1';
	port: number;
	database: string;
	user: string;
	version: string;
	stop(): Promise<void>;
}

export interface RunningRedis {
	host: '127.0.0.1';
	port: number;
	version: string;
	stop(): Promise<void>;
}

/** Whether this machine has what startPostgres and startRedis run, or why not. */
export function servicesUnavailable(): string | null {
	if (!existsSync(path.join(POSTGRES_BIN_DIR, 'postgres')))
		return `PostgreSQL 15 is not installed (${POSTGRES_BIN_DIR}): run scripts/queue/install.sh`;
	try {
		execFileSync(REDIS_SERVER, ['--version'], { stdio: 'ignore' });
	} catch {
		return `${REDIS_SERVER} is not installed: run scripts/queue/install.sh`;
	}
	return null;
}

/**
 * PostgreSQL refuses to run as root: as root the cluster belongs to the `postgres` user Debian's package creates;
 * otherwise to whoever runs this.
 */
function clusterOwner(): { uid: number; gid: number } | undefined {
	if (process.getuid?.() !== 0) return undefined;
	const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
	const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
	return { uid, gid };
}

function exitOf(child: ChildProcess): Promise<void> {
	return new Promise((resolve) => {
		if (child.exitCode !== null || child.signalCode !== null) resolve();
		else child.once('exit', () => resolve());
	});
}

async function stopChild(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
	const exited = exitOf(child);
	if (child.exitCode === null && child.signalCode === null) {
		child.kill(signal);
		const killLater = setTimeout(() => child.kill('SIGKILL'), 15_000);
		await exited;
		clearTimeout(killLater);
	}
}

export async function startPostgres(logFile: string): Promise<RunningPostgres> {
	const owner = clusterOwner();
	const folder = await mkdtemp(path.join(tmpdir(), 'tss-queue-postgres-'));
	const releaseFolder = ownFolder(folder);
	if (owner) await chown(folder, owner.uid, owner.gid);
	const dataDir = path.join(folder, 'data');
	const user = 'n8n';
	const database = 'n8n';
	const asOwner = owner ? { uid: owner.uid, gid: owner.gid } : {};
	const env = { ...process.env, LC_ALL: 'C', HOME: folder };
	const bin = (name: string) => path.join(POSTGRES_BIN_DIR, name);
	const version = execFileSync(bin('postgres'), ['--version'], { encoding: 'utf8' }).trim();

	await run(
		bin('initdb'),
		['-D', dataDir, '-U', user, '--auth=trust', '--encoding=UTF8', '--locale=C', '--no-sync'],
		{ ...asOwner, env, cwd: folder },
	);
	const port = await freePort();
	const log = createWriteStream(logFile, { flags: 'a' });
	// A throwaway cluster: durability settings off, loopback only, the socket in its own folder.
	const server = spawn(
		bin('postgres'),
		[
			'-D',
			dataDir,
			'-p',
			String(port),
			'-k',
			folder,
			'-c',
			'listen_addresses=127.0.0.1',
			'-c',
			'fsync=off',
			'-c',
			'synchronous_commit=off',
			'-c',
			'full_page_writes=off',
			'-c',
			'max_connections=200',
		],
		{ ...asOwner, env, cwd: folder, stdio: ['ignore', 'pipe', 'pipe'] },
	);
	ownChild(server);
	server.stdout?.pipe(log);
	server.stderr?.pipe(log);
	const stop = async () => {
		// SIGINT is PostgreSQL's "fast" shutdown: open connections are closed, nothing waits for clients.
		await stopChild(server, 'SIGINT');
		await rm(folder, { recursive: true, force: true });
		releaseFolder();
	};
	try {
		await waitFor(
			`PostgreSQL on 127.0.0.1:${port} (log: ${logFile})`,
			async () => {
				if (server.exitCode !== null) throw new Error(`postgres exited with ${server.exitCode}`);
				const probe = await run(
					bin('pg_isready'),
					['-h', '127.0.0.1', '-p', String(port), '-U', user],
					{ allowFailure: true, env },
				);
				return probe.code === 0 ? true : undefined;
			},
			{ timeoutMs: 60_000, intervalMs: 200 },
		);
		await run(bin('createdb'), ['-h', '127.0.0.1', '-p', String(port), '-U', user, database], {
			env,
		});
	} catch (error) {
		await stop();
		throw error;
	}
	return { host: '127.0.0.1', port, database, user, version, stop };
}

export async function startRedis(logFile: string): Promise<RunningRedis> {
	const folder = await mkdtemp(path.join(tmpdir(), 'tss-queue-redis-'));
	const releaseFolder = ownFolder(folder);
	const port = await freePort();
	const version = execFileSync(REDIS_SERVER, ['--version'], { encoding: 'utf8' }).trim();
	const log = createWriteStream(logFile, { flags: 'a' });
	// Nothing persisted, loopback only.
	const server = spawn(
		REDIS_SERVER,
		[
			'--port',
			String(port),
			'--bind',
			'127.0.0.1',
			'--save',
			'',
			'--appendonly',
			'no',
			'--dir',
			folder,
		],
		{ cwd: folder, stdio: ['ignore', 'pipe', 'pipe'] },
	);
	ownChild(server);
	let output = '';
	server.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
	server.stdout?.pipe(log);
	server.stderr?.pipe(log);
	const stop = async () => {
		await stopChild(server, 'SIGTERM');
		await rm(folder, { recursive: true, force: true });
		releaseFolder();
	};
	try {
		await waitFor(
			`Redis on 127.0.0.1:${port} (log: ${logFile})`,
			async () => {
				if (server.exitCode !== null)
					throw new Error(`redis-server exited with ${server.exitCode}`);
				return output.includes('Ready to accept connections') ? true : undefined;
			},
			{ timeoutMs: 30_000, intervalMs: 100 },
		);
	} catch (error) {
		await stop();
		throw error;
	}
	return { host: '127.0.0.1', port, version, stop };
}

/** Bytes of n8n's binary data in PostgreSQL (binary data mode "database"): what the cluster's executions stored there. */
export async function databaseBinaryBytes(postgres: RunningPostgres): Promise<number> {
	const { stdout } = await run(path.join(POSTGRES_BIN_DIR, 'psql'), [
		'-h',
		postgres.host,
		'-p',
		String(postgres.port),
		'-U',
		postgres.user,
		'-tAc',
		'SELECT coalesce(sum(octet_length(data)), 0) FROM binary_data',
		postgres.database,
	]);
	return Number(stdout.trim());
}
