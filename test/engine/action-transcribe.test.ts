// Transcription → Transcribe and Download: binary in → slot → streamed upload → job → wait → transcripts out.

import JSZip from 'jszip';
import { PDFDocument } from 'pdf-lib';

import { makeWav, NOT_MEDIA } from '../support/fixtures/media';
import {
	actionNode,
	ACTION_NODE,
	binaryBytes,
	binaryItem,
	nodeError,
	runWorkflow,
} from '../support/engine/harness';
import { useControlledClock } from '../support/clock/controlled-clock';
import { useEngineSandbox } from '../support/engine/engine-sandbox';

const clock = useControlledClock();
const env = useEngineSandbox({
	clock,
	recordExchanges: true,
	// Live jobs take 3 s of real time: long enough to poll several times and for a 1 s Max Wait to run out.
	jobSeconds: 3,
	rateLimits: { perTier: { premium: 1000, platinum: 1000 } },
});
const { live, testMode } = env;
const wav = makeWav({ seconds: 3 });

const quickPolls = { pollIntervalSeconds: 0.2, maxPollIntervalSeconds: 0.5 };

const transcribe = (parameters: Record<string, unknown> = {}, continueOnFail = false) =>
	actionNode(
		{
			resource: 'transcription',
			operation: 'transcribeAndDownload',
			binaryPropertyName: 'data',
			formats: ['srt'],
			...parameters,
			options: { ...quickPolls, ...((parameters.options as object | undefined) ?? {}) },
		},
		{ continueOnFail },
	);

const wavItem = (fileName = 'interview.wav', data: Buffer = wav) =>
	binaryItem({ data, fileName, mimeType: 'audio/wav' });

