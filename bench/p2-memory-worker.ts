// One P2 measurement in a fresh process, so nothing else this process did shows in its figures. It warms the path
// up with a 1 MiB file (module loading and first-use allocations are not the upload's), then uploads the big file
// with one of two instruments and reports, as one JSON line on stdout, the growth over the level just before:
// - peakRss: resident memory, sampled every 5 ms, plus the kernel's high-water mark. It includes what V8 has not yet
//   collected: the stream's 64 KiB chunks are garbage once sent, but V8 frees them only at its next GC.
// - retained: what is still reachable (heap used + external memory, Buffers included) right after a full GC, forced
//   every 250 ms during the upload. Needs --expose-gc and --no-concurrent-array-buffer-sweeping, so that a GC has freed
//   the unreachable Buffers' memory by the time it returns.
//   node --expose-gc [--no-concurrent-array-buffer-sweeping] --import tsx bench/p2-memory-worker.ts \
//     <mode> <peakRss|retained> <file> <sandbox base URL> <api key>
import '../test/support/engine/setup-env';

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

import type { INodeExecutionData } from 'n8n-workflow';

import {
	binaryItem,
	cleanupBinaryData,
	nodeType,
	runWorkflow,
	type RunResult,
} from '../test/support/engine/harness';
import { writeWavFile } from '../test/support/fixtures/media';
import { runBaseWorkflow } from './lib/base-nodes-engine';
import { runMain } from './lib/run-main';
import { runTranscribeAndDownload } from '../test/support/engine/batch-runs';

export const MEMORY_MODES = ['sendMedia', 'transcribeAndDownload', 'httpRequest'] as const;
export type MemoryMode = (typeof MEMORY_MODES)[number];

export const INSTRUMENTS = ['peakRss', 'retained'] as const;
export type Instrument = (typeof INSTRUMENTS)[number];

export interface MemoryMeasurement {
	mode: MemoryMode;
	instrument: Instrument;
	ok: boolean;
	rssBeforeMiB: number;
	/** peakRss: peak RSS growth; retained: peak growth of heap used + external right after a full GC. */
	peakGrowthMiB: number;
	/** peakRss: the peak growth of V8's heap used and of its external memory (Buffers) over the same samples. */
	peakHeapUsedGrowthMiB: number;
	peakExternalGrowthMiB: number;
	/** Full GCs sampled (retained only). */
	samples: number;
	/** After the upload and a full GC: RSS growth, and heap used + external growth. */
	afterGcRssGrowthMiB: number;
	afterGcRetainedGrowthMiB: number;
	seconds: number;
	detail: string;
}

const MIB = 1024 * 1024;
const RSS_SAMPLE_EVERY_MS = 5;
const RETAINED_SAMPLE_EVERY_MS = 250;
const SYNCHRONOUS_BUFFER_SWEEPING = '--no-concurrent-array-buffer-sweeping';

interface Target {
	baseUrl: string;
	apiKey: string;
}

/** The input item, its bytes already in n8n's filesystem store as a Read File node would leave them. */
async function mediaItem(filePath: string): Promise<INodeExecutionData> {
	return await binaryItem({
		data: { filePath },
		fileName: path.basename(filePath),
		mimeType: 'audio/wav',
	});
}

async function upload(mode: MemoryMode, item: INodeExecutionData, target: Target): Promise<string> {
	const fileName = item.binary!.data.fileName!;
	const credentials = { apiKey: target.apiKey, baseUrl: target.baseUrl };
	switch (mode) {
		case 'sendMedia':
			return describe(
				await runWorkflow({
					nodes: [
						{
							name: 'Create Slot',
							type: nodeType('transcriptionService'),
							parameters: {
								resource: 'upload',
								operation: 'createSlot',
								source: 'binary',
								binaryPropertyName: 'data',
							},
						},
						{
							name: 'Send Media',
							type: nodeType('transcriptionService'),
							parameters: {
								resource: 'upload',
								operation: 'sendMedia',
								binaryPropertyName: 'data',
							},
						},
					],
					input: [item],
					credentials,
				}),
				'Send Media',
			);
		case 'transcribeAndDownload':
			return describe(
				await runTranscribeAndDownload({
					items: [item],
					credentials,
					options: { maxWaitSeconds: 600 },
				}),
				'Transcribe and Download',
			);
		case 'httpRequest': {
			// The slot is made beforehand; the HTTP Request node only sends the binary as its body.
			const size = item.binary!.data.bytes!;
			const slotResponse = await fetch(`${target.baseUrl}/api/v1/uploads`, {
				method: 'POST',
				headers: { authorization: `Bearer ${target.apiKey}`, 'content-type': 'application/json' },
				body: JSON.stringify({ filename: fileName, content_type: 'audio/wav', size_bytes: size }),
			});
			const slot = (await slotResponse.json()) as { upload_url: string };
			const run = await runBaseWorkflow({
				nodes: [
					{
						name: 'HTTP Request',
						type: 'n8n-nodes-base.httpRequest',
						typeVersion: 4.2,
						parameters: {
							method: 'PUT',
							url: `${target.baseUrl}${slot.upload_url}`,
							sendHeaders: true,
							headerParameters: {
								parameters: [{ name: 'Authorization', value: `Bearer ${target.apiKey}` }],
							},
							sendBody: true,
							contentType: 'binaryData',
							inputDataFieldName: 'data',
							options: {},
						},
					},
				],
				connections: {},
				startNode: 'HTTP Request',
				input: [item],
				cancelAfterMs: 30 * 60 * 1000,
			});
			const error = run.data.resultData.error;
			if (error) throw error;
			const json = run.data.resultData.runData['HTTP Request']?.[0]?.data?.main?.[0]?.[0]?.json;
			return `answer ${JSON.stringify(json)}`;
		}
	}
}

