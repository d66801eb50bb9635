// What the sandbox keeps, and for how long. Request fields are bounded by the contract (openapi.yaml
// maxLength / maximum, so the 422 names the field); upload-slot records, their bytes and Idempotency-Key entries are
// evicted on the sandbox clock; and a cap keeps memory bounded inside the retention window, answered with 503
// service_unavailable (the envelope and Retry-After) instead of silently dropping a record or an idempotency guarantee.

import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { PublicUploadCreateResponse } from '../../src/api';
import {
	api,
	createJob,
	createSlot,
	expectError,
	GENEROUS_LIMITS,
	uploadMedia,
	useSandbox,
} from '../support/sandbox/client';
import type { SandboxHandle } from '../support/sandbox/client';

const HOUR = 3600;
const DAY = 24 * HOUR;
const SLOT_LIFETIME = 30 * 60;
const GiB = 1024 ** 3;

const dataDir = mkdtempSync(path.join(tmpdir(), 'sandbox-retention-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const handle = useSandbox({ rateLimits: GENEROUS_LIMITS, dataDir });
const longJobs = useSandbox({ rateLimits: GENEROUS_LIMITS, jobSeconds: 2 * DAY });
const fewSlots = useSandbox({ rateLimits: GENEROUS_LIMITS, recordLimits: { uploads: 3 } });
const fewKeys = useSandbox({ rateLimits: GENEROUS_LIMITS, recordLimits: { idempotencyKeys: 2 } });

const slotBody = { filename: 'meeting.wav', content_type: 'audio/wav', size_bytes: 1000 };

function createUpload(on: SandboxHandle, key: string, json: unknown, headers = {}) {
	return api(on.baseUrl, { path: '/api/v1/uploads', key, json, headers });
}

function expectFieldError(
	response: Awaited<ReturnType<typeof api>>,
	field: string,
	message: string,
): void {
	expect(expectError(response, 422, 'validation_error').details.errors).toEqual([
		{ location: 'body', field, message },
	]);
}

function storedFiles(): string[] {
	return readdirSync(dataDir);
}

describe('createUpload bounds (openapi.yaml PublicUploadCreateRequest)', () => {
	test.each([
		[
			'a 256-character filename',
			{ filename: `${'a'.repeat(252)}.wav` },
			'filename',
			'must NOT have more than 255 characters',
		],
		[
			'a 256-character content_type',
			{ content_type: `audio/${'x'.repeat(250)}` },
			'content_type',
			'must NOT have more than 255 characters',
		],
		['size_bytes 9e15', { size_bytes: 9e15 }, 'size_bytes', 'must be <= 10737418240'],
		['size_bytes 10 GiB + 1', { size_bytes: 10 * GiB + 1 }, 'size_bytes', 'must be <= 10737418240'],
	])('%s → 422 validation_error naming the field', async (_case, override, field, message) => {
		const response = await createUpload(handle, handle.sandbox.keys.platinum_live.key, {
			...slotBody,
			...override,
		});
		expectFieldError(response, field, message);
	});

	test('255 characters is the limit, counted in characters (code points), not UTF-8 bytes', async () => {
		const { key, account_id } = await handle.admin.createKey();
		// 251 microphones (4 UTF-8 bytes, 2 UTF-16 units each) + ".wav": 255 characters, 1,008 bytes.
		const filename = `${'🎙'.repeat(251)}.wav`;
		const response = await createUpload(handle, key, { ...slotBody, filename });
		expect(response.status).toBe(201);
		expect((await handle.admin.records(account_id)).uploads[0].filename).toBe(filename);
		const tooLong = await createUpload(handle, key, { ...slotBody, filename: `🎙${filename}` });
		expectFieldError(tooLong, 'filename', 'must NOT have more than 255 characters');
	});

	test('size_bytes of exactly 10 GiB is accepted', async () => {
		const response = await createUpload(handle, handle.sandbox.keys.platinum_live.key, {
			...slotBody,
			size_bytes: 10 * GiB,
		});
		expect(response.status).toBe(201);
	});

	test('60 slots with ~1 MB file names are all refused and none is kept', async () => {
		const { key, account_id } = await handle.admin.createKey();
		const filename = `${'n'.repeat(1_000_000)}.wav`;
		for (let slot = 0; slot < 60; slot++) {
			const response = await createUpload(
				handle,
				key,
				{ ...slotBody, filename },
				{
					'idempotency-key': `long-name-${slot}`,
				},
			);
			expectFieldError(response, 'filename', 'must NOT have more than 255 characters');
		}
		expect((await handle.admin.records(account_id)).counts.uploads).toBe(0);
	});
});

describe('createTranscription and testWebhook bounds', () => {
	test.each([
		['a 4,001-character user_prompt', { user_prompt: 'p'.repeat(4001) }, 'user_prompt', 4000],
		[
			'a 2,049-character webhook_url',
			{ webhook_url: `https://hooks.example.com/${'w'.repeat(2023)}` },
			'webhook_url',
			2048,
		],
	])('%s → 422 naming the field', async (_case, override, field, limit) => {
		const response = await api(handle.baseUrl, {
			path: '/api/v1/transcriptions',
			key: handle.sandbox.keys.platinum_live.key,
			json: { upload_id: 'upl_any', ...override },
		});
		expectFieldError(response, field, `must NOT have more than ${limit} characters`);
	});

	test.each([
		['webhook_url', { webhook_url: `https://hooks.example.com/${'w'.repeat(2023)}` }, 2048],
		['event_type', { webhook_url: 'https://hooks.example.com/', event_type: 'e'.repeat(101) }, 100],
	])('POST /webhooks/test with a too long %s → 422 naming it', async (field, json, limit) => {
		const response = await api(handle.baseUrl, {
			path: '/api/v1/webhooks/test',
			key: handle.sandbox.keys.platinum_live.key,
			json,
		});
		expectFieldError(response, field, `must NOT have more than ${limit} characters`);
	});
});

describe('upload slots are evicted on the sandbox clock', () => {
	test('an unused slot’s bytes go when it expires; its record answers 410 for 24 h, then nothing is kept (404)', async () => {
		const { key, account_id } = await handle.admin.createKey();
		const uploadId = await uploadMedia(handle.baseUrl, key);
		expect(storedFiles()).toContain(uploadId);

		await handle.admin.advanceClock(SLOT_LIFETIME);
		expect(storedFiles()).not.toContain(uploadId);
		const expired = await api(handle.baseUrl, {
			path: '/api/v1/transcriptions',
			key,
			json: { upload_id: uploadId },
		});
		expectError(expired, 410, 'upload_slot_expired');
		expect((await handle.admin.records(account_id)).uploads).toMatchObject([
			{ upload_id: uploadId, state: 'stored', source_deleted: true },
		]);

		await handle.admin.advanceClock(DAY - SLOT_LIFETIME);
		expect((await handle.admin.records(account_id)).counts.uploads).toBe(0);
		const gone = await api(handle.baseUrl, {
			path: '/api/v1/transcriptions',
			key,
			json: { upload_id: uploadId },
		});
		expectError(gone, 404, 'upload_not_found');
	});

	test('a slot that never got bytes is forgotten 24 h after creation', async () => {
		const { key, account_id } = await handle.admin.createKey();
		const slot = await createSlot(handle.baseUrl, key, { filename: 'a.wav', size_bytes: 10 });
		await handle.admin.advanceClock(DAY - 1);
		expect((await handle.admin.records(account_id)).counts.uploads).toBe(1);
		await handle.admin.advanceClock(1);
		expect((await handle.admin.records(account_id)).counts.uploads).toBe(0);
		const put = await api(handle.baseUrl, {
			method: 'PUT',
			path: slot.upload_url,
			key,
			body: Buffer.alloc(10),
			headers: { 'content-type': 'application/octet-stream' },
		});
		expectError(put, 404, 'upload_not_found');
	});

	test('a consumed slot’s record goes 24 h after creation; its job and artifact stay', async () => {
		const { key, account_id } = await handle.admin.createKey();
		const uploadId = await uploadMedia(handle.baseUrl, key);
		const job = await createJob(handle.baseUrl, key, { upload_id: uploadId });
		await handle.admin.advanceClock(DAY);
		const records = await handle.admin.records(account_id);
		expect(records.counts).toEqual({ uploads: 0, jobs: 1 });
		expect(records.jobs[0]).toMatchObject({
			job_id: job.job_id,
			upload_id: uploadId,
			status: 'completed',
		});
		const artifact = await api(handle.baseUrl, { path: `${job.links.self}/artifact.txt`, key });
		expect(artifact.status).toBe(200);
	});

	test('a slot whose job is still running keeps its record and bytes until the job ends', async () => {
		const { key, account_id } = await longJobs.admin.createKey();
		const uploadId = await uploadMedia(longJobs.baseUrl, key);
		await createJob(longJobs.baseUrl, key, { upload_id: uploadId });
		await longJobs.admin.advanceClock(DAY + HOUR);
		expect((await longJobs.admin.records(account_id)).uploads).toMatchObject([
			{ upload_id: uploadId, state: 'consumed', source_deleted: false },
		]);
		await longJobs.admin.advanceClock(DAY);
		const records = await longJobs.admin.records(account_id);
		expect(records.counts).toEqual({ uploads: 0, jobs: 1 });
		expect(records.jobs[0].status).toBe('completed');
	});
});

describe('record caps: 503 service_unavailable when full, never a silent loss', () => {
	test('slots past the cap are refused with Retry-After and nothing is created; they age out after 24 h', async () => {
		const { key, account_id } = await fewSlots.admin.createKey();
		for (let slot = 0; slot < 3; slot++) {
			expect((await createUpload(fewSlots, key, slotBody)).status).toBe(201);
		}
		const full = await createUpload(fewSlots, key, slotBody);
		expect(expectError(full, 503, 'service_unavailable').details).toMatchObject({
			limit: 3,
			retry_after_seconds: expect.any(Number),
		});
		expect(Number(full.headers['retry-after'])).toBeGreaterThan(DAY - 60);
		expect(Number(full.headers['retry-after'])).toBeLessThanOrEqual(DAY);
		expect((await fewSlots.admin.records(account_id)).counts.uploads).toBe(3);

		await fewSlots.admin.advanceClock(DAY);
		expect((await createUpload(fewSlots, key, slotBody)).status).toBe(201);
		expect((await fewSlots.admin.records(account_id)).counts.uploads).toBe(1);
	});

	test('a new Idempotency-Key past the cap is refused before anything runs; known keys still replay', async () => {
		const { key, account_id } = await fewKeys.admin.createKey();
		const first = await createUpload(fewKeys, key, slotBody, { 'idempotency-key': 'key-a' });
		expect(first.status).toBe(201);
		expect(
			(await createUpload(fewKeys, key, slotBody, { 'idempotency-key': 'key-b' })).status,
		).toBe(201);

		const full = await createUpload(fewKeys, key, slotBody, { 'idempotency-key': 'key-c' });
		expect(expectError(full, 503, 'service_unavailable').details).toMatchObject({
			limit: 2,
			idempotency_key: 'key-c',
		});
		expect(Number(full.headers['retry-after'])).toBeGreaterThan(DAY - 60);
		expect((await fewKeys.admin.records(account_id)).counts.uploads).toBe(2);

		const replay = await createUpload(fewKeys, key, slotBody, { 'idempotency-key': 'key-a' });
		expect(replay.status).toBe(201);
		expect(replay.headers['idempotent-replayed']).toBe('true');
		expect((replay.json as PublicUploadCreateResponse).upload_id).toBe(
			(first.json as PublicUploadCreateResponse).upload_id,
		);
		// Without the header the cache is bypassed (spec 8), so the cap on keys does not apply.
		expect((await createUpload(fewKeys, key, slotBody)).status).toBe(201);

		await fewKeys.admin.advanceClock(DAY);
		expect(
			(await createUpload(fewKeys, key, slotBody, { 'idempotency-key': 'key-c' })).status,
		).toBe(201);
	});
});
