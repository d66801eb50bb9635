// P9, transcribe from a URL: a recording (1 GiB by default) served on loopback by the test media host, generated as it
// is sent, goes to the sandbox by the flows of p9-media-link-worker.ts, each measured in a fresh process (the host and
// the sandbox in processes of their own, as P2's), against two baselines measured in the same run:
// - the bytes themselves piped by curl, `curl <link> | curl -T - <upload URL>`: the wall time of the upload;
// - the flow a user builds today, HTTP Request (GET, response as a file) → Transcribe and Download.
// Figures: memory the flow retains per GiB (P2's method, target ≤ 16 MiB), bytes it writes to n8n's binary-data store
// beyond the transcripts (target 0 when the host sends its length), and wall time (Send Media by URL beside the curl
// pipe, target ≤ 1.2×; Transcribe and Download by URL beside the two-node flow). Runs alternate, each figure is the
// median of `rounds`. BENCH_N8N=<e2e install> (2.41) runs the measuring process in that n8n's n8n-core (P2's engine()).
//
// Then, unless told not to, the same link on n8n's queue mode (one main, one worker, one webhook processor, PostgreSQL,
// binary data in "database" mode, its queue-mode default): a 2 GiB recording by URL with a Content-Length, one without
// (stored first: refused over N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE), and the two-node flow with 1 GiB (refused).
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';

import { SandboxAdmin } from '../sandbox/admin-client';
import { startSandbox } from '../sandbox/server';
import { startMediaHost } from '../test/support/media/media-host';
import { CREDENTIAL_TYPE } from '../test/support/n8n/environment';
import type { N8nVersionId } from '../test/support/n8n/versions';
import { startQueueCluster } from '../test/support/queue/cluster';
import { finishedExecutions, withData } from '../test/support/queue/executions';
import { databaseBinaryBytes, servicesUnavailable } from '../test/support/queue/services';
import { transcribeLinkWorkflow, TRANSCRIBE_NODE } from '../test/support/queue/workflows';
import { ratio, round, type ResultRow } from '../test/support/bench-results';
import { baseNodesAvailable, benchN8nVersion } from './lib/base-nodes-engine';
import {
	engine,
	runMeasuringWorker,
	startSandboxProcess,
	type Engine,
	type SandboxProcess,
} from './p2-memory';
import type { Flow, FlowMeasurement, P9Instrument } from './p9-media-link-worker';

const REPO_ROOT = path.resolve(__dirname, '..');
const MIB = 1024 * 1024;
const GIB = 1024 * MIB;
const TARGET_MIB_PER_GIB = 16;
const TARGET_TIME_RATIO = 1.2;
const WORKER_TIMEOUT_MS = 30 * 60 * 1000;
const run = promisify(execFile);

export interface MediaLinkBenchOptions {
	fileBytes: number;
	rounds: number;
	/** The queue-mode part, or null to leave it out. */
	queue: {
		versionId: N8nVersionId;
		linkBytes: number;
		noLengthBytes: number;
		baselineBytes: number;
	} | null;
}

interface MediaHostProcess {
	origin: string;
	stop(): Promise<void>;
}

