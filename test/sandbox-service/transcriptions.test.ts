// Spec 4.4–4.6 and section 3: creating jobs (live 202 queued, test 200 completed), their progress on
// the sandbox clock, snapshots with ETag/304, the list with paging, and the terminal webhook events
// (section 6) checked with node:crypto directly.

import { createHmac } from 'node:crypto';
import type {
	PublicTranscriptionListResponse,
	PublicTranscriptionResponse,
	PublicTranscriptionWebhookEvent,
} from '../../src/api';
import { makeWav } from '../support/fixtures/media';
import type { ReceivedHook } from '../support/sandbox/client';
import {
	api,
	createJob,
	createSlot,
	expectError,
	expectRateLimitHeaders,
	GENEROUS_LIMITS,
	startReceiver,
	uploadMedia,
	useSandbox,
} from '../support/sandbox/client';

const JOB_SECONDS = 60;
const handle = useSandbox({
	jobSeconds: JOB_SECONDS,
	allowLocalWebhooks: true,
	rateLimits: GENEROUS_LIMITS,
});
const liveKey = () => handle.sandbox.keys.platinum_live.key;
const testKey = () => handle.sandbox.keys.platinum_test.key;

async function snapshot(path: string, key = liveKey()): Promise<PublicTranscriptionResponse> {
	const response = await api(handle.baseUrl, { path, key });
	expect(response.status).toBe(200);
	return response.json as PublicTranscriptionResponse;
}

async function wallet(): Promise<number> {
	return (
		(await api(handle.baseUrl, { path: '/api/v1/account', key: liveKey() })).json as {
			wallet_balance: number;
		}
	).wallet_balance;
}

describe('createTranscription with a live key (4.4, 3)', () => {
	test('202 queued, then processing, then completed on the sandbox clock', async () => {
		const uploadId = await uploadMedia(handle.baseUrl, liveKey(), {
			filename: 'standup.wav',
			seconds: 3,
		});
		const before = await wallet();
		const response = await api(handle.baseUrl, {
			path: '/api/v1/transcriptions',
			key: liveKey(),
			json: { upload_id: uploadId },
		});
		expect(response.status).toBe(202);
		expectRateLimitHeaders(response);
		const created = response.json as { job_id: string; status: string; links: { self: string } };
		expect(created).toEqual({
			job_id: expect.stringMatching(/^job_/),
			status: 'queued',
			links: { self: `/api/v1/transcriptions/${created.job_id}` },
		});

		const queued = await snapshot(created.links.self);
		expect(queued).toMatchObject({
			status: 'queued',
			media_duration_seconds: null,
			credits_used: null,
			analysis: { language: null, dialect: null },
			links: { self: created.links.self, artifact: `${created.links.self}/artifact` },
		});

		await handle.admin.advanceClock(JOB_SECONDS / 2);
		expect((await snapshot(created.links.self)).status).toBe('processing');

		await handle.admin.advanceClock(JOB_SECONDS / 2);
		const completed = await snapshot(created.links.self);
		expect(completed).toMatchObject({
			status: 'completed',
			media_duration_seconds: 3,
			credits_used: 1,
			analysis: { language: 'en', dialect: 'en-US' },
		});
		expect(Date.parse(completed.updated_at) - Date.parse(completed.created_at)).toBe(
			JOB_SECONDS * 1000,
		);
		expect(await wallet()).toBe(before - 1);

		const records = await handle.admin.records('acct_sandbox_platinum');
		expect(records.uploads.find((upload) => upload.upload_id === uploadId)).toMatchObject({
			state: 'consumed',
			source_deleted: true,
			job_id: created.job_id,
		});
	});

	test('Hebrew media is detected as he / he-IL', async () => {
		const uploadId = await uploadMedia(handle.baseUrl, liveKey(), { filename: 'ראיון.wav' });
		const job = await createJob(handle.baseUrl, liveKey(), { upload_id: uploadId });
		await handle.admin.advanceClock(JOB_SECONDS);
		expect((await snapshot(job.links.self)).analysis).toEqual({ language: 'he', dialect: 'he-IL' });
	});

	test('premium_quality costs twice as much', async () => {
		const uploadId = await uploadMedia(handle.baseUrl, liveKey(), { seconds: 2 });
		const job = await createJob(handle.baseUrl, liveKey(), {
			upload_id: uploadId,
			model_tier: 'premium_quality',
		});
		await handle.admin.advanceClock(JOB_SECONDS);
		expect((await snapshot(job.links.self)).credits_used).toBe(2);
	});

	test('media the sandbox cannot read fails', async () => {
		const uploadId = await uploadMedia(handle.baseUrl, liveKey(), {
			filename: 'noise.wav',
			bytes: Buffer.alloc(100, 7),
		});
		const job = await createJob(handle.baseUrl, liveKey(), { upload_id: uploadId });
		await handle.admin.advanceClock(JOB_SECONDS);
		expect(await snapshot(job.links.self)).toMatchObject({ status: 'failed', credits_used: 0 });
	});

	test('the admin API can fail a running job, once', async () => {
		const uploadId = await uploadMedia(handle.baseUrl, liveKey());
		const job = await createJob(handle.baseUrl, liveKey(), { upload_id: uploadId });
		expect((await handle.admin.failJob(job.job_id)).status).toBe('failed');
		expect((await snapshot(job.links.self)).status).toBe('failed');
		await expect(handle.admin.failJob(job.job_id)).rejects.toMatchObject({ status: 409 });
	});
});

