// P2 memory: a 1 GiB media file uploaded through Upload → Create Slot → Send Media and through Transcribe and
// Download, with n8n's binary data in filesystem mode, against the same upload done by n8n's HTTP Request node
// with the binary as its body. Each measurement runs in its own process (p2-memory-worker.ts) and the sandbox in
// another, so the figures are the n8n process's own. Two instruments, each in its own process: the memory the upload
// retains (reachable after a full GC, sampled through the upload; the target, per GiB uploaded) and the peak RSS growth
// (which also counts the stream's chunks V8 has not yet collected, so it moves with GC timing and not with file size).
// With BENCH_N8N=<e2e install> (e.g. 2.41) the measuring process runs on that install's Node with its n8n-core,
// n8n-workflow and n8n-nodes-base (bench/lib/n8n-modules-of-install.cjs); otherwise on this repository's n8n-core.

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
import type { Instrument, MemoryMeasurement, MemoryMode } from './p2-memory-worker';

export interface MemoryBenchOptions {
	fileBytes: number;
}

const REPO_ROOT = path.resolve(__dirname, '..');
const GIB = 1024 * 1024 * 1024;
/** Retained memory per GiB uploaded: well under what holding the file costs (1,024 MiB per GiB). */
const TARGET_MIB_PER_GIB = 16;
/** The HTTP Request node reads the whole file into one Buffer; above this it would need as much free memory. */
const BASELINE_MAX_BYTES = GIB;
/** A high byte rate keeps the "recording" under an hour, so the sandbox's transcript stays small. */
const WAV_FORMAT = { sampleRate: 48_000, channels: 2, bitsPerSample: 32 };
const WORKER_TIMEOUT_MS = 20 * 60 * 1000;

export interface SandboxProcess {
	baseUrl: string;
	apiKey: string;
	stop(): Promise<void>;
}

