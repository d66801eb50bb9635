// P2 memory: a 1 GiB media file uploaded through Upload → Create Slot → Send Media and through Transcribe and
// Download, with n8n's binary data in filesystem mode, against the same upload done by n8n's HTTP Request node
// with the binary as its body. Each measurement runs in its own process (p2-memory-worker.ts) and the sandbox in
// another, so the figure is the n8n process's own peak RSS growth. With BENCH_N8N=<e2e install> (e.g. 2.41) the
// measuring process runs on that install's Node with its n8n-core, n8n-workflow and n8n-nodes-base
// (bench/lib/n8n-modules-of-install.cjs); otherwise on this repository's n8n-core.

import { spawn } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';

import { writeWavFile } from '../test/support/fixtures/media';
import { baseNodesAvailable, benchN8nVersion } from './lib/base-nodes-engine';
import { n8nInstall, WORK_DIR } from '../test/support/n8n/versions';
import { ratio, type ResultRow } from '../test/support/bench-results';
import type { MemoryMeasurement, MemoryMode } from './p2-memory-worker';

export interface MemoryBenchOptions {
	fileBytes: number;
}

const REPO_ROOT = path.resolve(__dirname, '..');
const TARGET_MIB = 64;
/** A high byte rate keeps the "recording" under an hour, so the sandbox's transcript stays small. */
const WAV_FORMAT = { sampleRate: 48_000, channels: 2, bitsPerSample: 32 };
const WORKER_TIMEOUT_MS = 20 * 60 * 1000;

interface SandboxProcess {
	baseUrl: string;
	apiKey: string;
	stop(): Promise<void>;
}

/** The sandbox CLI in a child process; resolves once it prints its ready line. */
async function startSandboxProcess(): Promise<SandboxProcess> {
	const child = spawn(
		process.execPath,
		['--import', 'tsx', 'sandbox/cli.ts', '--port', '0', '--quiet', '--job-seconds', '1'],
		{
			cwd: REPO_ROOT,
			stdio: ['ignore', 'pipe', 'inherit'],
		},
	);
	const lines = createInterface({ input: child.stdout });
	const ready = await new Promise<{ base_url: string; keys: { platinum_live: { key: string } } }>(
		(resolve, reject) => {
			child.once('exit', (code) =>
				reject(new Error(`the sandbox exited with ${code} before it was ready`)),
			);
			lines.once('line', (line) =>
				resolve(JSON.parse(line) as { base_url: string; keys: { platinum_live: { key: string } } }),
			);
		},
	);
	// Drain the help text so the child never blocks on a full pipe.
	child.stdout.resume();
	return {
		baseUrl: ready.base_url,
		apiKey: ready.keys.platinum_live.key,
		stop: () =>
			new Promise<void>((resolve) => {
				if (child.exitCode !== null) return resolve();
				child.once('exit', () => resolve());
				child.kill('SIGTERM');
			}),
	};
}

/** The engine the measurement runs in: this repository's n8n-core, or that of the e2e install BENCH_N8N names. */
interface Engine {
	label: string;
	node: string;
	preload: string[];
	env: NodeJS.ProcessEnv;
}

function engine(): Engine {
	if (!process.env.BENCH_N8N) {
		const core = JSON.parse(
			readFileSync(path.join(REPO_ROOT, 'node_modules/n8n-core/package.json'), 'utf8'),
		) as { version: string };
		return {
			label: `n8n-core ${core.version}`,
			node: process.execPath,
			preload: [],
			env: process.env,
		};
	}
	const install = n8nInstall(benchN8nVersion());
	const root = realpathSync(path.join(WORK_DIR, `n8n-${install.id}`));
	const core = JSON.parse(
		readFileSync(path.join(root, 'node_modules/n8n-core/package.json'), 'utf8'),
	) as { version: string };
	return {
		label: `n8n ${install.n8nVersion} (n8n-core ${core.version}, Node ${install.nodeVersion})`,
		node: install.nodeBinary,
		preload: ['--require', path.join(REPO_ROOT, 'bench/lib/n8n-modules-of-install.cjs')],
		env: { ...process.env, BENCH_N8N_ROOT: root },
	};
}

