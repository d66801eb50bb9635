// Spec section 5 (authentication) and the 401/403 rows of section 7, plus the envelope rules of 2.7
// that every error shares.

import { api, createSlot, expectError, useSandbox } from '../support/sandbox/client';

const handle = useSandbox();
const keys = () => handle.sandbox.keys;

describe('Authorization header (5.1) → 401 missing_api_key', () => {
	test.each([
		['no header', null, {}],
		['Basic scheme', null, { authorization: 'Basic dXNlcjpwYXNz' }],
		['Bearer without a token', null, { authorization: 'Bearer' }],
		[
			'the key without a scheme',
			null,
			{ authorization: 'svc_sk_live_sandboxPlatinum0000000000001' },
		],
	])('%s', async (_name, key, headers) => {
		const response = await api(handle.baseUrl, { path: '/api/v1/account', key, headers });
		expectError(response, 401, 'missing_api_key');
	});

	test('the scheme is case-insensitive', async () => {
		const response = await api(handle.baseUrl, {
			path: '/api/v1/account',
			key: null,
			headers: { authorization: `bearer ${keys().platinum_live.key}` },
		});
		expect(response.status).toBe(200);
	});
});

describe('key validity (5.2, 5.7) → 401', () => {
	test('an unknown key is invalid_api_key', async () => {
		expectError(
			await api(handle.baseUrl, { path: '/api/v1/account', key: 'svc_sk_live_doesNotExist' }),
			401,
			'invalid_api_key',
		);
	});

	test('a key without a known prefix is invalid_api_key', async () => {
		expectError(
			await api(handle.baseUrl, { path: '/api/v1/account', key: 'sk_live_abc' }),
			401,
			'invalid_api_key',
		);
	});

	test('a revoked key is invalid_api_key', async () => {
		expectError(
			await api(handle.baseUrl, { path: '/api/v1/account', key: keys().revoked_live.key }),
			401,
			'invalid_api_key',
		);
	});

	test('a key revoked through the admin API stops working at once', async () => {
		const created = await handle.admin.createKey({ tier: 'premium' });
		expect((await api(handle.baseUrl, { path: '/api/v1/account', key: created.key })).status).toBe(
			200,
		);
		await handle.admin.revokeKey(created.key);
		expectError(
			await api(handle.baseUrl, { path: '/api/v1/account', key: created.key }),
			401,
			'invalid_api_key',
		);
	});

	test('a live key sent with the test prefix is invalid_api_key_mode', async () => {
		const swapped = keys().platinum_live.key.replace('svc_sk_live_', 'svc_sk_test_');
		const error = expectError(
			await api(handle.baseUrl, { path: '/api/v1/account', key: swapped }),
			401,
			'invalid_api_key_mode',
		);
		expect(error.details.resolution_url).toBe(
			`${handle.baseUrl}/developers/api-reference#invalid_api_key_mode`,
		);
	});

	test('a test key sent with the live prefix is invalid_api_key_mode', async () => {
		const swapped = keys().platinum_test.key.replace('svc_sk_test_', 'svc_sk_live_');
		expectError(
			await api(handle.baseUrl, { path: '/api/v1/account', key: swapped }),
			401,
			'invalid_api_key_mode',
		);
	});

	test('a key whose account no longer exists is invalid_api_key_user', async () => {
		const orphan = await handle.admin.createKey({ orphan: true });
		expect(orphan.signing_secret).toBeNull();
		expectError(
			await api(handle.baseUrl, { path: '/api/v1/account', key: orphan.key }),
			401,
			'invalid_api_key_user',
		);
	});
});

describe('scope (5.3, 5.4) → 403 scope_violation_read_only', () => {
	test('a read_only key reads', async () => {
		const response = await api(handle.baseUrl, {
			path: '/api/v1/account',
			key: keys().read_only_live.key,
		});
		expect(response.status).toBe(200);
	});

	test.each([
		[
			'POST /uploads',
			'POST',
			'/api/v1/uploads',
			{ filename: 'a.wav', content_type: 'audio/wav', size_bytes: 1 },
		],
		['POST /transcriptions', 'POST', '/api/v1/transcriptions', { upload_id: 'upl_x' }],
		[
			'POST /webhooks/test',
			'POST',
			'/api/v1/webhooks/test',
			{ webhook_url: 'https://example.invalid/hook' },
		],
	] as const)('%s is a write', async (_name, method, path, json) => {
		const response = await api(handle.baseUrl, {
			method,
			path,
			key: keys().read_only_live.key,
			json,
		});
		expectError(response, 403, 'scope_violation_read_only');
	});

	test('PUT of the bytes is a write', async () => {
		const response = await api(handle.baseUrl, {
			method: 'PUT',
			path: '/api/v1/uploads/upl_x/binary',
			key: keys().read_only_live.key,
			body: Buffer.from('abc'),
			headers: { 'content-type': 'application/octet-stream' },
		});
		expectError(response, 403, 'scope_violation_read_only');
	});
});

