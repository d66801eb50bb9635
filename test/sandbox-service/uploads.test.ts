// Spec 4.2 (POST /uploads), 4.3 (PUT …/binary), the slot lifecycle of section 3 and the
// Idempotency-Key rules of section 8 for slot creation.

import http from 'node:http';

import {
	api,
	createSlot,
	expectError,
	expectRateLimitHeaders,
	GENEROUS_LIMITS,
	useSandbox,
} from '../support/sandbox/client';

const handle = useSandbox({ rateLimits: GENEROUS_LIMITS });
const key = () => handle.sandbox.keys.platinum_live.key;

function put(path: string, body: Buffer | undefined, apiKey = key()) {
	return api(handle.baseUrl, {
		method: 'PUT',
		path,
		key: apiKey,
		body,
		headers: { 'content-type': 'application/octet-stream' },
	});
}

describe('createUpload: POST /uploads (4.2)', () => {
	test('201 with a relative upload_url, PUT and expires_at 30 minutes ahead', async () => {
		const before = Date.parse((await handle.admin.clock()).now);
		const response = await api(handle.baseUrl, {
			path: '/api/v1/uploads',
			key: key(),
			json: { filename: 'meeting.wav', content_type: 'audio/wav', size_bytes: 1234 },
		});
		expect(response.status).toBe(201);
		expectRateLimitHeaders(response);
		const body = response.json as Record<string, string>;
		expect(Object.keys(body).sort()).toEqual([
			'expires_at',
			'upload_id',
			'upload_method',
			'upload_url',
		]);
		expect(body.upload_url).toBe(`/api/v1/uploads/${body.upload_id}/binary`);
		expect(body.upload_method).toBe('PUT');
		const lifetime = Date.parse(body.expires_at) - before;
		expect(lifetime).toBeGreaterThanOrEqual(30 * 60 * 1000);
		expect(lifetime).toBeLessThan(31 * 60 * 1000);
	});

	test.each([
		['a missing filename', { content_type: 'audio/wav', size_bytes: 1 }, 'filename'],
		['size_bytes 0', { filename: 'a.wav', content_type: 'audio/wav', size_bytes: 0 }, 'size_bytes'],
		[
			'a negative size_bytes',
			{ filename: 'a.wav', content_type: 'audio/wav', size_bytes: -5 },
			'size_bytes',
		],
		[
			'a fractional size_bytes',
			{ filename: 'a.wav', content_type: 'audio/wav', size_bytes: 1.5 },
			'size_bytes',
		],
	])('%s is 422 validation_error', async (_name, json, field) => {
		const response = await api(handle.baseUrl, { path: '/api/v1/uploads', key: key(), json });
		const error = expectError(response, 422, 'validation_error');
		expect(error.details.errors).toEqual(
			expect.arrayContaining([expect.objectContaining({ location: 'body', field })]),
		);
	});
});