async function runWorker(
	mode: MemoryMode,
	filePath: string,
	sandbox: SandboxProcess,
	engine: Engine,
): Promise<MemoryMeasurement> {
	const child = spawn(
		engine.node,
		[
			...engine.preload,
			'--expose-gc',
			'--import',
			'tsx',
			'bench/p2-memory-worker.ts',
			mode,
			filePath,
			sandbox.baseUrl,
			sandbox.apiKey,
		],
		{
			cwd: REPO_ROOT,
			env: engine.env,
			stdio: ['ignore', 'pipe', 'inherit'],
			timeout: WORKER_TIMEOUT_MS,
		},
	);
	let output = '';
	child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
	const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
	const line = output.trim().split('\n').at(-1) ?? '';
	if (code !== 0 || !line.startsWith('{'))
		throw new Error(`P2 worker ${mode} exited with ${code}: ${output.slice(-500)}`);
	return JSON.parse(line) as MemoryMeasurement;
}

export async function runMemoryBenchmark(options: MemoryBenchOptions): Promise<ResultRow[]> {
	const scratch = await mkdtemp(path.join(tmpdir(), 'tss-p2-'));
	const sizeMiB = Math.round(options.fileBytes / (1024 * 1024));
	const sandbox = await startSandboxProcess();
	const measuredIn = engine();
	try {
		const filePath = path.join(scratch, `p2-${sizeMiB}MiB.wav`);
		await writeWavFile(filePath, { bytes: options.fileBytes, ...WAV_FORMAT });
		const sendMedia = await runWorker('sendMedia', filePath, sandbox, measuredIn);
		const transcribe = await runWorker('transcribeAndDownload', filePath, sandbox, measuredIn);
		const httpRequest = baseNodesAvailable()
			? await runWorker('httpRequest', filePath, sandbox, measuredIn)
			: null;

		const size = sizeMiB >= 1024 ? `${sizeMiB / 1024} GiB` : `${sizeMiB} MiB`;
		const row = (metric: string, measurement: MemoryMeasurement): ResultRow => ({
			benchmark: 'P2',
			metric: `peak RSS growth, ${size} upload, ${metric}`,
			value: measurement.ok ? measurement.peakGrowthMiB : null,
			unit: 'MiB',
			...(httpRequest
				? {
						baseline: {
							label: 'HTTP Request node, binary body',
							value: httpRequest.ok ? httpRequest.peakGrowthMiB : null,
						},
					}
				: {}),
			...(httpRequest
				? { ratio: ratio(measurement.peakGrowthMiB, httpRequest.peakGrowthMiB) }
				: {}),
			target: `≤ ${TARGET_MIB} MiB`,
			meetsTarget: measurement.ok && measurement.peakGrowthMiB <= TARGET_MIB,
			note: `${measuredIn.label}, filesystem binary mode; ${measurement.seconds} s, RSS before ${measurement.rssBeforeMiB} MiB${measurement.ok ? '' : `; FAILED: ${measurement.detail}`}`,
		});
		const rows = [
			row('Create Slot → Send Media', sendMedia),
			row('Transcribe and Download', transcribe),
		];
		if (httpRequest) {
			rows.push({
				benchmark: 'P2',
				metric: `peak RSS growth, ${size} upload, HTTP Request node (baseline)`,
				value: httpRequest.ok ? httpRequest.peakGrowthMiB : null,
				unit: 'MiB',
				note: `${measuredIn.label}; ${httpRequest.seconds} s, RSS before ${httpRequest.rssBeforeMiB} MiB${httpRequest.ok ? '' : `; FAILED: ${httpRequest.detail}`}`,
			});
		} else {
			rows[0].note += `; HTTP Request baseline not run: n8n ${benchN8nVersion()} of the e2e suite is not installed (scripts/e2e/install.sh ${benchN8nVersion()})`;
		}
		return rows;
	} finally {
		await sandbox.stop();
		await rm(scratch, { recursive: true, force: true });
	}
}
