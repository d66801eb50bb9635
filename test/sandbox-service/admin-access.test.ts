// Who may call the admin API (/_sandbox/…). A browser page on any site can reach a loopback port too —
// by a cross-site form or fetch (a foreign Origin), or by DNS rebinding (its own host name now resolving to
// 127.0.0.1: a foreign Host) — so the caller's socket address alone is not enough. Writes must be JSON: a page
// cannot send Content-Type application/json to another origin without a CORS preflight, which the sandbox never grants.

import net from 'node:net';
import type { ApiResponse } from '../support/sandbox/client';
import { api, expectError, rawRequest, useSandbox } from '../support/sandbox/client';

const handle = useSandbox();

const port = () => new URL(handle.baseUrl).port;
const JSON_TYPE = { 'content-type': 'application/json' };

function createKeyRaw(headers: Record<string, string>, body?: string): Promise<ApiResponse> {
	return rawRequest(handle.baseUrl, {
		method: 'POST',
		path: '/_sandbox/keys',
		headers: { host: `127.0.0.1:${port()}`, ...headers },
		body,
	});
}

/** A 403/415 refusal in the envelope, and no key or signing secret anywhere in the answer. */
function expectRefused(response: ApiResponse, status: number, code: string): void {
	expectError(response, status, code);
	expect(response.text).not.toMatch(/svc_sk_|whsec_/);
}

describe('admin API: cross-site requests are refused', () => {
	test('a body-less cross-site form POST gets no key and no signing secret', async () => {
		// What <form method="post" enctype="text/plain" action="http://127.0.0.1:4010/_sandbox/keys"> sends.
		const response = await createKeyRaw({
			origin: 'https://attacker.example',
			'content-type': 'text/plain',
			'sec-fetch-site': 'cross-site',
		});
		expectRefused(response, 403, 'admin_cross_site_forbidden');
	});

	test.each([
		['a foreign Origin', { origin: 'https://attacker.example' }],
		[
			'a foreign Origin on a loopback-looking host name',
			{ origin: 'http://127.0.0.1.attacker.example' },
		],
		['Origin: null (sandboxed frame, file: page)', { origin: 'null' }],
		['a foreign Origin with a JSON body', { origin: 'http://attacker.example:4010' }],
		['Sec-Fetch-Site: cross-site without Origin', { 'sec-fetch-site': 'cross-site' }],
	])('%s → 403 admin_cross_site_forbidden', async (_case, headers) => {
		const response = await createKeyRaw({ ...JSON_TYPE, ...headers }, '{}');
		expectRefused(response, 403, 'admin_cross_site_forbidden');
	});

	test('a cross-site GET of the records is refused too', async () => {
		const response = await rawRequest(handle.baseUrl, {
			method: 'GET',
			path: '/_sandbox/records',
			headers: { host: `127.0.0.1:${port()}`, 'sec-fetch-site': 'cross-site' },
		});
		expectRefused(response, 403, 'admin_cross_site_forbidden');
	});

	test.each([['http://localhost:5678'], ['http://127.0.0.1:3000'], ['http://[::1]:8080']])(
		'a loopback Origin (%s) may create a key',
		async (origin) => {
			const response = await createKeyRaw({ ...JSON_TYPE, origin }, '{}');
			expect(response.status).toBe(201);
		},
	);
});