function describe(run: RunResult, nodeName: string): string {
	if (run.error) throw run.error;
	const [item] = run.output(nodeName);
	const json = item?.json ?? {};
	if (json.error !== undefined) throw new Error(JSON.stringify(json.error));
	return `answer ${JSON.stringify({ status: json.status, bytes_received: json.bytes_received, upload_id: json.upload_id, job_id: json.job_id })}`;
}

function collectGarbage(): void {
	const gc = (globalThis as { gc?: () => void }).gc;
	if (!gc) throw new Error('P2 worker needs --expose-gc');
	gc();
}

/** Heap used + external memory (every Buffer's bytes) after a full GC: what the process still holds. */
function retainedBytes(): number {
	collectGarbage();
	const { heapUsed, external } = process.memoryUsage();
	return heapUsed + external;
}

const toMiB = (bytes: number) => Math.round((bytes / MIB) * 10) / 10;

async function measure(
	mode: MemoryMode,
	instrument: Instrument,
	filePath: string,
	target: Target,
): Promise<MemoryMeasurement> {
	if (instrument === 'retained' && !process.execArgv.includes(SYNCHRONOUS_BUFFER_SWEEPING))
		throw new Error(`the retained instrument needs ${SYNCHRONOUS_BUFFER_SWEEPING}`);
	const scratch = await mkdtemp(path.join(tmpdir(), 'tss-p2-warmup-'));
	try {
		const warmup = path.join(scratch, 'warmup.wav');
		await writeWavFile(warmup, { bytes: MIB });
		await upload(mode, await mediaItem(warmup), target);
	} finally {
		await rm(scratch, { recursive: true, force: true });
	}
	const item = await mediaItem(filePath);
	collectGarbage();
	await delay(200);

	const retainedBefore = retainedBytes();
	const before = process.memoryUsage();
	const rssBefore = before.rss;
	let peakHeapUsed = before.heapUsed;
	let peakExternal = before.external;
	const maxRssBefore = process.resourceUsage().maxRSS * 1024;
	let peak = instrument === 'retained' ? retainedBefore : rssBefore;
	let samples = 0;
	const sampler =
		instrument === 'retained'
			? setInterval(() => {
					peak = Math.max(peak, retainedBytes());
					samples++;
				}, RETAINED_SAMPLE_EVERY_MS)
			: setInterval(() => {
					const { rss, heapUsed, external } = process.memoryUsage();
					peak = Math.max(peak, rss);
					peakHeapUsed = Math.max(peakHeapUsed, heapUsed);
					peakExternal = Math.max(peakExternal, external);
				}, RSS_SAMPLE_EVERY_MS);
	const started = Date.now();
	let ok = true;
	let detail: string;
	try {
		detail = await upload(mode, item, target);
	} catch (error) {
		ok = false;
		detail = error instanceof Error ? error.message : String(error);
	} finally {
		clearInterval(sampler);
	}
	const seconds = Math.round((Date.now() - started) / 100) / 10;
	if (instrument === 'peakRss') {
		peak = Math.max(peak, process.memoryUsage.rss());
		// The kernel's own high-water mark catches a spike between two samples, when it rose during the upload.
		const maxRssAfter = process.resourceUsage().maxRSS * 1024;
		if (maxRssAfter > maxRssBefore) peak = Math.max(peak, maxRssAfter);
	}
	// Without synchronous sweeping a GC frees unreachable Buffers shortly after it returns.
	collectGarbage();
	await delay(200);
	const retainedAfter = retainedBytes();
	if (instrument === 'retained') peak = Math.max(peak, retainedAfter);
	return {
		mode,
		instrument,
		ok,
		rssBeforeMiB: Math.round(rssBefore / MIB),
		peakGrowthMiB: toMiB(peak - (instrument === 'retained' ? retainedBefore : rssBefore)),
		peakHeapUsedGrowthMiB: toMiB(peakHeapUsed - before.heapUsed),
		peakExternalGrowthMiB: toMiB(peakExternal - before.external),
		samples,
		afterGcRssGrowthMiB: toMiB(process.memoryUsage.rss() - rssBefore),
		afterGcRetainedGrowthMiB: toMiB(retainedAfter - retainedBefore),
		seconds,
		detail: detail.slice(0, 300),
	};
}

async function main(): Promise<void> {
	const [mode, instrument, filePath, baseUrl, apiKey] = process.argv.slice(2);
	if (
		!(MEMORY_MODES as readonly string[]).includes(mode) ||
		!(INSTRUMENTS as readonly string[]).includes(instrument) ||
		!filePath ||
		!baseUrl ||
		!apiKey
	) {
		throw new Error(
			'usage: p2-memory-worker.ts <sendMedia|transcribeAndDownload|httpRequest> <peakRss|retained> <file> <base URL> <api key>',
		);
	}
	try {
		const result = await measure(mode as MemoryMode, instrument as Instrument, filePath, {
			baseUrl,
			apiKey,
		});
		process.stdout.write(`${JSON.stringify(result)}\n`);
	} finally {
		await cleanupBinaryData();
	}
}

if (require.main === module) runMain(main);
