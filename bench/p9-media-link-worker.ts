// One P9 measurement in a fresh process (as P2's): a recording behind a link on the test media host (its own process)
// goes to the sandbox (its own process) by one of four flows, measured with one instrument, the result one JSON line
// on stdout. A 1 MiB warm-up of the same flow runs first, so module loading and first-use allocations are not counted.
//   sendMediaByUrl          Upload → Send Media, Media Source URL, into a slot made beforehand: the upload alone
//   transcribeByUrl         Transcribe and Download, Media Source URL (the link sends Content-Length)
//   transcribeByUrlChunked  the same with a link that sends no length: stored in n8n's binary store first
//   httpRequestThenTranscribe  the flow a user builds today: HTTP Request (GET, response as a file) → Transcribe and
//                              Download of that binary (n8n-nodes-base of the e2e install)
// Instruments: `time` (nothing sampled: the wall time of the flow) and `retained` (heap used + external memory right
// after a full GC, forced every 250 ms through the flow: P2's, needs --expose-gc --no-concurrent-array-buffer-sweeping).
// Both report the bytes the flow left in n8n's binary-data store (filesystem mode) beyond the transcripts it output.
//   node [flags] --import tsx bench/p9-media-link-worker.ts <flow> <instrument> <link origin> <bytes> <sandbox> <key>
import '../test/support/engine/setup-env';

import { setTimeout as delay } from 'node:timers/promises';

import type { IBinaryData, INodeExecutionData, INodeTypes } from 'n8n-workflow';

import {
	cleanupBinaryData,
	executeInEngine,
	FixtureCredentialsHelper,
	fixtureCredentials,
	binaryStoreFiles,
	loadPackage,
	nodeType,
	PackageNodeTypes,
	runWorkflow,
	type RunResult,
} from '../test/support/engine/harness';
import { loadBaseNodeTypes } from './lib/base-nodes-engine';
import { runMain } from './lib/run-main';

export const FLOWS = [
	'sendMediaByUrl',
	'transcribeByUrl',
	'transcribeByUrlChunked',
	'httpRequestThenTranscribe',
] as const;
export type Flow = (typeof FLOWS)[number];
export const P9_INSTRUMENTS = ['time', 'retained'] as const;
export type P9Instrument = (typeof P9_INSTRUMENTS)[number];

export interface FlowMeasurement {
	flow: Flow;
	instrument: P9Instrument;
	ok: boolean;
	seconds: number;
	/** retained: peak growth of heap used + external memory right after a full GC. */
	retainedGrowthMiB: number;
	samples: number;
	/** Bytes of the files the flow added to n8n's binary-data store, and of the transcripts among them. */
	storedBytes: number;
	transcriptBytes: number;
	detail: string;
}

const MIB = 1024 * 1024;
const RETAINED_SAMPLE_EVERY_MS = 250;
const TRANSCRIBE = 'Transcribe and Download';

interface Target {
	origin: string;
	sandbox: string;
	apiKey: string;
}

const linkOf = (target: Target, bytes: number, chunked: boolean) =>
	`${target.origin}/${chunked ? 'generated-chunked' : 'generated'}/${bytes}/p9-recording-${bytes}.wav`;

const transcribeParameters = (fromLink?: string) => ({
	resource: 'transcription',
	operation: 'transcribeAndDownload',
	...(fromLink ? { mediaSource: 'url', mediaUrl: fromLink } : { binaryPropertyName: 'data' }),
	formats: ['txt'],
	options: { maxWaitSeconds: 900, pollIntervalSeconds: 0.5, maxPollIntervalSeconds: 2 },
});

async function createSlot(target: Target, bytes: number): Promise<string> {
	const response = await fetch(`${target.sandbox}/api/v1/uploads`, {
		method: 'POST',
		headers: { authorization: `Bearer ${target.apiKey}`, 'content-type': 'application/json' },
		body: JSON.stringify({ filename: 'p9.wav', content_type: 'audio/wav', size_bytes: bytes }),
	});
	if (response.status !== 201)
		throw new Error(`slot: HTTP ${response.status} ${await response.text()}`);
	return ((await response.json()) as { upload_id: string }).upload_id;
}