async function startMediaHostProcess(): Promise<MediaHostProcess> {
	const child = spawn(process.execPath, ['--import', 'tsx', 'bench/lib/media-host-cli.ts'], {
		cwd: REPO_ROOT,
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	const line = await new Promise<string>((resolve, reject) => {
		child.once('exit', (code) => reject(new Error(`the media host exited with ${code}`)));
		createInterface({ input: child.stdout }).once('line', resolve);
	});
	return {
		origin: (JSON.parse(line) as { origin: string }).origin,
		stop: () =>
			new Promise<void>((resolve) => {
				if (child.exitCode !== null) return resolve();
				child.once('exit', () => resolve());
				child.kill('SIGTERM');
			}),
	};
}

const FLAGS: Record<P9Instrument, string[]> = {
	time: [],
	retained: ['--expose-gc', '--no-concurrent-array-buffer-sweeping'],
};

async function runWorker(
	flow: Flow,
	instrument: P9Instrument,
	bytes: number,
	host: MediaHostProcess,
	sandbox: SandboxProcess,
	measuredIn: Engine,
): Promise<FlowMeasurement> {
	return await runMeasuringWorker<FlowMeasurement>(
		`P9 worker ${flow} ${instrument}`,
		measuredIn,
		FLAGS[instrument],
		[
			'bench/p9-media-link-worker.ts',
			flow,
			instrument,
			host.origin,
			String(bytes),
			sandbox.baseUrl,
			sandbox.apiKey,
		],
		WORKER_TIMEOUT_MS,
	);
}

/** `curl <link> | curl -T - <upload URL>` into a fresh slot: the bytes moved with nothing else around them. */
async function rawPipe(
	bytes: number,
	host: MediaHostProcess,
	sandbox: SandboxProcess,
): Promise<number> {
	const slot = await fetch(`${sandbox.baseUrl}/api/v1/uploads`, {
		method: 'POST',
		headers: { authorization: `Bearer ${sandbox.apiKey}`, 'content-type': 'application/json' },
		body: JSON.stringify({ filename: 'p9-raw.wav', content_type: 'audio/wav', size_bytes: bytes }),
	});
	const { upload_url: uploadUrl } = (await slot.json()) as { upload_url: string };
	const link = `${host.origin}/generated/${bytes}/p9-raw.wav`;
	const download = `curl -sS --fail ${JSON.stringify(link)}`;
	const upload = [
		`curl -sS --fail -T - -H 'Expect:' -H 'Transfer-Encoding:' -H 'Content-Length: ${bytes}'`,
		`-H 'Content-Type: application/octet-stream'`,
		`-H ${JSON.stringify(`Authorization: Bearer ${sandbox.apiKey}`)}`,
		JSON.stringify(`${sandbox.baseUrl}${uploadUrl}`),
	].join(' ');
	const script = `${download} | ${upload}`;
	const started = process.hrtime.bigint();
	const { stdout } = await run('bash', ['-o', 'pipefail', '-c', script], { maxBuffer: MIB });
	const seconds = Number(process.hrtime.bigint() - started) / 1e9;
	const answer = JSON.parse(stdout) as { ok: boolean; bytes_received: number };
	if (!answer.ok || answer.bytes_received !== bytes)
		throw new Error(`the curl pipe stored ${stdout.slice(0, 200)}`);
	return seconds;
}

const median = (values: number[]) => {
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

export async function runMediaLinkBenchmark(options: MediaLinkBenchOptions): Promise<ResultRow[]> {
	const rows = await runEngineFlows(options);
	if (options.queue) rows.push(...(await runQueueFlows(options.queue)));
	return rows;
}

async function runEngineFlows(options: MediaLinkBenchOptions): Promise<ResultRow[]> {
	const measuredIn = engine();
	const sandbox = await startSandboxProcess();
	const host = await startMediaHostProcess();
	const size = `${round(options.fileBytes / GIB, 2)} GiB`;
	const perGiB = (measurement: FlowMeasurement) =>
		measurement.ok ? round(measurement.retainedGrowthMiB / (options.fileBytes / GIB)) : null;
	const mediaStored = (measurement: FlowMeasurement) =>
		measurement.ok ? measurement.storedBytes - measurement.transcriptBytes : null;
	const withBaseline = baseNodesAvailable();
	const failures = (...measurements: Array<FlowMeasurement | undefined>) =>
		measurements
			.filter((measurement) => measurement && !measurement.ok)
			.map((measurement) => `; FAILED ${measurement!.flow}: ${measurement!.detail}`)
			.join('');
	try {
		const worker = (flow: Flow, instrument: P9Instrument) =>
			runWorker(flow, instrument, options.fileBytes, host, sandbox, measuredIn);
		const retained = {
			transcribeByUrl: await worker('transcribeByUrl', 'retained'),
			sendMediaByUrl: await worker('sendMediaByUrl', 'retained'),
			transcribeByUrlChunked: await worker('transcribeByUrlChunked', 'retained'),
			httpRequestThenTranscribe: withBaseline
				? await worker('httpRequestThenTranscribe', 'retained')
				: undefined,
		};
		const times: Record<'raw' | Flow, number[]> = {
			raw: [],
			sendMediaByUrl: [],
			transcribeByUrl: [],
			transcribeByUrlChunked: [],
			httpRequestThenTranscribe: [],
		};
		const timed: Partial<Record<Flow, FlowMeasurement>> = {};
		for (let round = 0; round < options.rounds; round++) {
			times.raw.push(await rawPipe(options.fileBytes, host, sandbox));
			for (const flow of [
				'sendMediaByUrl',
				'transcribeByUrl',
				'transcribeByUrlChunked',
				...(withBaseline ? (['httpRequestThenTranscribe'] as const) : []),
			] as Flow[]) {
				const measurement = await worker(flow, 'time');
				timed[flow] = measurement;
				if (measurement.ok) times[flow].push(measurement.seconds);
			}
		}
		const seconds = (flow: 'raw' | Flow) =>
			times[flow].length ? round(median(times[flow]), 2) : null;
		const note = `${measuredIn.label}, filesystem binary mode, ${size} WAV generated by the media host as it is sent (its own process), sandbox in its own process`;
		const baselineLabel = 'HTTP Request (response as a file) → Transcribe and Download';
		const baseline = retained.httpRequestThenTranscribe;
		const rows: ResultRow[] = [
			{
				benchmark: 'P9',
				metric: `retained memory per GiB, ${size} by URL with Content-Length, Transcribe and Download`,
				value: perGiB(retained.transcribeByUrl),
				unit: 'MiB',
				...(baseline
					? {
							baseline: { label: baselineLabel, value: perGiB(baseline) },
							ratio: ratio(perGiB(retained.transcribeByUrl), perGiB(baseline)),
						}
					: {}),
				target: `≤ ${TARGET_MIB_PER_GIB} MiB per GiB`,
				meetsTarget: (perGiB(retained.transcribeByUrl) ?? Infinity) <= TARGET_MIB_PER_GIB,
				note: `${note}; heap used + external right after a full GC, ${retained.transcribeByUrl.samples} GCs over ${retained.transcribeByUrl.seconds} s${failures(retained.transcribeByUrl, baseline)}`,
			},
			{
				benchmark: 'P9',
				metric: `retained memory per GiB, ${size} by URL with Content-Length, Send Media`,
				value: perGiB(retained.sendMediaByUrl),
				unit: 'MiB',
				target: `≤ ${TARGET_MIB_PER_GIB} MiB per GiB`,
				meetsTarget: (perGiB(retained.sendMediaByUrl) ?? Infinity) <= TARGET_MIB_PER_GIB,
				note: `${note}; ${retained.sendMediaByUrl.samples} GCs over ${retained.sendMediaByUrl.seconds} s${failures(retained.sendMediaByUrl)}`,
			},
			{
				benchmark: 'P9',
				metric: `retained memory per GiB, ${size} by URL without Content-Length (stored first), Transcribe and Download`,
				value: perGiB(retained.transcribeByUrlChunked),
				unit: 'MiB',
				note: `${note}; ${retained.transcribeByUrlChunked.samples} GCs over ${retained.transcribeByUrlChunked.seconds} s${failures(retained.transcribeByUrlChunked)}`,
			},
			{
				benchmark: 'P9',
				metric: `media bytes written to n8n's binary-data store, ${size} by URL with Content-Length, Transcribe and Download`,
				value: mediaStored(retained.transcribeByUrl),
				unit: 'bytes',
				...(baseline
					? {
							baseline: { label: baselineLabel, value: mediaStored(baseline) },
							ratio: ratio(mediaStored(retained.transcribeByUrl), mediaStored(baseline)),
						}
					: {}),
				target: '0',
				meetsTarget: mediaStored(retained.transcribeByUrl) === 0,
				note: `${note}; files the run added to the store (${retained.transcribeByUrl.storedBytes} bytes) less its transcripts (${retained.transcribeByUrl.transcriptBytes} bytes)`,
			},
			{
				benchmark: 'P9',
				metric: `media bytes written to n8n's binary-data store, ${size} by URL without Content-Length, Transcribe and Download`,
				value: mediaStored(retained.transcribeByUrlChunked),
				unit: 'bytes',
				note: `${note}; a link without a length is stored first (by design), then uploaded from the store`,
			},
			{
				benchmark: 'P9',
				metric: `wall time of the upload, ${size} by URL with Content-Length: Send Media (GET → PUT)`,
				value: seconds('sendMediaByUrl'),
				unit: 's',
				baseline: { label: 'curl <link> | curl -T - <upload URL>', value: seconds('raw') },
				ratio: ratio(seconds('sendMediaByUrl'), seconds('raw')),
				target: `≤ ${TARGET_TIME_RATIO} × the curl pipe`,
				meetsTarget:
					(ratio(seconds('sendMediaByUrl'), seconds('raw')) ?? Infinity) <= TARGET_TIME_RATIO,
				note: `${note}; median of ${options.rounds} alternating rounds: curl ${times.raw.map((value) => round(value, 2)).join(', ')} s, Send Media ${times.sendMediaByUrl.map((value) => round(value, 2)).join(', ')} s (the worker's wall time from the GET to the PUT's answer)${failures(timed.sendMediaByUrl)}`,
			},
			{
				benchmark: 'P9',
				metric: `wall time, ${size} by URL with Content-Length: Transcribe and Download (download, upload, job, transcript)`,
				value: seconds('transcribeByUrl'),
				unit: 's',
				...(withBaseline
					? {
							baseline: { label: baselineLabel, value: seconds('httpRequestThenTranscribe') },
							ratio: ratio(seconds('transcribeByUrl'), seconds('httpRequestThenTranscribe')),
						}
					: {}),
				note: `${note}; median of ${options.rounds}: ${times.transcribeByUrl.map((value) => round(value, 2)).join(', ')} s${withBaseline ? `; the two-node flow ${times.httpRequestThenTranscribe.map((value) => round(value, 2)).join(', ')} s` : `; baseline not run: n8n ${benchN8nVersion()} of the e2e suite is not installed`}${failures(timed.transcribeByUrl, timed.httpRequestThenTranscribe)}`,
			},
			{
				benchmark: 'P9',
				metric: `wall time, ${size} by URL without Content-Length: Transcribe and Download (stored first)`,
				value: seconds('transcribeByUrlChunked'),
				unit: 's',
				note: `${note}; median of ${options.rounds}: ${times.transcribeByUrlChunked.map((value) => round(value, 2)).join(', ')} s${failures(timed.transcribeByUrlChunked)}`,
			},
		];
		return rows;
	} finally {
		await host.stop();
		await sandbox.stop();
	}
}

async function runQueueFlows(
	queue: NonNullable<MediaLinkBenchOptions['queue']>,
): Promise<ResultRow[]> {
	const unavailable = servicesUnavailable();
	if (unavailable)
		return [
			{
				benchmark: 'P9',
				metric: 'queue mode',
				value: null,
				unit: '',
				note: `not run: ${unavailable}`,
			},
		];
	const workDir = await mkdtemp(path.join(tmpdir(), 'tss-p9-queue-'));
	const sandbox = await startSandbox({
		port: 0,
		quiet: true,
		jobSeconds: 1,
		rateLimits: { perTier: { premium: 600, platinum: 600 } },
	});
	const host = await startMediaHost();
	const credential = { id: 'tssP9QueueCred01', name: 'Transcription Service (P9)' };
	const workflows = {
		byUrl: { id: 'tssP9ByUrl000001', path: 'p9-by-url' },
		httpRequest: { id: 'tssP9HttpReq0001', path: 'p9-http-request' },
	};
	const cluster = await startQueueCluster({
		versionId: queue.versionId,
		workDir,
		workers: 1,
		webhookProcessors: 1,
		workerConcurrency: 1,
		credentials: [
			{
				...credential,
				type: CREDENTIAL_TYPE,
				data: {
					apiKey: sandbox.keys.platinum_live.key,
					signingSecret: sandbox.keys.platinum_live.signing_secret,
					previousSigningSecret: '',
					baseUrl: sandbox.baseUrl,
					pathPrefix: '/api/v1',
				},
			},
		],
		workflows: () => [
			transcribeLinkWorkflow({ ...workflows.byUrl, credential, through: 'mediaSource' }),
			transcribeLinkWorkflow({ ...workflows.httpRequest, credential, through: 'httpRequest' }),
		],
		activate: [workflows.byUrl.id, workflows.httpRequest.id],
	});
	const [worker] = cluster.workers;
	const label = `n8n ${cluster.install.n8nVersion} queue mode (1 main, 1 worker, 1 webhook processor, PostgreSQL), binary data mode "database"`;
	const transcribe = async (
		workflow: { id: string; path: string },
		bytes: number,
		chunked: boolean,
	) => {
		const before = new Set(
			(await cluster.api.executions(workflow.id)).map((execution) => execution.id),
		);
		const storedBefore = await databaseBinaryBytes(cluster.postgres);
		await worker.resetPeakRss();
		const rssBefore = await worker.rssBytes();
		const started = Date.now();
		const url = `${host.origin}/${chunked ? 'generated-chunked' : 'generated'}/${bytes}/p9-queue-${bytes}.wav`;
		const response = await fetch(`${cluster.router.baseUrl}/webhook/${workflow.path}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ url }),
		});
		if (response.status !== 200)
			throw new Error(`webhook ${workflow.path}: HTTP ${response.status}`);
		const [finished] = await finishedExecutions(cluster.api, workflow.id, before, 1, {
			timeoutMs: 1_800_000,
		});
		const [execution] = await withData(cluster.api, [finished]);
		const seconds = round((Date.now() - started) / 1000);
		const runs = execution.data.resultData.runData;
		const item = runs[TRANSCRIBE_NODE]?.[0]?.data?.main?.[0]?.[0];
		const failedNode = Object.entries(runs).find(([, taskData]) => taskData[0]?.error)?.[0];
		const error =
			(item?.json.error as { code?: string; message?: string } | undefined) ??
			(failedNode
				? { code: `${failedNode} failed`, message: runs[failedNode][0].error?.message }
				: undefined);
		return {
			ok: item?.json.status === 'completed',
			seconds,
			error,
			peakGrowthMiB: Math.round(((await worker.peakRssBytes()) - rssBefore) / MIB),
			storedBytes: (await databaseBinaryBytes(cluster.postgres)) - storedBefore,
			transcriptBytes: Number((item?.binary?.txt as { bytes?: number } | undefined)?.bytes ?? 0),
		};
	};
	try {
		const sized = (bytes: number) => `${round(bytes / GIB, 2)} GiB`;
		const byUrl = await transcribe(workflows.byUrl, queue.linkBytes, false);
		const noLength = await transcribe(workflows.byUrl, queue.noLengthBytes, true);
		const viaHttpRequest = await transcribe(workflows.httpRequest, queue.baselineBytes, false);
		const { uploads } = await new SandboxAdmin(sandbox.baseUrl).records();
		const whole = uploads.some((upload) => upload.bytes_received === queue.linkBytes);
		const outcome = (result: Awaited<ReturnType<typeof transcribe>>) =>
			result.ok
				? 'completed'
				: `refused: ${result.error?.code ?? '?'} (${String(result.error?.message ?? '').slice(0, 220)})`;
		return [
			{
				benchmark: 'P9',
				metric: `queue mode, ${sized(queue.linkBytes)} by URL with Content-Length: Transcribe and Download on a worker`,
				value: byUrl.ok && whole ? byUrl.seconds : null,
				unit: 's',
				note: `${label}; ${outcome(byUrl)}; the service stored ${whole ? 'every byte' : 'not every byte'}; media bytes written to the database ${byUrl.storedBytes - byUrl.transcriptBytes}; worker peak RSS growth ${byUrl.peakGrowthMiB} MiB`,
			},
			{
				benchmark: 'P9',
				metric: `queue mode, ${sized(queue.noLengthBytes)} by URL without Content-Length (stored first)`,
				value: null,
				unit: '',
				note: `${label}; ${outcome(noLength)} after ${noLength.seconds} s; worker peak RSS growth ${noLength.peakGrowthMiB} MiB`,
			},
			{
				benchmark: 'P9',
				metric: `queue mode, ${sized(queue.baselineBytes)}: HTTP Request (response as a file) → Transcribe and Download (baseline)`,
				value: null,
				unit: '',
				note: `${label}; ${outcome(viaHttpRequest)} after ${viaHttpRequest.seconds} s; worker peak RSS growth ${viaHttpRequest.peakGrowthMiB} MiB`,
			},
		];
	} finally {
		await cluster.stop();
		await host.close();
		await sandbox.close();
		await rm(workDir, { recursive: true, force: true });
	}
}