/** The sandbox CLI in a child process; resolves once it prints its ready line. */
export async function startSandboxProcess(): Promise<SandboxProcess> {
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
export interface Engine {
	label: string;
	node: string;
	preload: string[];
	env: NodeJS.ProcessEnv;
}

export function engine(): Engine {
	if (!process.env.BENCH_N8N) {
		const core = JSON.parse(
			readFileSync(path.join(REPO_ROOT, 'node_modules/n8n-core/package.json'), 'utf8'),
		) as { version: string };
		return {
			label: `n8n-core ${core.version}, Node ${process.version}`,
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

const INSTRUMENT_FLAGS: Record<Instrument, string[]> = {
	peakRss: ['--expose-gc'],
	retained: ['--expose-gc', '--no-concurrent-array-buffer-sweeping'],
};

async function runWorker(
	mode: MemoryMode,
	instrument: Instrument,
	filePath: string,
	sandbox: SandboxProcess,
	engine: Engine,
): Promise<MemoryMeasurement> {
	return await runMeasuringWorker<MemoryMeasurement>(
		`P2 worker ${mode} ${instrument}`,
		engine,
		INSTRUMENT_FLAGS[instrument],
		['bench/p2-memory-worker.ts', mode, instrument, filePath, sandbox.baseUrl, sandbox.apiKey],
		WORKER_TIMEOUT_MS,
	);
}

/** Runs a benchmark worker (a TypeScript file and its arguments) in `engine` with `flags`; its last line is its JSON. */
export async function runMeasuringWorker<Measurement>(
	label: string,
	engine: Engine,
	flags: readonly string[],
	scriptAndArgs: readonly string[],
	timeoutMs: number,
): Promise<Measurement> {
	const child = spawn(
		engine.node,
		[...engine.preload, ...flags, '--import', 'tsx', ...scriptAndArgs],
		{
			cwd: REPO_ROOT,
			env: engine.env,
			stdio: ['ignore', 'pipe', 'inherit'],
			timeout: timeoutMs,
		},
	);
	let output = '';
	child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
	const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
	const line = output.trim().split('\n').at(-1) ?? '';
	if (code !== 0 || !line.startsWith('{'))
		throw new Error(`${label} exited with ${code}: ${output.slice(-500)}`);
	return JSON.parse(line) as Measurement;
}

interface Measurements {
	retained: MemoryMeasurement;
	peakRss: MemoryMeasurement;
}

async function measureBoth(
	mode: MemoryMode,
	filePath: string,
	sandbox: SandboxProcess,
	engine: Engine,
): Promise<Measurements> {
	return {
		retained: await runWorker(mode, 'retained', filePath, sandbox, engine),
		peakRss: await runWorker(mode, 'peakRss', filePath, sandbox, engine),
	};
}

const failure = (measurement: MemoryMeasurement) =>
	measurement.ok ? '' : `; FAILED: ${measurement.detail}`;

export async function runMemoryBenchmark(options: MemoryBenchOptions): Promise<ResultRow[]> {
	const scratch = await mkdtemp(path.join(tmpdir(), 'tss-p2-'));
	const sizeMiB = Math.round(options.fileBytes / (1024 * 1024));
	const sizeGiB = options.fileBytes / GIB;
	const size = sizeMiB >= 1024 ? `${sizeGiB} GiB` : `${sizeMiB} MiB`;
	const sandbox = await startSandboxProcess();
	const measuredIn = engine();
	try {
		const filePath = path.join(scratch, `p2-${sizeMiB}MiB.wav`);
		await writeWavFile(filePath, { bytes: options.fileBytes, ...WAV_FORMAT });
		const sendMedia = await measureBoth('sendMedia', filePath, sandbox, measuredIn);
		const transcribe = await measureBoth('transcribeAndDownload', filePath, sandbox, measuredIn);
		const baselineSkipped = !baseNodesAvailable()
			? `n8n ${benchN8nVersion()} of the e2e suite is not installed (scripts/e2e/install.sh ${benchN8nVersion()})`
			: options.fileBytes > BASELINE_MAX_BYTES
				? 'it holds the whole file in memory, so it runs at 1 GiB at most'
				: null;
		const httpRequest = baselineSkipped
			? null
			: await measureBoth('httpRequest', filePath, sandbox, measuredIn);

		const perGiB = (measurement: MemoryMeasurement) =>
			measurement.ok ? Math.round((measurement.peakGrowthMiB / sizeGiB) * 10) / 10 : null;
		const retainedRow = (metric: string, measured: Measurements): ResultRow => {
			const value = perGiB(measured.retained);
			const baseline = httpRequest ? perGiB(httpRequest.retained) : null;
			return {
				benchmark: 'P2',
				metric: `retained memory per GiB, ${size} upload, ${metric}`,
				value,
				unit: 'MiB',
				...(httpRequest
					? { baseline: { label: 'HTTP Request node, binary body', value: baseline } }
					: {}),
				...(httpRequest ? { ratio: ratio(value, baseline) } : {}),
				target: `≤ ${TARGET_MIB_PER_GIB} MiB per GiB`,
				meetsTarget: value !== null && value <= TARGET_MIB_PER_GIB,
				note: `${measuredIn.label}, filesystem binary mode; peak of heap used + external after a full GC, ${measured.retained.samples} GCs over ${measured.retained.seconds} s, ${measured.retained.afterGcRetainedGrowthMiB} MiB after the upload${failure(measured.retained)}`,
			};
		};
		const peakRssRow = (metric: string, measured: Measurements): ResultRow => {
			const { peakRss } = measured;
			const baseline = httpRequest?.peakRss.ok ? httpRequest.peakRss.peakGrowthMiB : null;
			return {
				benchmark: 'P2',
				metric: `peak RSS growth, ${size} upload, ${metric}`,
				value: peakRss.ok ? peakRss.peakGrowthMiB : null,
				unit: 'MiB',
				...(httpRequest
					? { baseline: { label: 'HTTP Request node, binary body', value: baseline } }
					: {}),
				...(httpRequest ? { ratio: ratio(peakRss.peakGrowthMiB, baseline) } : {}),
				note: `${measuredIn.label}; no target: it counts the stream's chunks not yet collected, which V8 frees at its next GC (docs/benchmarks.md); peak growth of V8's external memory ${peakRss.peakExternalGrowthMiB} MiB, heap used ${peakRss.peakHeapUsedGrowthMiB} MiB; ${peakRss.seconds} s, RSS before ${peakRss.rssBeforeMiB} MiB, ${peakRss.afterGcRssGrowthMiB} MiB after the upload and a GC${failure(peakRss)}`,
			};
		};
		const rows = [
			retainedRow('Create Slot → Send Media', sendMedia),
			retainedRow('Transcribe and Download', transcribe),
			peakRssRow('Create Slot → Send Media', sendMedia),
			peakRssRow('Transcribe and Download', transcribe),
		];
		if (httpRequest) {
			rows.push(
				{
					benchmark: 'P2',
					metric: `retained memory per GiB, ${size} upload, HTTP Request node (baseline)`,
					value: perGiB(httpRequest.retained),
					unit: 'MiB',
					note: `${measuredIn.label}; ${httpRequest.retained.samples} GCs over ${httpRequest.retained.seconds} s${failure(httpRequest.retained)}`,
				},
				{
					benchmark: 'P2',
					metric: `peak RSS growth, ${size} upload, HTTP Request node (baseline)`,
					value: httpRequest.peakRss.ok ? httpRequest.peakRss.peakGrowthMiB : null,
					unit: 'MiB',
					note: `${measuredIn.label}; peak growth of V8's external memory ${httpRequest.peakRss.peakExternalGrowthMiB} MiB; ${httpRequest.peakRss.seconds} s, RSS before ${httpRequest.peakRss.rssBeforeMiB} MiB${failure(httpRequest.peakRss)}`,
				},
			);
		} else {
			rows[0].note += `; HTTP Request baseline not run: ${baselineSkipped}`;
		}
		return rows;
	} finally {
		await sandbox.stop();
		await rm(scratch, { recursive: true, force: true });
	}
}
