// A 200 MiB file goes through Transcribe and Download streamed from n8n's binary store: memory stays flat.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { makeWav, writeWavFile } from '../support/fixtures/media';
import { actionNode, ACTION_NODE, binaryItem, runWorkflow } from '../support/engine/harness';
import { useEngineSandbox } from '../support/engine/engine-sandbox';

const FILE_BYTES = 200 * 1024 * 1024;
/** Well below the file's size: reading it whole would grow the process by at least 200 MiB. */
const RSS_GROWTH_BOUND = 64 * 1024 * 1024;

const env = useEngineSandbox({ recordExchanges: true });
let workDir: string;

beforeAll(async () => {
	workDir = await mkdtemp(path.join(tmpdir(), 'tss-large-'));
});
afterAll(async () => {
	await rm(workDir, { recursive: true, force: true });
});

const transcribe = actionNode({
	resource: 'transcription',
	operation: 'transcribeAndDownload',
	binaryPropertyName: 'data',
	formats: ['txt'],
});

/** Samples RSS while `work` runs; returns the peak growth over the RSS just before it started. */
async function peakRssGrowth(work: () => Promise<void>): Promise<number> {
	const baseline = process.memoryUsage().rss;
	let peak = baseline;
	const sampler = setInterval(() => {
		peak = Math.max(peak, process.memoryUsage().rss);
	}, 5);
	try {
		await work();
	} finally {
		clearInterval(sampler);
	}
	return Math.max(peak, process.memoryUsage().rss) - baseline;
}

describe('streamed upload (uploadBinary)', () => {
	test('a 200 MiB file: exact Content-Length, every byte stored, RSS growth under 64 MiB', async () => {
		const filePath = path.join(workDir, 'long-meeting.wav');
		expect(await writeWavFile(filePath, { bytes: FILE_BYTES })).toBe(FILE_BYTES);
		const input = await binaryItem({
			data: { filePath },
			fileName: 'long-meeting.wav',
			mimeType: 'audio/wav',
		});
		const key = await env.admin.createKey({
			mode: 'test',
			tier: 'platinum',
		});
		const credentials = { apiKey: key.key, baseUrl: env.proxy.baseUrl };
		// A first small run loads what n8n loads lazily, so the measured run shows the upload alone.
		const warmUp = await binaryItem({
			data: makeWav({ seconds: 1 }),
			fileName: 'warm-up.wav',
			mimeType: 'audio/wav',
		});
		await runWorkflow({ nodes: [transcribe], credentials, input: [warmUp] });
		env.proxy.exchanges.length = 0;

		let output: Awaited<ReturnType<typeof runWorkflow>> | undefined;
		const growth = await peakRssGrowth(async () => {
			output = await runWorkflow({ nodes: [transcribe], credentials, input: [input] });
		});

		expect(output?.error).toBeUndefined();
		expect(output?.output(ACTION_NODE)[0].json.status).toBe('completed');
		const put = env.proxy.exchanges.find((exchange) => exchange.method === 'PUT');
		expect(put?.requestHeaders['content-length']).toBe(String(FILE_BYTES));
		expect(put?.requestBytes).toBe(FILE_BYTES);
		const records = await env.admin.records(key.account_id);
		expect(records.uploads.find((upload) => upload.filename === 'long-meeting.wav')).toMatchObject({
			size_bytes: FILE_BYTES,
			bytes_received: FILE_BYTES,
		});
		expect(growth).toBeLessThan(RSS_GROWTH_BOUND);
	});
});
