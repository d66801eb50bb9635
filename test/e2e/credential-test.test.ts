// The credential's Test button in a real n8n, as its editor presses it: the credential is saved (POST /rest/credentials),
// then tested (POST /rest/credentials/test, which the editor calls with the form's data), and the answer is the message
// the editor shows under "Couldn't connect with these settings". A wrong key must read as the service's refusal, a
// redirect must not carry the key to another origin, and a plain http:// Base URL must be refused before any request.
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { suiteHandles } from '../support/n8n/suite';

const { context, api } = suiteHandles();
const CREDENTIAL_TYPE = 'transcriptionServiceApi';
// The browser id the suite's session was signed in with (support/n8n/rest.ts): n8n ties the auth cookie to it.
const BROWSER_ID = 'tss-e2e-harness';

interface TestResult {
	status: 'OK' | 'Error';
	message: string;
}

const created: string[] = [];

async function rest(method: string, path: string, body?: unknown): Promise<Response> {
	return await fetch(`${context.n8nBaseUrl}${path}`, {
		method,
		headers: {
			cookie: context.session.cookie,
			'browser-id': BROWSER_ID,
			...(body === undefined ? {} : { 'content-type': 'application/json' }),
		},
		body: body === undefined ? undefined : JSON.stringify(body),
	});
}

/** Saves a credential with these fields and presses its Test button; the result as the editor receives it. */
async function pressTest(fields: { apiKey: string; baseUrl: string }): Promise<TestResult> {
	const data = { ...fields, signingSecret: '', previousSigningSecret: '', pathPrefix: '/api/v1' };
	const name = `Credential test ${created.length + 1}`;
	const id = await api.createCredential({ name, type: CREDENTIAL_TYPE, data });
	created.push(id);
	const response = await rest('POST', '/rest/credentials/test', {
		credentials: { id, name, type: CREDENTIAL_TYPE, data },
	});
	const text = await response.text();
	if (!response.ok) throw new Error(`POST /rest/credentials/test → ${response.status}: ${text}`);
	return (JSON.parse(text) as { data: TestResult }).data;
}

afterAll(async () => {
	for (const id of created) await rest('DELETE', `/rest/credentials/${id}`);
});

describe(`The credential's Test button in n8n ${context.n8nVersion} (Node ${context.nodeVersion})`, () => {
	test('a working key: Connection successful', async () => {
		expect(await pressTest({ apiKey: context.keys.live, baseUrl: context.sandboxBaseUrl })).toEqual(
			{ status: 'OK', message: 'Connection successful!' },
		);
	});

	test("a wrong key with a valid prefix says the service's invalid_api_key and what to do, not n8n's generic refusal", async () => {
		const result = await pressTest({
			apiKey: 'svc_sk_live_notAKeyOfAnyAccount0000001',
			baseUrl: context.sandboxBaseUrl,
		});
		expect(result).toEqual({
			status: 'Error',
			message:
				'The service refused the API Key (invalid_api_key): it does not know this key, or the key was revoked. Copy a current key from the dashboard.',
		});
	});

	test('a key without a known prefix is refused before any request, naming both prefixes', async () => {
		const result = await pressTest({ apiKey: 'sk_live_0001', baseUrl: context.sandboxBaseUrl });
		expect(result.status).toBe('Error');
		expect(result.message).toContain('"svc_sk_live_"');
		expect(result.message).toContain('"svc_sk_test_"');
	});

	describe('a redirect to another origin', () => {
		let catcher: Server;
		let redirector: Server;
		const caught: IncomingHttpHeaders[] = [];
		const redirected: IncomingHttpHeaders[] = [];

		beforeAll(async () => {
			catcher = createServer((request, response) => {
				caught.push(request.headers);
				response.writeHead(200, { 'content-type': 'application/json' });
				response.end(
					JSON.stringify({
						account_id: 'acct_catcher',
						effective_tier: 'platinum',
						api_access: true,
						wallet_balance: 1,
						status: 'active',
					}),
				);
			});
			catcher.listen(0, '127.0.0.1');
			await once(catcher, 'listening');
			const catcherUrl = `http://127.0.0.1:${(catcher.address() as AddressInfo).port}`;
			redirector = createServer((request, response) => {
				redirected.push(request.headers);
				response.writeHead(302, { location: `${catcherUrl}/api/v1/account` });
				response.end();
			});
			redirector.listen(0, '127.0.0.1');
			await once(redirector, 'listening');
		});
		afterAll(() => {
			for (const server of [catcher, redirector]) {
				server.closeAllConnections();
				server.close();
			}
		});

		test('is not followed: the API key never reaches it, and the test fails saying to check the Base URL', async () => {
			const result = await pressTest({
				apiKey: 'svc_sk_live_redirectedKey0000000001',
				baseUrl: `http://127.0.0.1:${(redirector.address() as AddressInfo).port}`,
			});
			expect(redirected).toHaveLength(1);
			expect(redirected[0].authorization).toBe('Bearer svc_sk_live_redirectedKey0000000001');
			expect(caught).toEqual([]);
			expect(result.status).toBe('Error');
			expect(result.message).toMatch(/^No account came back from GET \{Path Prefix\}\/account: /);
		});
	});

	test('a plain http:// Base URL to another host is refused before any request, naming the Base URL', async () => {
		const result = await pressTest({
			apiKey: context.keys.live,
			baseUrl: 'http://transcription.example',
		});
		expect(result).toEqual({
			status: 'Error',
			message:
				'The credential\'s Base URL must start with https:// (plain http:// is accepted only for this machine: 127.0.0.1, [::1] or localhost). Got "http://transcription.example".',
		});
	});
});
