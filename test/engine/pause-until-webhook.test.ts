// Transcribe and Download, Wait Mode "Pause Until Webhook" (issue 10), in n8n-core's engine with n8n's own
// waiting-webhook steps (test/support/engine/waiting-harness.ts) and the sandbox delivering real signed events to the resume URL.
import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { SandboxAdmin } from '../../sandbox/admin-client';
import { startSandbox } from '../../sandbox/server';
import type { PublicTranscriptionWebhookEvent } from '../../src/api';
import { buildSignedDelivery } from '../../src/service';
import { makeWav } from '../support/fixtures/media';
import {
	ACTION_NODE,
	actionNode,
	binaryBytes,
	binaryItem,
	runWorkflow,
	type TestCredentials,
} from '../support/engine/harness';
import { useEngineSandbox } from '../support/engine/engine-sandbox';
import { PausedRun } from '../support/engine/waiting-harness';

const env = useEngineSandbox({ jobSeconds: 2, allowLocalWebhooks: true, recordExchanges: true });
const runs: PausedRun[] = [];

afterEach(async () => {
	await Promise.all(runs.splice(0).map(async (run) => await run.close()));
});

async function freshAccount(mode: 'live' | 'test' = 'live') {
	const key = await env.admin.createKey({ mode, tier: 'platinum' });
	const signingSecret = key.signing_secret as string;
	const credentials: TestCredentials = { ...env.credentials(key.key), signingSecret };
	return { accountId: key.account_id, credentials, signingSecret };
}

const transcribe = (waitMode: 'poll' | 'pauseUntilWebhook', extra: INodeParameters = {}) => ({
	resource: 'transcription',
	operation: 'transcribeAndDownload',
	binaryPropertyName: 'data',
	formats: ['srt', 'txt'],
	waitMode,
	options: { pollIntervalSeconds: 0.2, maxPollIntervalSeconds: 0.5, maxWaitSeconds: 600 },
	...extra,
});

const FILES = ['interview.wav', 'meeting notes.wav', 'ראיון.wav'];
async function mediaItems(names = FILES): Promise<INodeExecutionData[]> {
	return await Promise.all(
		names.map(async (fileName, index) =>
			binaryItem({ data: makeWav({ seconds: 2 + index }), fileName, mimeType: 'audio/wav' }),
		),
	);
}

async function pause(options: Parameters<typeof PausedRun.start>[0]): Promise<PausedRun> {
	const run = await PausedRun.start(options);
	runs.push(run);
	return run;
}

/** GET /transcriptions/{id}: a status request (artifact downloads and lists are not). */
const statusRequests = () =>
	env.proxy.exchanges.filter(
		(exchange) => exchange.method === 'GET' && /\/transcriptions\/[^/?]+(\?|$)/.test(exchange.url),
	);

async function within<T>(promise: Promise<T>, ms = 30_000): Promise<T> {
	let timer: NodeJS.Timeout | undefined;
	const timeout = new Promise<never>((_, reject) => {
		timer = setTimeout(() => reject(new Error(`not within ${ms} ms`)), ms);
	});
	try {
		return await Promise.race([promise, timeout]);
	} finally {
		clearTimeout(timer);
	}
}

function signedEvent(secret: string, event: Partial<PublicTranscriptionWebhookEvent>) {
	const body: PublicTranscriptionWebhookEvent = {
		event: 'transcription.completed',
		event_id: `evt_${Math.random().toString(36).slice(2)}`,
		job_id: 'job_not_ours',
		status: 'completed',
		created_at: new Date().toISOString(),
		links: { self: 'https://api.example.com/j', artifact: 'https://api.example.com/j/artifact' },
		...event,
	} as PublicTranscriptionWebhookEvent;
	return buildSignedDelivery({ secret, timestamp: Math.floor(Date.now() / 1000), event: body });
}

async function post(url: string, signed: { body: string; headers: Record<string, string> }) {
	const answer = await fetch(url, {
		method: 'POST',
		headers: { ...signed.headers, 'Content-Type': 'application/json' },
		body: signed.body,
	});
	return { status: answer.status, body: (await answer.json()) as unknown };
}