describe('Idempotency-Key on POST /uploads (8)', () => {
	const slotBody = { filename: 'idem.wav', content_type: 'audio/wav', size_bytes: 42 };

	test('the same key and body replays the first 201 and body with a new X-Request-ID', async () => {
		const headers = { 'idempotency-key': 'upload-replay-1' };
		const first = await api(handle.baseUrl, {
			path: '/api/v1/uploads',
			key: key(),
			json: slotBody,
			headers,
		});
		const second = await api(handle.baseUrl, {
			path: '/api/v1/uploads',
			key: key(),
			json: slotBody,
			headers,
		});
		expect(first.status).toBe(201);
		expect(second.status).toBe(201);
		expect(second.json).toEqual(first.json);
		expect(second.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
		expect(second.headers['idempotent-replayed']).toBe('true');
		const records = await handle.admin.records('acct_sandbox_platinum');
		const slots = records.uploads.filter((upload) => upload.idempotency_key === 'upload-replay-1');
		expect(slots).toHaveLength(1);
		expect(slots[0].idempotent_replays).toBe(1);
	});

	test('key order in the body does not matter', async () => {
		const headers = { 'idempotency-key': 'upload-order' };
		const first = await api(handle.baseUrl, {
			path: '/api/v1/uploads',
			key: key(),
			json: slotBody,
			headers,
		});
		const reordered = { size_bytes: 42, content_type: 'audio/wav', filename: 'idem.wav' };
		const second = await api(handle.baseUrl, {
			path: '/api/v1/uploads',
			key: key(),
			json: reordered,
			headers,
		});
		expect(second.json).toEqual(first.json);
	});

	test('the same key with a different body is 409 idempotency_mismatch', async () => {
		const headers = { 'idempotency-key': 'upload-mismatch' };
		await api(handle.baseUrl, { path: '/api/v1/uploads', key: key(), json: slotBody, headers });
		const response = await api(handle.baseUrl, {
			path: '/api/v1/uploads',
			key: key(),
			json: { ...slotBody, size_bytes: 43 },
			headers,
		});
		expectError(response, 409, 'idempotency_mismatch');
	});

	test('concurrent retries with one key create one slot', async () => {
		const headers = { 'idempotency-key': 'upload-concurrent' };
		const responses = await Promise.all(
			[1, 2, 3].map(() =>
				api(handle.baseUrl, { path: '/api/v1/uploads', key: key(), json: slotBody, headers }),
			),
		);
		const ids = new Set(
			responses.map((response) => (response.json as { upload_id: string }).upload_id),
		);
		expect(ids.size).toBe(1);
	});

	test('keys are scoped per account', async () => {
		const headers = { 'idempotency-key': 'upload-shared-key' };
		const mine = await api(handle.baseUrl, {
			path: '/api/v1/uploads',
			key: key(),
			json: slotBody,
			headers,
		});
		const other = await api(handle.baseUrl, {
			path: '/api/v1/uploads',
			key: handle.sandbox.keys.premium_live.key,
			json: { ...slotBody, size_bytes: 7 },
			headers,
		});
		expect(other.status).toBe(201);
		expect((other.json as { upload_id: string }).upload_id).not.toBe(
			(mine.json as { upload_id: string }).upload_id,
		);
	});

	test('without the header every request creates a new slot', async () => {
		const first = await createSlot(handle.baseUrl, key(), slotBody);
		const second = await createSlot(handle.baseUrl, key(), slotBody);
		expect(second.upload_id).not.toBe(first.upload_id);
	});

	test.each([
		['empty', ''],
		['201 characters', 'k'.repeat(201)],
	])('a key that is %s is 422 validation_error', async (_name, value) => {
		const response = await api(handle.baseUrl, {
			path: '/api/v1/uploads',
			key: key(),
			json: slotBody,
			headers: { 'idempotency-key': value },
		});
		const error = expectError(response, 422, 'validation_error');
		expect(error.details.errors).toEqual([
			expect.objectContaining({ location: 'header', field: 'idempotency-key' }),
		]);
	});

	test('a key of 200 characters is accepted', async () => {
		const response = await api(handle.baseUrl, {
			path: '/api/v1/uploads',
			key: key(),
			json: slotBody,
			headers: { 'idempotency-key': 'k'.repeat(200) },
		});
		expect(response.status).toBe(201);
	});

	test('a replay is forgotten after 24 hours of sandbox time', async () => {
		const sandbox = await import('../../sandbox/server');
		const own = await sandbox.startSandbox({ port: 0, quiet: true });
		try {
			const headers = { 'idempotency-key': 'upload-retention' };
			const first = await api(own.baseUrl, {
				path: '/api/v1/uploads',
				key: own.keys.platinum_live.key,
				json: slotBody,
				headers,
			});
			own.clock.advance(24 * 60 * 60);
			const later = await api(own.baseUrl, {
				path: '/api/v1/uploads',
				key: own.keys.platinum_live.key,
				json: slotBody,
				headers,
			});
			expect(later.status).toBe(201);
			expect((later.json as { upload_id: string }).upload_id).not.toBe(
				(first.json as { upload_id: string }).upload_id,
			);
		} finally {
			await own.close();
		}
	});
});

describe('uploadBinary: PUT /uploads/{upload_id}/binary (4.3)', () => {
	test('stores exactly size_bytes and answers {ok, bytes_received}', async () => {
		const slot = await createSlot(handle.baseUrl, key(), { filename: 'exact.wav', size_bytes: 5 });
		const response = await put(slot.upload_url, Buffer.from('abcde'));
		expect(response.status).toBe(200);
		expectRateLimitHeaders(response);
		expect(response.json).toEqual({ ok: true, bytes_received: 5 });
	});

	test('any content type is taken as raw bytes', async () => {
		const slot = await createSlot(handle.baseUrl, key(), { filename: 'typed.wav', size_bytes: 3 });
		const response = await api(handle.baseUrl, {
			method: 'PUT',
			path: slot.upload_url,
			key: key(),
			body: Buffer.from('{}x'),
			headers: { 'content-type': 'application/json' },
		});
		expect(response.json).toEqual({ ok: true, bytes_received: 3 });
	});

	test('an empty body is 400 empty_upload_body and the slot stays usable', async () => {
		const slot = await createSlot(handle.baseUrl, key(), { filename: 'empty.wav', size_bytes: 3 });
		expectError(await put(slot.upload_url, Buffer.alloc(0)), 400, 'empty_upload_body');
		expectError(await put(slot.upload_url, undefined), 400, 'empty_upload_body');
		expect((await put(slot.upload_url, Buffer.from('abc'))).status).toBe(200);
	});

	test('too few bytes is 400 upload_size_mismatch naming both sizes', async () => {
		const slot = await createSlot(handle.baseUrl, key(), { filename: 'short.wav', size_bytes: 10 });
		const error = expectError(
			await put(slot.upload_url, Buffer.alloc(7)),
			400,
			'upload_size_mismatch',
		);
		expect(error.details).toMatchObject({ size_bytes: 10, bytes_received: 7 });
		expect(error.message).toContain('7');
		expect(error.message).toContain('10');
	});

	test('too many bytes is 400 upload_size_mismatch', async () => {
		const slot = await createSlot(handle.baseUrl, key(), { filename: 'long.wav', size_bytes: 10 });
		const error = expectError(
			await put(slot.upload_url, Buffer.alloc(64 * 1024)),
			400,
			'upload_size_mismatch',
		);
		expect(error.details).toMatchObject({ size_bytes: 10, bytes_received: 64 * 1024 });
	});

	test('a slot takes bytes once: a second PUT is 409 upload_not_available', async () => {
		const slot = await createSlot(handle.baseUrl, key(), { filename: 'once.wav', size_bytes: 2 });
		expect((await put(slot.upload_url, Buffer.from('ab'))).status).toBe(200);
		const error = expectError(
			await put(slot.upload_url, Buffer.from('ab')),
			409,
			'upload_not_available',
		);
		expect(error.details).toMatchObject({ state: 'stored' });
	});

	test('a PUT refused before its body is read is answered once the body is in, not reset under a client still sending', async () => {
		const size = 2 * 1024 * 1024;
		const slot = await createSlot(handle.baseUrl, key(), { filename: 'twice.wav', size_bytes: size });
		expect((await put(slot.upload_url, Buffer.alloc(size))).status).toBe(200);
		const target = new URL(slot.upload_url, handle.baseUrl);
		let bodyEnded = false;
		// n8n's client asks for Connection: close; a socket closed while it still sends is reset, answer and all.
		const answer = await new Promise<{ status: number; text: string; beforeBodyEnded: boolean }>(
			(resolve, reject) => {
				const outgoing = http.request(
					{
						host: target.hostname,
						port: target.port,
						method: 'PUT',
						path: target.pathname,
						agent: false,
						headers: {
							authorization: `Bearer ${key()}`,
							'content-type': 'application/octet-stream',
							'content-length': String(size),
							connection: 'close',
						},
					},
					(incoming) => {
						const beforeBodyEnded = !bodyEnded;
						const chunks: Buffer[] = [];
						incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
						incoming.on('end', () =>
							resolve({
								status: incoming.statusCode ?? 0,
								text: Buffer.concat(chunks).toString('utf8'),
								beforeBodyEnded,
							}),
						);
					},
				);
				outgoing.on('error', reject);
				outgoing.write(Buffer.alloc(size / 2));
				setTimeout(() => {
					outgoing.end(Buffer.alloc(size / 2), () => (bodyEnded = true));
				}, 200);
			},
		);
		expect(answer.beforeBodyEnded).toBe(false);
		expect(answer.status).toBe(409);
		expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'upload_not_available' } });
	});

	test('an unknown slot is 404 upload_not_found', async () => {
		expectError(
			await put('/api/v1/uploads/upl_unknown/binary', Buffer.from('a')),
			404,
			'upload_not_found',
		);
	});

	test("another account's slot is 404 upload_not_found", async () => {
		const slot = await createSlot(handle.baseUrl, key(), { filename: 'mine.wav', size_bytes: 1 });
		const response = await put(
			slot.upload_url,
			Buffer.from('a'),
			handle.sandbox.keys.premium_live.key,
		);
		expectError(response, 404, 'upload_not_found');
	});

	test('after 30 minutes of sandbox time the slot is 410 upload_slot_expired', async () => {
		const slot = await createSlot(handle.baseUrl, key(), { filename: 'late.wav', size_bytes: 1 });
		await handle.admin.advanceClock(30 * 60);
		const error = expectError(
			await put(slot.upload_url, Buffer.from('a')),
			410,
			'upload_slot_expired',
		);
		expect(error.details).toMatchObject({ upload_id: slot.upload_id });
	});
});