describe('createTranscription with a test key (4.4, 5.6)', () => {
	test('200 completed synchronously with a mock transcript, nothing charged', async () => {
		const before = await wallet();
		const uploadId = await uploadMedia(handle.baseUrl, testKey(), { filename: 'demo.wav' });
		const response = await api(handle.baseUrl, {
			path: '/api/v1/transcriptions',
			key: testKey(),
			json: { upload_id: uploadId },
		});
		expect(response.status).toBe(200);
		const created = response.json as { job_id: string; status: string };
		expect(created.status).toBe('completed');
		const job = await snapshot(`/api/v1/transcriptions/${created.job_id}`, testKey());
		expect(job).toMatchObject({
			status: 'completed',
			credits_used: 0,
			analysis: { language: 'en', dialect: 'en-US' },
		});
		expect(job.media_duration_seconds).toBeGreaterThan(0);
		expect(await wallet()).toBe(before);
	});
});

describe('createTranscription errors (4.4, 7)', () => {
	test('an unknown property is 422 validation_error (additionalProperties false)', async () => {
		const uploadId = await uploadMedia(handle.baseUrl, liveKey());
		const response = await api(handle.baseUrl, {
			path: '/api/v1/transcriptions',
			key: liveKey(),
			json: { upload_id: uploadId, language: 'en' },
		});
		const error = expectError(response, 422, 'validation_error');
		expect(error.details.errors).toEqual([
			{ location: 'body', field: 'language', message: 'is not an allowed property' },
		]);
	});

	test.each([
		['a missing upload_id', {}],
		['an unknown model_tier', { upload_id: 'upl_x', model_tier: 'turbo' }],
		['an unknown output_format', { upload_id: 'upl_x', output_format: 'pdf' }],
		['a non-boolean translate_to_hebrew', { upload_id: 'upl_x', translate_to_hebrew: 'yes' }],
	])('%s is 422 validation_error', async (_name, json) => {
		expectError(
			await api(handle.baseUrl, { path: '/api/v1/transcriptions', key: liveKey(), json }),
			422,
			'validation_error',
		);
	});

	test('model_tier null and the other optional fields are accepted', async () => {
		const uploadId = await uploadMedia(handle.baseUrl, liveKey());
		const response = await api(handle.baseUrl, {
			path: '/api/v1/transcriptions',
			key: liveKey(),
			json: {
				upload_id: uploadId,
				model_tier: null,
				user_prompt: null,
				webhook_url: null,
				translate_to_hebrew: true,
				output_format: 'plain_text',
			},
		});
		expect(response.status).toBe(202);
	});

	test('a slot without bytes is 409 upload_not_available', async () => {
		const slot = await createSlot(handle.baseUrl, liveKey(), { filename: 'a.wav', size_bytes: 10 });
		const response = await api(handle.baseUrl, {
			path: '/api/v1/transcriptions',
			key: liveKey(),
			json: { upload_id: slot.upload_id },
		});
		expect(expectError(response, 409, 'upload_not_available').details).toMatchObject({
			state: 'awaiting_bytes',
		});
	});

	test('a slot already used is 409 upload_not_available (single use)', async () => {
		const uploadId = await uploadMedia(handle.baseUrl, liveKey());
		await createJob(handle.baseUrl, liveKey(), { upload_id: uploadId });
		const response = await api(handle.baseUrl, {
			path: '/api/v1/transcriptions',
			key: liveKey(),
			json: { upload_id: uploadId },
		});
		expect(expectError(response, 409, 'upload_not_available').details).toMatchObject({
			state: 'consumed',
		});
	});

	test('an unknown slot is 404 upload_not_found', async () => {
		const response = await api(handle.baseUrl, {
			path: '/api/v1/transcriptions',
			key: liveKey(),
			json: { upload_id: 'upl_nope' },
		});
		expectError(response, 404, 'upload_not_found');
	});

	test("another account's slot is 404 upload_not_found", async () => {
		const uploadId = await uploadMedia(handle.baseUrl, handle.sandbox.keys.premium_live.key);
		const response = await api(handle.baseUrl, {
			path: '/api/v1/transcriptions',
			key: liveKey(),
			json: { upload_id: uploadId },
		});
		expectError(response, 404, 'upload_not_found');
	});

	test('a slot older than 30 minutes is 410 upload_slot_expired, bytes or not', async () => {
		const uploadId = await uploadMedia(handle.baseUrl, liveKey());
		await handle.admin.advanceClock(30 * 60);
		const response = await api(handle.baseUrl, {
			path: '/api/v1/transcriptions',
			key: liveKey(),
			json: { upload_id: uploadId },
		});
		expect(expectError(response, 410, 'upload_slot_expired').details).toMatchObject({
			upload_id: uploadId,
		});
	});
});