describe('pausing: jobs created with the resume URL, the execution saved waiting', () => {
	it('holds no execution and makes no status request while 3 jobs run, then resumes once, after the last event', async () => {
		const { credentials } = await freshAccount();
		const run = await pause({
			parameters: transcribe('pauseUntilWebhook'),
			input: await mediaItems(),
			credentials,
		});
		expect(run.status).toBe('waiting');
		expect(run.waitTill!.getTime()).toBeGreaterThan(Date.now() + 590_000);
		const creates = env.proxy.exchanges.filter(
			(exchange) => exchange.method === 'POST' && exchange.url.endsWith('/transcriptions'),
		);
		expect(
			creates.map((create) => (create.requestJson as { webhook_url: string }).webhook_url),
		).toEqual([run.resumeUrl, run.resumeUrl, run.resumeUrl]);

		await within(run.finished());
		expect(run.errors).toEqual([]);
		expect(run.calls.map((call) => [call.status, call.resumed])).toEqual([
			[200, false],
			[200, false],
			[200, true],
		]);
		expect(run.calls[0].response).toEqual({ received: true, waiting_for: 2 });
		expect(run.calls[1].response).toEqual({ received: true, waiting_for: 1 });
		// Status requests only once every job had ended: one snapshot per job for the output.
		const resumedAt = statusRequests();
		expect(resumedAt).toHaveLength(3);
	});

	it('outputs what Poll mode outputs: the same items, fields and transcript bytes', async () => {
		const { credentials } = await freshAccount();
		const run = await pause({
			parameters: transcribe('pauseUntilWebhook'),
			input: await mediaItems(),
			credentials,
		});
		await within(run.finished());
		const paused = run.output();

		const polled = (
			await runWorkflow({
				nodes: [actionNode(transcribe('poll'))],
				input: await mediaItems(),
				credentials,
			})
		).output(ACTION_NODE);

		expect(paused).toHaveLength(3);
		expect(paused.map((item) => item.pairedItem)).toEqual(polled.map((item) => item.pairedItem));
		for (const [index, item] of paused.entries()) {
			const other = polled[index];
			expect(Object.keys(item.json).sort()).toEqual(Object.keys(other.json).sort());
			expect(item.json.status).toBe('completed');
			expect(item.json.text).toBe(other.json.text);
			expect(item.json.analysis).toEqual(other.json.analysis);
			expect(Object.keys(item.binary ?? {}).sort()).toEqual(['srt', 'txt']);
			for (const format of ['srt', 'txt']) {
				const [mine, theirs] = [item.binary![format], other.binary![format]];
				expect(mine.fileName).toBe(theirs.fileName);
				expect(mine.mimeType).toBe(theirs.mimeType);
				expect((await binaryBytes(mine)).equals(await binaryBytes(theirs))).toBe(true);
			}
		}
	});
});

describe('what reaches the resume URL', () => {
	it('refuses a forgery (401), an event of a job it did not start (409) and a test delivery (409) without resuming', async () => {
		const { credentials, signingSecret } = await freshAccount();
		const run = await pause({
			parameters: transcribe('pauseUntilWebhook'),
			input: await mediaItems([FILES[0]]),
			credentials,
		});
		const [stored] = run.storedItems();
		const jobId = (stored.json.transcription_pause as { job_id: string }).job_id;

		const forged = signedEvent('whsec_not_the_secret', { job_id: jobId });
		expect(await post(run.resumeUrl, forged)).toEqual({
			status: 401,
			body: { error: 'signature_mismatch' },
		});
		const tampered = signedEvent(signingSecret, { job_id: jobId });
		expect(
			(
				await post(run.resumeUrl, {
					...tampered,
					body: tampered.body.replace('completed', 'failed!'),
				})
			).status,
		).toBe(401);
		expect(
			await post(run.resumeUrl, signedEvent(signingSecret, { job_id: 'job_of_another_run' })),
		).toEqual({
			status: 409,
			body: { error: 'unknown_job' },
		});
		const test = signedEvent(signingSecret, { job_id: jobId, test_mode: true } as never);
		expect((await post(run.resumeUrl, test)).body).toEqual({ error: 'not_a_job_event' });
		expect(run.status).toBe('waiting');

		await within(run.finished());
		expect(run.calls.filter((call) => call.resumed)).toHaveLength(1);
		expect(run.output()[0].json.status).toBe('completed');
	});

	it('resumes once when every event arrives twice', async () => {
		const { credentials } = await freshAccount();
		await env.admin.setFaults({ webhooks: { duplicateProbability: 1 } });
		const run = await pause({
			parameters: transcribe('pauseUntilWebhook'),
			input: await mediaItems(FILES.slice(0, 2)),
			credentials,
		});
		await within(run.finished());
		await env.admin.webhookDeliveries({ waitIdle: true });
		expect(run.errors).toEqual([]);
		expect(run.calls.filter((call) => call.resumed)).toHaveLength(1);
		expect(run.calls.length).toBeGreaterThanOrEqual(3);
		expect(run.output().map((item) => item.json.status)).toEqual(['completed', 'completed']);
	});

	it('gives job_failed for the item whose job failed, and the transcript for the others', async () => {
		const { credentials } = await freshAccount();
		const notMedia = await binaryItem({
			data: Buffer.from('this is not audio'.repeat(100)),
			fileName: 'notes.wav',
			mimeType: 'audio/wav',
		});
		const run = await pause({
			parameters: transcribe('pauseUntilWebhook'),
			input: [(await mediaItems([FILES[0]]))[0], notMedia],
			credentials,
		});
		await within(run.finished());
		const [good, failed] = run.output();
		expect(good.json.status).toBe('completed');
		expect(failed.binary).toBeUndefined();
		expect(failed.json.error).toMatchObject({
			code: 'job_failed',
			status: 'failed',
			job_id: expect.any(String),
			upload_id: expect.any(String),
		});
		expect(failed.pairedItem).toEqual({ item: 1 });
	});
});