/** What a flow needs before it starts, outside the time measured: Send Media's upload slot. */
async function prepare(flow: Flow, bytes: number, target: Target): Promise<string | undefined> {
	return flow === 'sendMediaByUrl' ? await createSlot(target, bytes) : undefined;
}

/** The items a flow output (its last node's), or the run's error. */
async function runFlow(
	flow: Flow,
	bytes: number,
	target: Target,
	uploadId?: string,
): Promise<INodeExecutionData[]> {
	const credentials = { apiKey: target.apiKey, baseUrl: target.sandbox };
	const outputOf = (run: RunResult, node: string) => {
		if (run.error) throw run.error;
		const items = run.output(node);
		const error = items[0]?.json.error;
		if (error !== undefined) throw new Error(JSON.stringify(error));
		return items;
	};
	switch (flow) {
		case 'sendMediaByUrl': {
			const run = await runWorkflow({
				nodes: [
					{
						name: 'Send Media',
						type: nodeType('transcriptionService'),
						parameters: {
							resource: 'upload',
							operation: 'sendMedia',
							upload: uploadId,
							mediaSource: 'url',
							mediaUrl: linkOf(target, bytes, false),
						},
					},
				],
				credentials,
			});
			return outputOf(run, 'Send Media');
		}
		case 'transcribeByUrl':
		case 'transcribeByUrlChunked': {
			const run = await runWorkflow({
				nodes: [
					{
						name: TRANSCRIBE,
						type: nodeType('transcriptionService'),
						parameters: transcribeParameters(
							linkOf(target, bytes, flow === 'transcribeByUrlChunked'),
						),
					},
				],
				credentials,
			});
			return outputOf(run, TRANSCRIBE);
		}
		case 'httpRequestThenTranscribe': {
			const run = await runTwoNodeFlow(linkOf(target, bytes, false), credentials);
			if (run.data.resultData.error) throw run.data.resultData.error;
			const items = run.data.resultData.runData[TRANSCRIBE]?.[0]?.data?.main?.[0] ?? [];
			if (items[0]?.json.error !== undefined) throw new Error(JSON.stringify(items[0].json.error));
			return items;
		}
	}
}

/** Node types of n8n-nodes-base and of this package, in one workflow. */
class TwoPackages implements INodeTypes {
	constructor(
		private readonly base: INodeTypes,
		private readonly ours: INodeTypes,
	) {}

	private of(type: string): INodeTypes {
		return type.startsWith('n8n-nodes-base.') ? this.base : this.ours;
	}

	getByName(type: string) {
		return this.of(type).getByName(type);
	}

	getByNameAndVersion(type: string, version?: number) {
		return this.of(type).getByNameAndVersion(type, version);
	}

	getKnownTypes() {
		return {};
	}
}

let twoNodeRuns = 0;

/** HTTP Request (GET, response as a file into `data`) → Transcribe and Download of `data`, one execution. */
async function runTwoNodeFlow(link: string, credentials: { apiKey: string; baseUrl: string }) {
	const loader = await loadPackage();
	const nodes = [
		{
			id: 'p9-http',
			name: 'HTTP Request',
			type: 'n8n-nodes-base.httpRequest',
			typeVersion: 4.2,
			position: [0, 0] as [number, number],
			parameters: {
				url: link,
				options: { response: { response: { responseFormat: 'file', outputPropertyName: 'data' } } },
			},
		},
		{
			id: 'p9-transcribe',
			name: TRANSCRIBE,
			type: nodeType('transcriptionService'),
			typeVersion: 1,
			position: [200, 0] as [number, number],
			parameters: transcribeParameters(),
			credentials: {
				transcriptionServiceApi: { id: 'cred-1', name: 'Transcription Service account' },
			},
		},
	];
	return await executeInEngine({
		workflowId: 'bench-p9-two-nodes',
		executionId: `bench-p9-${process.pid}-${++twoNodeRuns}`,
		nodes,
		connections: { 'HTTP Request': { main: [[{ node: TRANSCRIBE, type: 'main', index: 0 }]] } },
		nodeTypes: new TwoPackages(await loadBaseNodeTypes(), new PackageNodeTypes(loader)),
		credentialsHelper: new FixtureCredentialsHelper(loader, fixtureCredentials(credentials)),
		startNode: nodes[0],
		input: [{ json: {} }],
		cancelAfterMs: 30 * 60 * 1000,
	});
}