describe('Idempotency-Key on POST /transcriptions (8)', () => {
	test('a retry replays the first 202 and creates no second job', async () => {
		const uploadId = await uploadMedia(handle.baseUrl, liveKey());
		const headers = { 'idempotency-key': 'job-replay-1' };
		const body = { upload_id: uploadId, output_format: 'srt' };
		const first = await api(handle.baseUrl, {
			path: '/api/v1/transcriptions',
			key: liveKey(),
			json: body,
			headers,
		});
		const retry = await api(handle.baseUrl, {
			path: '/api/v1/transcriptions',
			key: liveKey(),
			json: body,
			headers,
		});
		expect(first.status).toBe(202);
		expect(retry.status).toBe(202);
		expect(retry.json).toEqual(first.json);
		const jobs = (await handle.admin.records('acct_sandbox_platinum')).jobs.filter(
			(job) => job.idempotency_key === 'job-replay-1',
		);
		expect(jobs).toHaveLength(1);
		expect(jobs[0].idempotent_replays).toBe(1);
	});

	test('a different body is 409 idempotency_mismatch', async () => {
		const uploadId = await uploadMedia(handle.baseUrl, liveKey());
		const headers = { 'idempotency-key': 'job-mismatch' };
		await api(handle.baseUrl, {
			path: '/api/v1/transcriptions',
			key: liveKey(),
			json: { upload_id: uploadId },
			headers,
		});
		const response = await api(handle.baseUrl, {
			path: '/api/v1/transcriptions',
			key: liveKey(),
			json: { upload_id: uploadId, translate_to_hebrew: true },
			headers,
		});
		expectError(response, 409, 'idempotency_mismatch');
	});

	test('an error is not stored: the retry runs again once the bytes are there', async () => {
		const slot = await createSlot(handle.baseUrl, liveKey(), {
			filename: 'retry.wav',
			size_bytes: makeWav({ seconds: 1 }).length,
		});
		const headers = { 'idempotency-key': 'job-after-error' };
		const body = { upload_id: slot.upload_id };
		expectError(
			await api(handle.baseUrl, {
				path: '/api/v1/transcriptions',
				key: liveKey(),
				json: body,
				headers,
			}),
			409,
			'upload_not_available',
		);
		await api(handle.baseUrl, {
			method: 'PUT',
			path: slot.upload_url,
			key: liveKey(),
			body: makeWav({ seconds: 1 }),
		});
		expect(
			(
				await api(handle.baseUrl, {
					path: '/api/v1/transcriptions',
					key: liveKey(),
					json: body,
					headers,
				})
			).status,
		).toBe(202);
	});
});

