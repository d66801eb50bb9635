// Who may call the API (/api/v1/…). The sandbox's demo keys are printed and documented, so a web page the developer
// opens must not drive them: by DNS rebinding (its own host name resolving to 127.0.0.1 — a foreign Host, same
// origin, no CORS preflight) or cross-site (a foreign Origin). Refused before the key is looked at, in the envelope.

import { startSandbox, type RunningSandbox } from '../../sandbox/server';
import type { ApiResponse } from '../support/sandbox/client';
import { expectError, rawRequest, useSandbox } from '../support/sandbox/client';

const handle = useSandbox();

const port = () => new URL(handle.baseUrl).port;

function getAccount(baseUrl: string, headers: Record<string, string>, key?: string) {
	return rawRequest(baseUrl, {
		method: 'GET',
		path: '/api/v1/account',
		headers: {
			authorization: `Bearer ${key ?? handle.sandbox.keys.platinum_live.key}`,
			...headers,
		},
	});
}

/** A 403 in the envelope that says nothing about the key (valid or not, the answer is the same). */
function expectRefused(response: ApiResponse, code: string): void {
	expectError(response, 403, code);
	expect(response.text).not.toMatch(/svc_sk_|whsec_|acct_/);
}

describe('API routes: the Host a request is addressed to', () => {
	test('a rebinding page (Host attacker.example) → 403 sandbox_host_forbidden', async () => {
		const response = await getAccount(handle.baseUrl, { host: `attacker.example:${port()}` });
		expectRefused(response, 'sandbox_host_forbidden');
	});

	test('the answer is the same for a key that does not exist: nothing is learned about keys', async () => {
		const response = await getAccount(
			handle.baseUrl,
			{ host: `attacker.example:${port()}` },
			'svc_sk_live_does_not_exist',
		);
		expectRefused(response, 'sandbox_host_forbidden');
	});

	test('a write from a rebinding page is refused before its body is read', async () => {
		const response = await rawRequest(handle.baseUrl, {
			method: 'POST',
			path: '/api/v1/uploads',
			headers: {
				host: `attacker.example:${port()}`,
				authorization: `Bearer ${handle.sandbox.keys.platinum_live.key}`,
				'content-type': 'application/json',
			},
			body: JSON.stringify({ filename: 'a.wav', content_type: 'audio/wav', size_bytes: 1 }),
		});
		expectRefused(response, 'sandbox_host_forbidden');
	});

	test.each([['127.0.0.1:PORT'], ['localhost:PORT'], ['[::1]:PORT'], ['app.localhost:PORT']])(
		'Host: %s is local and is served',
		async (host) => {
			const response = await getAccount(handle.baseUrl, { host: host.replace('PORT', port()) });
			expect(response.status).toBe(200);
			expect(response.json).toMatchObject({
				account_id: handle.sandbox.keys.platinum_live.account_id,
			});
		},
	);
});

describe('API routes: pages of other sites', () => {
	test.each([
		['a foreign Origin', { origin: 'https://attacker.example' }],
		['Origin: null (sandboxed frame, file: page)', { origin: 'null' }],
		['Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }],
	])('%s → 403 sandbox_cross_site_forbidden', async (_case, headers) => {
		const response = await getAccount(handle.baseUrl, { host: `127.0.0.1:${port()}`, ...headers });
		expectRefused(response, 'sandbox_cross_site_forbidden');
	});

	test('a page served from a local origin may call it', async () => {
		const response = await getAccount(handle.baseUrl, {
			host: `127.0.0.1:${port()}`,
			origin: 'http://localhost:5678',
		});
		expect(response.status).toBe(200);
	});
});

describe('API routes: names the operator allows (--allowed-host)', () => {
	let sandbox: RunningSandbox;
	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0, quiet: true, allowedHosts: ['sandbox.internal'] });
	});
	afterAll(async () => await sandbox.close());

	test('an allowed name is served; another name still is not', async () => {
		const own = new URL(sandbox.baseUrl).port;
		const key = sandbox.keys.platinum_live.key;
		const allowed = await getAccount(sandbox.baseUrl, { host: `sandbox.internal:${own}` }, key);
		expect(allowed.status).toBe(200);
		const other = await getAccount(sandbox.baseUrl, { host: `attacker.example:${own}` }, key);
		expectRefused(other, 'sandbox_host_forbidden');
	});
});