describe('admin API: DNS rebinding (a foreign Host) is refused', () => {
	test.each([
		['attacker.example'],
		['rebind.attacker.example:4010'],
		['127.0.0.1.nip.io'],
		['localhost.attacker.example'],
		['127.0.0.1@attacker.example'],
	])('Host: %s → 403 admin_host_forbidden, also with JSON and no Origin', async (host) => {
		const response = await createKeyRaw({ ...JSON_TYPE, host }, '{}');
		expectRefused(response, 403, 'admin_host_forbidden');
	});

	test('an HTTP/1.1 request without Host never gets through (Node answers 400)', async () => {
		const response = await rawRequest(handle.baseUrl, {
			method: 'POST',
			path: '/_sandbox/keys',
			headers: JSON_TYPE,
			body: '{}',
		});
		expect(response.status).toBe(400);
		expect(response.text).not.toMatch(/svc_sk_|whsec_/);
	});

	test('an HTTP/1.0 request without Host → 403 admin_host_forbidden', async () => {
		const head = await new Promise<string>((resolve, reject) => {
			const socket = net.connect(Number(port()), '127.0.0.1', () => {
				socket.end(
					'POST /_sandbox/keys HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
				);
			});
			let received = '';
			socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
			socket.on('end', () => resolve(received));
			socket.on('error', reject);
		});
		expect(head).toMatch(/^HTTP\/1\.1 403 /);
		expect(head).toContain('"code":"admin_host_forbidden"');
		expect(head).not.toMatch(/svc_sk_|whsec_/);
	});

	test('a rebinding page cannot read the records either', async () => {
		const response = await rawRequest(handle.baseUrl, {
			method: 'GET',
			path: '/_sandbox/records',
			headers: { host: `attacker.example:${port()}` },
		});
		expectRefused(response, 403, 'admin_host_forbidden');
	});

	test.each([
		['127.0.0.1:PORT'],
		['localhost:PORT'],
		['LOCALHOST'],
		['127.1:PORT'],
		['127.5.6.7'],
		['[::1]:PORT'],
		['[::ffff:127.0.0.1]:PORT'],
	])('Host: %s is a loopback host and may create a key', async (host) => {
		const response = await createKeyRaw({ ...JSON_TYPE, host: host.replace('PORT', port()) }, '{}');
		expect(response.status).toBe(201);
		expect(response.json).toMatchObject({ key: expect.stringMatching(/^svc_sk_live_/) });
	});
});

describe('admin API: writes are JSON', () => {
	test.each([
		['no Content-Type and no body', {}, undefined],
		['text/plain', { 'content-type': 'text/plain' }, '{}'],
		['a form', { 'content-type': 'application/x-www-form-urlencoded' }, 'tier=premium'],
		['multipart', { 'content-type': 'multipart/form-data; boundary=x' }, '--x--\r\n'],
	])('POST /_sandbox/keys with %s → 415 admin_json_required', async (_case, headers, body) => {
		const response = await createKeyRaw(headers, body);
		expectRefused(response, 415, 'admin_json_required');
	});

	test('a body-less revoke without Content-Type is refused and the key keeps working', async () => {
		const created = await handle.admin.createKey();
		const response = await rawRequest(handle.baseUrl, {
			method: 'POST',
			path: `/_sandbox/keys/${created.key}/revoke`,
			headers: { host: `127.0.0.1:${port()}` },
		});
		expectRefused(response, 415, 'admin_json_required');
		const account = await api(handle.baseUrl, { path: '/api/v1/account', key: created.key });
		expect(account.status).toBe(200);
	});

	test('a GET needs no Content-Type', async () => {
		const response = await rawRequest(handle.baseUrl, {
			method: 'GET',
			path: '/_sandbox/clock',
			headers: { host: `localhost:${port()}` },
		});
		expect(response.status).toBe(200);
	});

	test('the admin client (JSON from loopback, no Origin) still does every write', async () => {
		const created = await handle.admin.createKey({ tier: 'premium' });
		await handle.admin.updateAccount(created.account_id, { wallet_balance: 7 });
		await handle.admin.setRateLimits({ webhookTestsPerWindow: 10 });
		await handle.admin.setFaults({ rules: [] });
		await handle.admin.clearFaults();
		await handle.admin.advanceClock(1);
		await expect(handle.admin.revokeKey(created.key)).resolves.toEqual({
			key: created.key,
			revoked: true,
		});
		const account = await api(handle.baseUrl, { path: '/api/v1/account', key: created.key });
		expectError(account, 401, 'invalid_api_key');
	});
});