describe('when the wait runs out', () => {
	it("n8n passes the stored items on: each is Poll mode's max_wait_exceeded error, naming its job", async () => {
		const { credentials } = await freshAccount();
		const run = await pause({
			parameters: transcribe('pauseUntilWebhook', { options: { maxWaitSeconds: 60 } }),
			input: await mediaItems(FILES.slice(0, 2)),
			credentials,
		});
		await run.timeout();
		const output = run.output();
		expect(output).toHaveLength(2);
		for (const [index, item] of output.entries()) {
			expect(item.binary).toBeUndefined();
			expect(item.json.error).toMatchObject({
				code: 'max_wait_exceeded',
				job_id: expect.any(String),
				upload_id: expect.any(String),
				message: expect.stringMatching(/did not finish within the Max Wait of 60 s/),
			});
			expect(item.json.text).toBeUndefined();
			expect(item.pairedItem).toEqual({ item: index });
		}
		// Events that arrive later meet a finished execution.
		await env.admin.webhookDeliveries({ waitIdle: true });
		await new Promise((resolve) => setTimeout(resolve, 3000));
		expect(run.calls.every((call) => call.status === 409 && !call.resumed)).toBe(true);
	});
});

describe('another process receives the events (restart, queue-mode webhook processor)', () => {
	it('asks the service about the jobs it has heard nothing of, and resumes once', async () => {
		const { credentials } = await freshAccount();
		const run = await pause({
			parameters: transcribe('pauseUntilWebhook'),
			input: await mediaItems(FILES.slice(0, 2)),
			credentials,
		});
		run.otherProcess = true;
		await within(run.finished());
		expect(run.errors).toEqual([]);
		expect(run.calls.filter((call) => call.resumed)).toHaveLength(1);
		expect(run.output().map((item) => item.json.status)).toEqual(['completed', 'completed']);
		// At least the unaccounted job was asked for before resuming, then each snapshot once.
		expect(statusRequests().length).toBeGreaterThanOrEqual(3);
	});
});

describe('a job that ended before the execution was saved waiting', () => {
	it('is checked once before pausing, since n8n refused its event (409, "running") and the service does not repeat a 409', async () => {
		const { credentials } = await freshAccount();
		// Each upload takes 3.5 s: the first job (2 s) ends while the second item is still uploading.
		await env.admin.setFaults({
			rules: [{ route: 'uploadBinary', kind: 'latency', latency_ms: 3500 }],
		});
		const run = await pause({
			parameters: transcribe('pauseUntilWebhook'),
			input: await mediaItems(FILES.slice(0, 2)),
			credentials,
		});
		await within(run.finished());
		expect(run.calls.map((call) => [call.status, call.resumed])).toEqual([
			[409, false],
			[200, true],
		]);
		expect(run.output().map((item) => item.json.status)).toEqual(['completed', 'completed']);
	}, 60_000);
});