describe('Transcription → Transcribe and Download', () => {
	test('one live item: uploads, waits with conditional polls, downloads all four formats as binaries', async () => {
		const result = await runWorkflow({
			nodes: [transcribe({ formats: ['srt', 'txt', 'pdf', 'docx'] })],
			credentials: live,
			input: [await wavItem()],
		});
		expect(result.error).toBeUndefined();
		const [item] = result.output(ACTION_NODE);
		expect(item.pairedItem).toEqual({ item: 0 });
		expect(item.json).toMatchObject({
			job_id: expect.any(String),
			status: 'completed',
			media_duration_seconds: 3,
			analysis: { language: 'en', dialect: 'en-US' },
		});
		const binary = item.binary ?? {};
		expect(Object.keys(binary).sort()).toEqual(['docx', 'pdf', 'srt', 'txt']);
		expect(binary.srt).toMatchObject({
			fileName: 'interview.srt',
			mimeType: 'application/x-subrip',
		});
		expect(binary.txt).toMatchObject({ fileName: 'interview.txt', mimeType: 'text/plain' });
		expect(binary.pdf).toMatchObject({ fileName: 'interview.pdf', mimeType: 'application/pdf' });
		expect(binary.docx.fileName).toBe('interview.docx');
		const text = (await binaryBytes(binary.txt)).toString('utf8');
		expect(item.json.text).toBe(text);
		expect((await binaryBytes(binary.srt)).toString('utf8')).toMatch(
			/^1\r?\n\d\d:\d\d:\d\d,\d{3} --> /,
		);
		// pdf-lib reads the whole document (pdf-parse's pdf.js misreads it under the n8n 2.41 test resolver).
		expect(
			(await PDFDocument.load(await binaryBytes(binary.pdf))).getPageCount(),
		).toBeGreaterThanOrEqual(1);
		expect(
			(await JSZip.loadAsync(await binaryBytes(binary.docx))).file('word/document.xml'),
		).not.toBeNull();

		const calls = env.proxy.exchanges.map(
			(exchange) => `${exchange.method} ${exchange.url.split('/').slice(3, 5).join('/')}`,
		);
		expect(calls.slice(0, 3)).toEqual([
			'POST uploads',
			`PUT uploads/${String(env.proxy.exchanges[1].url.split('/')[4])}`,
			'POST transcriptions',
		]);
		const [slotPost, put, jobPost] = env.proxy.exchanges;
		expect(slotPost.requestJson).toEqual({
			filename: 'interview.wav',
			content_type: 'audio/wav',
			size_bytes: wav.length,
		});
		expect(put.requestHeaders['content-length']).toBe(String(wav.length));
		expect(put.requestBytes).toBe(wav.length);
		expect(slotPost.requestHeaders['idempotency-key']).toEqual(expect.any(String));
		expect(jobPost.requestHeaders['idempotency-key']).toEqual(expect.any(String));
		const polls = env.proxy.exchanges.filter(
			(exchange) => exchange.method === 'GET' && !exchange.url.includes('artifact'),
		);
		expect(polls.length).toBeGreaterThan(2);
		expect(polls[0].requestHeaders['if-none-match']).toBeUndefined();
		expect(
			polls.slice(1).every((poll) => typeof poll.requestHeaders['if-none-match'] === 'string'),
		).toBe(true);
		expect(polls.some((poll) => poll.status === 304)).toBe(true);
		expect(
			env.proxy.exchanges
				.filter((exchange) => exchange.url.includes('/artifact.'))
				.map((exchange) => exchange.url.split('.').pop()),
		).toEqual(['srt', 'txt', 'pdf', 'docx']);
	});

	test('the create fields go to the job (only those set)', async () => {
		const additionalFields = {
			output_format: 'plain_text',
			translate_to_hebrew: true,
			user_prompt: 'Terms: n8n',
		};
		const result = await runWorkflow({
			nodes: [transcribe({ additionalFields, formats: ['txt'] })],
			credentials: testMode,
			input: [await wavItem()],
		});
		expect(result.error).toBeUndefined();
		const jobPost = env.proxy.exchanges.find(
			(exchange) => exchange.url === '/api/v1/transcriptions',
		);
		expect(jobPost?.requestJson).toEqual({ upload_id: expect.any(String), ...additionalFields });
		expect(result.output(ACTION_NODE)[0].json.text).toEqual(expect.any(String));
	});

	test('20 items with Concurrency 5: parallel, one output per input in input order, pairedItem kept', async () => {
		const input = await Promise.all(
			Array.from({ length: 20 }, (_, index) => wavItem(`item-${index}.wav`)),
		);
		const result = await runWorkflow({
			nodes: [transcribe({ options: { concurrency: 5 } })],
			credentials: testMode,
			input,
		});
		expect(result.error).toBeUndefined();
		const output = result.output(ACTION_NODE);
		expect(output).toHaveLength(20);
		expect(output.map((item) => item.pairedItem)).toEqual(
			input.map((_, index) => ({ item: index })),
		);
		expect(output.map((item) => item.binary?.srt.fileName)).toEqual(
			input.map((_, index) => `item-${index}.srt`),
		);
		expect(new Set(output.map((item) => item.json.job_id)).size).toBe(20);
		expect(env.proxy.concurrency.max).toBeGreaterThan(1);
		expect(env.proxy.concurrency.max).toBeLessThanOrEqual(5);
	});

	test("a live job that fails (unreadable media) is the item's error, carrying job_id and status", async () => {
		const result = await runWorkflow({
			nodes: [transcribe()],
			credentials: live,
			input: [await wavItem('noise.wav', NOT_MEDIA)],
		});
		const error = nodeError(result);
		expect(error.code).toBe('job_failed');
		expect(error.message).toMatch(/^Transcription job \S+ failed$/);
		expect(error.context).toMatchObject({ job_id: expect.any(String), status: 'failed' });
	});

	test('under Continue On Fail a failed job is a failed item and the other items go on', async () => {
		const result = await runWorkflow({
			nodes: [transcribe({ options: { concurrency: 2 } }, true)],
			credentials: live,
			input: [await wavItem('noise.wav', NOT_MEDIA), await wavItem('fine.wav')],
		});
		expect(result.error).toBeUndefined();
		const [failed, fine] = result.output(ACTION_NODE);
		expect(failed.json.error).toEqual({
			code: 'job_failed',
			message: expect.stringMatching(/failed$/),
			description: expect.any(String),
			job_id: expect.any(String),
			upload_id: expect.any(String),
			status: 'failed',
		});
		expect(failed.pairedItem).toEqual({ item: 0 });
		expect(fine.json.status).toBe('completed');
		expect(fine.pairedItem).toEqual({ item: 1 });
	});

	test('a job refused at creation names the upload slot that already holds the bytes', async () => {
		const result = await runWorkflow({
			nodes: [transcribe({ additionalFields: { webhook_url: 'not a url' } }, true)],
			credentials: live,
			input: [await wavItem()],
		});
		const error = result.output(ACTION_NODE)[0].json.error as { code: string; upload_id: string };
		expect(error.code).toBe('invalid_webhook_url');
		expect(error.upload_id).toMatch(/\S/);
		const slot = env.proxy.exchanges.find((exchange) => exchange.method === 'PUT');
		expect(slot?.url).toContain(`/uploads/${error.upload_id}/binary`);
	});

	test('Max Wait exceeded: a timeout error that names the job_id (the job keeps running)', async () => {
		const result = await runWorkflow({
			nodes: [transcribe({ options: { maxWaitSeconds: 1 } })],
			credentials: live,
			input: [await wavItem()],
		});
		const error = nodeError(result);
		expect(error.code).toBe('max_wait_exceeded');
		const jobId = String(error.context.job_id);
		expect(error.message).toBe(
			`Transcription job ${jobId} did not finish within the Max Wait of 1 s (status "${String(error.context.status)}")`,
		);
		expect(['queued', 'processing']).toContain(error.context.status);
	});

	test('cancelling the execution stops the wait: no request after the cancellation', async () => {
		const result = await runWorkflow({
			nodes: [transcribe({ options: { pollIntervalSeconds: 0.1, maxPollIntervalSeconds: 0.1 } })],
			credentials: live,
			input: [await wavItem()],
			cancelAfterMs: 600,
		});
		expect(result.run.status).toBe('canceled');
		// A request already on the wire when the execution was cancelled may still arrive; after that, nothing does.
		await clock.sleep(200);
		const requestsAfterCancel = env.proxy.exchanges.length;
		await clock.sleep(600);
		expect(env.proxy.exchanges.length).toBe(requestsAfterCancel);
	});

	test('a missing binary field is named with the fields the item has; an empty file is refused before upload', async () => {
		const missing = await runWorkflow({
			nodes: [transcribe({ binaryPropertyName: 'audio' })],
			credentials: testMode,
			input: [await wavItem()],
		});
		expect(nodeError(missing).message).toBe('The item has no binary field "audio"');
		const empty = await runWorkflow({
			nodes: [transcribe()],
			credentials: testMode,
			input: [await wavItem('e.wav', Buffer.alloc(0))],
		});
		expect(nodeError(empty).message).toBe('The file in "data" is empty (0 bytes)');
		expect(env.proxy.exchanges).toHaveLength(0);
	});
});