describe('getTranscription: ETag and 304 (4.6)', () => {
	test('If-None-Match with the current ETag answers 304 with ETag, X-Request-ID and rate-limit headers', async () => {
		const uploadId = await uploadMedia(handle.baseUrl, liveKey());
		const job = await createJob(handle.baseUrl, liveKey(), { upload_id: uploadId });
		const first = await api(handle.baseUrl, { path: job.links.self, key: liveKey() });
		const etag = first.headers.etag;
		expect(etag).toMatch(/^"[^"]+"$/);

		const notModified = await api(handle.baseUrl, {
			path: job.links.self,
			key: liveKey(),
			headers: { 'if-none-match': etag },
		});
		expect(notModified.status).toBe(304);
		expect(notModified.bytes.length).toBe(0);
		expect(notModified.headers.etag).toBe(etag);
		expect(notModified.headers['x-request-id']).toMatch(/^req_/);
		expectRateLimitHeaders(notModified);

		await handle.admin.advanceClock(JOB_SECONDS);
		const changed = await api(handle.baseUrl, {
			path: job.links.self,
			key: liveKey(),
			headers: { 'if-none-match': etag },
		});
		expect(changed.status).toBe(200);
		expect(changed.headers.etag).not.toBe(etag);
		expect((changed.json as PublicTranscriptionResponse).status).toBe('completed');
	});

	test('a weak or listed ETag also matches', async () => {
		const uploadId = await uploadMedia(handle.baseUrl, liveKey());
		const job = await createJob(handle.baseUrl, liveKey(), { upload_id: uploadId });
		const etag = (await api(handle.baseUrl, { path: job.links.self, key: liveKey() })).headers.etag;
		const response = await api(handle.baseUrl, {
			path: job.links.self,
			key: liveKey(),
			headers: { 'if-none-match': `"other", W/${etag}` },
		});
		expect(response.status).toBe(304);
	});

	test('an unknown job is 404 job_not_found', async () => {
		expectError(
			await api(handle.baseUrl, { path: '/api/v1/transcriptions/job_nope', key: liveKey() }),
			404,
			'job_not_found',
		);
	});

	test("another account's job is 404 job_not_found", async () => {
		const uploadId = await uploadMedia(handle.baseUrl, liveKey());
		const job = await createJob(handle.baseUrl, liveKey(), { upload_id: uploadId });
		const response = await api(handle.baseUrl, {
			path: job.links.self,
			key: handle.sandbox.keys.premium_live.key,
		});
		expectError(response, 404, 'job_not_found');
	});
});

describe('listTranscriptions (4.5)', () => {
	let key: string;
	const jobIds: string[] = [];

	beforeAll(async () => {
		key = (await handle.admin.createKey({ tier: 'platinum' })).key;
		for (let index = 0; index < 5; index += 1) {
			const uploadId = await uploadMedia(handle.baseUrl, key);
			jobIds.push((await createJob(handle.baseUrl, key, { upload_id: uploadId })).job_id);
		}
		await handle.admin.failJob(jobIds[1]);
	});

	const list = async (query = '') => {
		const response = await api(handle.baseUrl, { path: `/api/v1/transcriptions${query}`, key });
		expect(response.status).toBe(200);
		return response.json as PublicTranscriptionListResponse;
	};

	test('newest first, only the account’s jobs, default page of 20', async () => {
		const page = await list();
		expect(page.items.map((item) => item.job_id)).toEqual([...jobIds].reverse());
		expect(page.total).toBe(5);
		expect(page.links).toEqual({
			self: '/api/v1/transcriptions?limit=20&cursor=0',
			next: null,
			prev: null,
		});
	});

	test('limit and cursor page through with next and prev links', async () => {
		const first = await list('?limit=2');
		expect(first.items.map((item) => item.job_id)).toEqual([jobIds[4], jobIds[3]]);
		expect(first.links).toEqual({
			self: '/api/v1/transcriptions?limit=2&cursor=0',
			next: '/api/v1/transcriptions?limit=2&cursor=2',
			prev: null,
		});
		const last = await list('?limit=2&cursor=4');
		expect(last.items.map((item) => item.job_id)).toEqual([jobIds[0]]);
		expect(last.links.next).toBeNull();
		expect(last.links.prev).toBe('/api/v1/transcriptions?limit=2&cursor=2');
		expect(last.total).toBe(5);
	});

	test('a cursor past the end is an empty page', async () => {
		const page = await list('?cursor=50');
		expect(page.items).toEqual([]);
		expect(page.total).toBe(5);
	});

	test('status filters, and total counts the matches', async () => {
		const failed = await list('?status=failed');
		expect(failed.items.map((item) => item.job_id)).toEqual([jobIds[1]]);
		expect(failed.total).toBe(1);
		expect(failed.links.self).toBe('/api/v1/transcriptions?limit=20&cursor=0&status=failed');
	});

	test.each([
		['limit=0', '?limit=0', 'limit'],
		['limit=101', '?limit=101', 'limit'],
		['limit=abc', '?limit=abc', 'limit'],
		['cursor=-1', '?cursor=-1', 'cursor'],
		['cursor=1.5', '?cursor=1.5', 'cursor'],
	])('%s is 422 validation_error', async (_name, query, field) => {
		const response = await api(handle.baseUrl, { path: `/api/v1/transcriptions${query}`, key });
		const error = expectError(response, 422, 'validation_error');
		expect(error.details.errors).toEqual([expect.objectContaining({ location: 'query', field })]);
	});
});

