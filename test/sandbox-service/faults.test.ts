// Fault injection (POST /_sandbox/faults): injected 5xx/429 in the envelope, connection resets, a
// response lost after the write committed (the idempotency case), latency, webhook duplicates, and
// determinism with a seed.

import type { PublicUploadCreateResponse } from '../../src/api';
import type { FaultRule } from '../../sandbox/faults';
import {
	api,
	createJob,
	expectError,
	expectRateLimitHeaders,
	GENEROUS_LIMITS,
	startReceiver,
	uploadMedia,
	useSandbox,
} from '../support/sandbox/client';

const handle = useSandbox({ allowLocalWebhooks: true, rateLimits: GENEROUS_LIMITS });
const key = () => handle.sandbox.keys.platinum_live.key;
const account = () => api(handle.baseUrl, { path: '/api/v1/account', key: key() });
const slotBody = { filename: 'fault.wav', content_type: 'audio/wav', size_bytes: 10 };

afterEach(async () => {
	await handle.admin.clearFaults();
});

describe('injected HTTP errors', () => {
	test.each([
		['500', 500, 'internal_error'],
		['502', 502, 'upstream_unavailable'],
		['503', 503, 'service_unavailable'],
	] as const)('%s uses the envelope, then the count is spent', async (kind, status, code) => {
		await handle.admin.setFaults({ rules: [{ route: 'getAccount', kind, count: 1 }] });
		const error = expectError(await account(), status, code);
		expect(error.details.resolution_url).toBe(`${handle.baseUrl}/developers/api-reference#${code}`);
		expect((await account()).status).toBe(200);
	});

	test('429 carries Retry-After and the rate-limit headers', async () => {
		await handle.admin.setFaults({ rules: [{ route: '*', kind: '429', count: 1 }] });
		const response = await account();
		expectError(response, 429, 'rate_limit_exceeded');
		expectRateLimitHeaders(response);
		expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
	});

	test('a rule for one route leaves the others alone', async () => {
		await handle.admin.setFaults({ rules: [{ route: 'createUpload', kind: '503' }] });
		expect((await account()).status).toBe(200);
		expectError(
			await api(handle.baseUrl, { path: '/api/v1/uploads', key: key(), json: slotBody }),
			503,
			'service_unavailable',
		);
	});

	test('DELETE /_sandbox/faults clears every rule', async () => {
		await handle.admin.setFaults({ rules: [{ route: '*', kind: '500' }] });
		await handle.admin.clearFaults();
		expect((await account()).status).toBe(200);
	});

	test('latency delays, then the request is handled normally', async () => {
		await handle.admin.setFaults({
			rules: [{ route: 'getAccount', kind: 'latency', latency_ms: 50 }],
		});
		expect((await account()).status).toBe(200);
	});

	test('an unusable rule is 422 validation_error', async () => {
		await expect(
			handle.admin.setFaults({
				rules: [{ route: 'noSuchOperation', kind: '500' } as unknown as FaultRule],
			}),
		).rejects.toMatchObject({ status: 422 });
		await expect(
			handle.admin.setFaults({ rules: [{ route: '*', kind: 'latency' }] }),
		).rejects.toMatchObject({ status: 422 });
	});
});

describe('broken connections', () => {
	test('reset: the socket closes before any answer, and nothing is created', async () => {
		const before = (await handle.admin.records('acct_sandbox_platinum')).counts.uploads;
		await handle.admin.setFaults({ rules: [{ route: 'createUpload', kind: 'reset', count: 1 }] });
		await expect(
			api(handle.baseUrl, { path: '/api/v1/uploads', key: key(), json: slotBody }),
		).rejects.toThrow();
		expect((await handle.admin.records('acct_sandbox_platinum')).counts.uploads).toBe(before);
	});

	test('drop_after_commit: no answer, the slot exists, and the retry with the same key gets it', async () => {
		const headers = { 'idempotency-key': 'drop-after-commit-1' };
		await handle.admin.setFaults({
			rules: [{ route: 'createUpload', kind: 'drop_after_commit', count: 1 }],
		});
		await expect(
			api(handle.baseUrl, { path: '/api/v1/uploads', key: key(), json: slotBody, headers }),
		).rejects.toThrow();
		const committed = (await handle.admin.records('acct_sandbox_platinum')).uploads.filter(
			(upload) => upload.idempotency_key === 'drop-after-commit-1',
		);
		expect(committed).toHaveLength(1);

		const retry = await api(handle.baseUrl, {
			path: '/api/v1/uploads',
			key: key(),
			json: slotBody,
			headers,
		});
		expect(retry.status).toBe(201);
		expect((retry.json as PublicUploadCreateResponse).upload_id).toBe(committed[0].upload_id);
		expect(
			(await handle.admin.records('acct_sandbox_platinum')).uploads.filter(
				(u) => u.idempotency_key === 'drop-after-commit-1',
			),
		).toHaveLength(1);
	});

	test('drop_after_commit on the PUT: the bytes are stored although the client saw an error', async () => {
		const slot = (
			await api(handle.baseUrl, { path: '/api/v1/uploads', key: key(), json: slotBody })
		).json as PublicUploadCreateResponse;
		await handle.admin.setFaults({
			rules: [{ route: 'uploadBinary', kind: 'drop_after_commit', count: 1 }],
		});
		await expect(
			api(handle.baseUrl, {
				method: 'PUT',
				path: slot.upload_url,
				key: key(),
				body: Buffer.alloc(10),
			}),
		).rejects.toThrow();
		const record = (await handle.admin.records('acct_sandbox_platinum')).uploads.find(
			(u) => u.upload_id === slot.upload_id,
		);
		expect(record).toMatchObject({ state: 'stored', bytes_received: 10 });
	});
});

describe('determinism with a seed', () => {
	async function statuses(seed: number): Promise<number[]> {
		await handle.admin.setFaults({
			seed,
			rules: [{ route: 'getAccount', kind: '503', probability: 0.5 }],
		});
		const seen: number[] = [];
		for (let index = 0; index < 16; index += 1) seen.push((await account()).status);
		return seen;
	}

	test('the same seed gives the same faults for the same requests', async () => {
		const first = await statuses(1234);
		const second = await statuses(1234);
		expect(second).toEqual(first);
		expect(first).toContain(503);
		expect(first).toContain(200);
	});
});

describe('webhook faults', () => {
	test('duplicateProbability 1 delivers each event twice with one event_id', async () => {
		const receiver = await startReceiver();
		try {
			await handle.admin.setFaults({ webhooks: { duplicateProbability: 1 } });
			const uploadId = await uploadMedia(handle.baseUrl, handle.sandbox.keys.platinum_test.key);
			await createJob(handle.baseUrl, handle.sandbox.keys.platinum_test.key, {
				upload_id: uploadId,
				webhook_url: receiver.url,
			});
			await handle.admin.webhookDeliveries({ waitIdle: true });
			expect(receiver.received).toHaveLength(2);
			const ids = receiver.received.map((hook) => hook.headers['x-service-event-id']);
			expect(ids[0]).toBe(ids[1]);
		} finally {
			await receiver.close();
		}
	});
});