function collectGarbage(): void {
	const gc = (globalThis as { gc?: () => void }).gc;
	if (!gc) throw new Error('the retained instrument needs --expose-gc');
	gc();
}

function retainedBytes(): number {
	collectGarbage();
	const { heapUsed, external } = process.memoryUsage();
	return heapUsed + external;
}

async function measure(
	flow: Flow,
	instrument: P9Instrument,
	bytes: number,
	target: Target,
): Promise<FlowMeasurement> {
	await runFlow(flow, MIB, target, await prepare(flow, MIB, target));
	const uploadId = await prepare(flow, bytes, target);
	const storedBefore = await binaryStoreFiles();
	let peak = 0;
	let baseline = 0;
	let samples = 0;
	let sampler: NodeJS.Timeout | undefined;
	if (instrument === 'retained') {
		collectGarbage();
		await delay(200);
		baseline = retainedBytes();
		peak = baseline;
		sampler = setInterval(() => {
			peak = Math.max(peak, retainedBytes());
			samples++;
		}, RETAINED_SAMPLE_EVERY_MS);
	}
	const started = process.hrtime.bigint();
	let ok = true;
	let detail = '';
	let items: INodeExecutionData[] = [];
	try {
		items = await runFlow(flow, bytes, target, uploadId);
		detail = JSON.stringify({
			status: items[0]?.json.status,
			bytes_received: items[0]?.json.bytes_received,
		});
	} catch (error) {
		ok = false;
		detail = error instanceof Error ? error.message : String(error);
	} finally {
		clearInterval(sampler);
	}
	const seconds = Number(process.hrtime.bigint() - started) / 1e9;
	if (instrument === 'retained') peak = Math.max(peak, retainedBytes());
	const storedAfter = await binaryStoreFiles();
	const added = [...storedAfter].filter(([file]) => !storedBefore.has(file));
	const transcripts = items.flatMap((item) =>
		Object.values(item.binary ?? {}).map((binary: IBinaryData) => binary.bytes ?? 0),
	);
	return {
		flow,
		instrument,
		ok,
		seconds: Math.round(seconds * 100) / 100,
		retainedGrowthMiB: Math.round(((peak - baseline) / MIB) * 10) / 10,
		samples,
		storedBytes: added.reduce((sum, [, size]) => sum + size, 0),
		transcriptBytes: transcripts.reduce((sum, size) => sum + size, 0),
		detail: detail.slice(0, 300),
	};
}

async function main(): Promise<void> {
	const [flow, instrument, origin, size, sandbox, apiKey] = process.argv.slice(2);
	if (
		!(FLOWS as readonly string[]).includes(flow) ||
		!(P9_INSTRUMENTS as readonly string[]).includes(instrument) ||
		!origin ||
		!Number(size) ||
		!sandbox ||
		!apiKey
	) {
		throw new Error(
			`usage: p9-media-link-worker.ts <${FLOWS.join('|')}> <time|retained> <link origin> <bytes> <sandbox> <key>`,
		);
	}
	try {
		const result = await measure(flow as Flow, instrument as P9Instrument, Number(size), {
			origin,
			sandbox,
			apiKey,
		});
		process.stdout.write(`${JSON.stringify(result)}\n`);
	} finally {
		await cleanupBinaryData();
	}
}

if (require.main === module) runMain(main);