describe('terminal webhook events (6)', () => {
	let receiver: Awaited<ReturnType<typeof startReceiver>>;
	beforeAll(async () => {
		receiver = await startReceiver();
	});
	afterAll(async () => {
		await receiver.close();
	});

	function verify(hook: ReceivedHook, secret: string): PublicTranscriptionWebhookEvent {
		const timestamp = String(hook.headers['x-service-timestamp']);
		const expected = createHmac('sha256', secret).update(`${timestamp}.${hook.body}`).digest('hex');
		expect(hook.headers['x-service-signature']).toBe(`v1=${expected}`);
		return JSON.parse(hook.body) as PublicTranscriptionWebhookEvent;
	}

	async function hooksFor(jobId: string): Promise<ReceivedHook[]> {
		await handle.admin.webhookDeliveries({ waitIdle: true });
		return receiver.received.filter(
			(hook) => (JSON.parse(hook.body) as { job_id: string }).job_id === jobId,
		);
	}

	test('transcription.completed, signed with the account secret, absolute links, created_at = terminal time', async () => {
		const uploadId = await uploadMedia(handle.baseUrl, liveKey());
		const job = await createJob(handle.baseUrl, liveKey(), {
			upload_id: uploadId,
			webhook_url: receiver.url,
		});
		expect(await hooksFor(job.job_id)).toEqual([]);
		await handle.admin.advanceClock(JOB_SECONDS);
		const [hook] = await hooksFor(job.job_id);
		const event = verify(hook, handle.sandbox.keys.platinum_live.signing_secret);
		const completed = await snapshot(job.links.self);
		expect(event).toEqual({
			event: 'transcription.completed',
			event_id: expect.stringMatching(/^evt_/),
			job_id: job.job_id,
			status: 'completed',
			created_at: completed.updated_at,
			links: {
				self: `${handle.baseUrl}${job.links.self}`,
				artifact: `${handle.baseUrl}${job.links.self}/artifact`,
			},
		});
		expect(hook.headers['x-service-event']).toBe('transcription.completed');
		expect(hook.headers['x-service-event-id']).toBe(event.event_id);
		expect(hook.headers['content-type']).toMatch(/^application\/json/);
	});

	test('transcription.failed carries links.artifact null', async () => {
		const uploadId = await uploadMedia(handle.baseUrl, liveKey());
		const job = await createJob(handle.baseUrl, liveKey(), {
			upload_id: uploadId,
			webhook_url: receiver.url,
		});
		await handle.admin.failJob(job.job_id);
		const [hook] = await hooksFor(job.job_id);
		const event = verify(hook, handle.sandbox.keys.platinum_live.signing_secret);
		expect(event).toMatchObject({
			event: 'transcription.failed',
			status: 'failed',
			links: { artifact: null },
		});
		expect(hook.headers['x-service-event']).toBe('transcription.failed');
	});

	test('a test-key job still sends its event', async () => {
		const uploadId = await uploadMedia(handle.baseUrl, testKey());
		const job = await createJob(handle.baseUrl, testKey(), {
			upload_id: uploadId,
			webhook_url: receiver.url,
		});
		const [hook] = await hooksFor(job.job_id);
		expect(verify(hook, handle.sandbox.keys.platinum_test.signing_secret)).toMatchObject({
			event: 'transcription.completed',
		});
	});

	test('every attempt is in the admin delivery log', async () => {
		const deliveries = await handle.admin.webhookDeliveries();
		expect(deliveries.length).toBeGreaterThanOrEqual(3);
		expect(
			deliveries.every((delivery) => delivery.url === receiver.url && delivery.status_code === 200),
		).toBe(true);
	});
});