describe('where it cannot work, it says so before starting a job', () => {
	it('with test keys the jobs end at once: no pause, the same output as Poll mode', async () => {
		const { credentials } = await freshAccount('test');
		const run = await pause({
			parameters: transcribe('pauseUntilWebhook'),
			input: await mediaItems([FILES[0]]),
			credentials,
		});
		expect(run.status).toBe('finished');
		expect(run.firstRun.waitTill).toBeUndefined();
		expect(run.output()[0].json.status).toBe('completed');
		expect(Object.keys(run.output()[0].binary ?? {}).sort()).toEqual(['srt', 'txt']);
	});

	it('without a Signing Secret: signing_secret_missing, nothing created', async () => {
		const { accountId, credentials } = await freshAccount();
		const result = await runWorkflow({
			nodes: [actionNode(transcribe('pauseUntilWebhook'), { continueOnFail: true })],
			input: await mediaItems(FILES.slice(0, 2)),
			credentials: { ...credentials, signingSecret: '  ' },
		});
		const output = result.output(ACTION_NODE);
		expect(output.map((item) => (item.json.error as { code: string }).code)).toEqual([
			'signing_secret_missing',
			'signing_secret_missing',
		]);
		const records = await env.admin.records(accountId);
		expect(records.uploads).toHaveLength(0);
		expect(records.jobs).toHaveLength(0);
	});

	it('a public service and a resume URL it cannot reach: resume_url_not_public, no request sent', async () => {
		const { credentials } = await freshAccount();
		const result = await runWorkflow({
			nodes: [actionNode(transcribe('pauseUntilWebhook'), { continueOnFail: true })],
			input: await mediaItems([FILES[0]]),
			credentials: { ...credentials, baseUrl: 'https://api.transcription.example' },
		});
		const [item] = result.output(ACTION_NODE);
		expect(item.json.error).toMatchObject({
			code: 'resume_url_not_public',
			message: expect.stringMatching(
				/^The service cannot reach this n8n's resume URL http:\/\/127\.0\.0\.1:5678\/webhook-waiting\/.+: it is http, not https$/,
			),
			description: expect.stringMatching(/WEBHOOK_URL.*Wait Mode: Poll\. No job was started\.$/),
		});
		expect(env.proxy.exchanges).toHaveLength(0);
	});

	it('the service refuses the resume URL: its error code, what to do, and no job', async () => {
		const strict = await startSandbox({ port: 0, quiet: true, jobSeconds: 2 });
		try {
			const strictAdmin = new SandboxAdmin(strict.baseUrl);
			const key = await strictAdmin.createKey({ mode: 'live', tier: 'platinum' });
			const result = await runWorkflow({
				nodes: [actionNode(transcribe('pauseUntilWebhook'), { continueOnFail: true })],
				input: await mediaItems([FILES[0]]),
				credentials: {
					apiKey: key.key,
					baseUrl: strict.baseUrl,
					signingSecret: key.signing_secret as string,
				},
			});
			const [item] = result.output(ACTION_NODE);
			expect(item.json.error).toMatchObject({
				code: expect.stringMatching(/^(invalid_webhook_url|webhook_url_forbidden_target)$/),
				http_status: 400,
				upload_id: expect.any(String),
				message: expect.stringMatching(
					/^The service refused this n8n's resume URL http:\/\/127\.0\.0\.1:5678\/webhook-waiting\//,
				),
			});
			const records = await strictAdmin.records(key.account_id);
			expect(records.jobs).toHaveLength(0);
		} finally {
			await strict.close();
		}
	});

	it('a Webhook URL saved under Additional Fields is hidden in this mode and not used: the job gets the resume URL', async () => {
		const { credentials } = await freshAccount('test');
		const run = await pause({
			parameters: transcribe('pauseUntilWebhook', {
				additionalFields: { webhook_url: 'https://example.com/hook' },
			}),
			input: await mediaItems([FILES[0]]),
			credentials,
		});
		const [create] = env.proxy.exchanges.filter(
			(exchange) => exchange.method === 'POST' && exchange.url.endsWith('/transcriptions'),
		);
		expect((create.requestJson as { webhook_url: string }).webhook_url).toBe(run.resumeUrl);
		expect(run.output()[0].json.status).toBe('completed');
	});
});