describe('plan (5.5) → 403 plan_downgraded_api_revoked', () => {
	test('an account without API access', async () => {
		const response = await api(handle.baseUrl, {
			path: '/api/v1/account',
			key: keys().no_api_access_live.key,
		});
		expectError(response, 403, 'plan_downgraded_api_revoked');
	});

	test('an account downgraded below premium loses access at once', async () => {
		const created = await handle.admin.createKey({ tier: 'premium' });
		await handle.admin.updateAccount(created.account_id, { tier: 'basic' });
		const response = await api(handle.baseUrl, { path: '/api/v1/account', key: created.key });
		expectError(response, 403, 'plan_downgraded_api_revoked');
	});
});

describe('GET /account (4.1)', () => {
	test('answers the account of the key', async () => {
		const response = await api(handle.baseUrl, {
			path: '/api/v1/account',
			key: keys().premium_live.key,
		});
		expect(response.status).toBe(200);
		expect(response.json).toEqual({
			account_id: 'acct_sandbox_premium',
			effective_tier: 'premium',
			api_access: true,
			wallet_balance: 250,
			status: 'active',
		});
	});

	test('live and test keys of one account share it', async () => {
		const live = await api(handle.baseUrl, {
			path: '/api/v1/account',
			key: keys().platinum_live.key,
		});
		const test = await api(handle.baseUrl, {
			path: '/api/v1/account',
			key: keys().platinum_test.key,
		});
		expect((live.json as { account_id: string }).account_id).toBe('acct_sandbox_platinum');
		expect((test.json as { account_id: string }).account_id).toBe('acct_sandbox_platinum');
	});
});

describe('X-Request-ID and the error envelope (4, 2.7)', () => {
	test('every response carries a fresh X-Request-ID', async () => {
		const first = await api(handle.baseUrl, {
			path: '/api/v1/account',
			key: keys().platinum_live.key,
		});
		const second = await api(handle.baseUrl, {
			path: '/api/v1/account',
			key: keys().platinum_live.key,
		});
		expect(first.headers['x-request-id']).toMatch(/^req_[0-9a-f]+$/);
		expect(second.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
	});

	test('a client-sent X-Request-ID is not echoed', async () => {
		const response = await api(handle.baseUrl, {
			path: '/api/v1/account',
			key: keys().platinum_live.key,
			headers: { 'x-request-id': 'mine' },
		});
		expect(response.headers['x-request-id']).not.toBe('mine');
	});

	test('an unknown route is 404 not_found in the envelope', async () => {
		const response = await api(handle.baseUrl, {
			path: '/api/v1/nothing-here',
			key: keys().platinum_live.key,
		});
		const error = expectError(response, 404, 'not_found');
		expect(error.details.resolution_url).toBe(
			`${handle.baseUrl}/developers/api-reference#not_found`,
		);
	});

	test('a body that is not a JSON object is 400 invalid_request_body', async () => {
		const response = await api(handle.baseUrl, {
			path: '/api/v1/uploads',
			key: keys().platinum_live.key,
			body: '{"filename":',
			headers: { 'content-type': 'application/json' },
		});
		expectError(response, 400, 'invalid_request_body');
	});

	test('a JSON body sent as another content type is 400 invalid_request_body', async () => {
		const response = await api(handle.baseUrl, {
			path: '/api/v1/uploads',
			key: keys().platinum_live.key,
			body: JSON.stringify({ filename: 'a.wav', content_type: 'audio/wav', size_bytes: 1 }),
			headers: { 'content-type': 'text/plain' },
		});
		expectError(response, 400, 'invalid_request_body');
	});

	test('a JSON array is 400 invalid_request_body', async () => {
		const response = await api(handle.baseUrl, {
			path: '/api/v1/uploads',
			key: keys().platinum_live.key,
			json: [1],
		});
		expectError(response, 400, 'invalid_request_body');
	});

	test('authentication is checked before the body', async () => {
		const response = await api(handle.baseUrl, {
			path: '/api/v1/uploads',
			key: 'svc_sk_live_nope',
			json: [1],
		});
		expectError(response, 401, 'invalid_api_key');
	});

	test('a working key still creates slots after all this', async () => {
		const slot = await createSlot(handle.baseUrl, keys().platinum_live.key, {
			filename: 'a.wav',
			size_bytes: 1,
		});
		expect(slot.upload_id).toMatch(/^upl_/);
	});
});
