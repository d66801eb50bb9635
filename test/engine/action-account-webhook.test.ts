// Account → Get and Webhook → Send Test Event inside n8n's engine, against the sandbox on loopback.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { startSandbox } from '../../sandbox/server';
import { actionNode, ACTION_NODE, nodeError, runWorkflow } from '../support/engine/harness';
import { useControlledClock } from '../support/clock/controlled-clock';
import { useEngineSandbox } from '../support/engine/engine-sandbox';
import { freshAccounts } from '../support/engine/accounts';

// Short rate windows: an injected 429's Retry-After is the rest of the window. Recorded exchanges: a test counts the
// requests Send Test Event makes.
const clock = useControlledClock();
const env = useEngineSandbox({
	clock,
	allowLocalWebhooks: true,
	rateLimits: { windowSeconds: 2 },
	recordExchanges: true,
});
const { live: credentials } = env;
const freshAccount = freshAccounts(env);

const getAccount = actionNode({ resource: 'account', operation: 'get' });

async function accountError(apiKey: string) {
	return nodeError(
		await runWorkflow({ nodes: [getAccount], credentials: { ...credentials, apiKey } }),
	);
}

describe('Account → Get (getAccount)', () => {
	test('returns the account of the key, one item per input item, paired', async () => {
		const result = await runWorkflow({
			nodes: [getAccount],
			credentials,
			input: [{ json: {} }, { json: {} }],
		});
		expect(result.error).toBeUndefined();
		const output = result.output(ACTION_NODE);
		expect(output).toHaveLength(2);
		expect(output[0].json).toEqual({
			account_id: env.sandbox.keys.platinum_live.account_id,
			effective_tier: 'platinum',
			api_access: true,
			wallet_balance: 1000,
			status: 'active',
		});
		expect(output.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});

	test('401 invalid_api_key for an unknown key, with message, code, request_id and resolution_url', async () => {
		const error = await accountError('svc_sk_live_doesNotExist000000000000000');
		expect(error.code).toBe('invalid_api_key');
		expect(error.httpCode).toBe('401');
		expect(error.description).toMatch(
			/^Error code: invalid_api_key · Request ID: \S+ · How to fix: https?:\/\/\S+/,
		);
		const apiError = error.context;
		expect(error.message).toBe(apiError.message);
		expect(apiError.request_id).toEqual(expect.any(String));
		expect(apiError.resolution_url).toEqual(expect.stringMatching(/^https?:\/\//));
	});

	test('a Base URL with a user name or password is refused, naming the field', async () => {
		const base = new URL(credentials.baseUrl);
		const result = await runWorkflow({
			nodes: [getAccount],
			credentials: { ...credentials, baseUrl: `${base.protocol}//user:secret@${base.host}` },
		});
		expect(result.error?.message).toBe(
			"The credential's Base URL must not contain a user name or password",
		);
	});

	test('401 invalid_api_key for a revoked key', async () => {
		expect((await accountError(env.sandbox.keys.revoked_live.key)).code).toBe('invalid_api_key');
	});

	test("401 invalid_api_key_mode for a known key presented with the other mode's prefix", async () => {
		const swapped = env.sandbox.keys.platinum_live.key.replace('svc_sk_live_', 'svc_sk_test_');
		expect((await accountError(swapped)).code).toBe('invalid_api_key_mode');
	});

	test('401 invalid_api_key_user for a key whose account does not exist', async () => {
		const orphan = await env.admin.createKey({ orphan: true });
		expect((await accountError(orphan.key)).code).toBe('invalid_api_key_user');
	});

	test('403 plan_downgraded_api_revoked for an account without API access', async () => {
		expect((await accountError(env.sandbox.keys.no_api_access_live.key)).code).toBe(
			'plan_downgraded_api_revoked',
		);
	});

	test('a key without a known prefix is refused before any request, naming the valid prefixes', async () => {
		const error = nodeError(
			await runWorkflow({
				nodes: [getAccount],
				credentials: { ...credentials, apiKey: 'sk_wrong' },
			}),
		);
		expect(error.message).toBe("The credential's API Key has no known prefix");
		expect(error.description).toMatch(/"svc_sk_live_".*"svc_sk_test_"/);
	});

	test('429 and 503 are retried: one of each, then the account', async () => {
		await env.admin.setFaults({
			seed: 1,
			rules: [
				{ route: 'getAccount', kind: '429', count: 1 },
				{ route: 'getAccount', kind: '503', count: 1 },
			],
		});
		const result = await runWorkflow({ nodes: [getAccount], credentials });
		expect(result.error).toBeUndefined();
		expect(result.output(ACTION_NODE)[0].json.account_id).toBe(
			env.sandbox.keys.platinum_live.account_id,
		);
	});

	test('503 on every attempt ends after 5 attempts with the API error', async () => {
		await env.admin.setFaults({ seed: 1, rules: [{ route: 'getAccount', kind: '503' }] });
		const error = nodeError(await runWorkflow({ nodes: [getAccount], credentials }));
		expect(error.httpCode).toBe('503');
		expect(error.message).toMatch(/\(5 attempts; gave up after 5 attempts\)$/);
	});

	test('under Continue On Fail the failed item carries error.code, message, request_id and resolution_url', async () => {
		const result = await runWorkflow({
			nodes: [{ ...getAccount, onError: 'continueRegularOutput' }],
			credentials: { ...credentials, apiKey: env.sandbox.keys.no_api_access_live.key },
		});
		expect(result.error).toBeUndefined();
		const [item] = result.output(ACTION_NODE);
		expect(item.pairedItem).toEqual({ item: 0 });
		expect(item.json.error).toEqual({
			code: 'plan_downgraded_api_revoked',
			message: expect.any(String),
			request_id: expect.any(String),
			resolution_url: expect.stringMatching(/^https?:\/\//),
			http_status: 403,
		});
	});
});

describe('Webhook → Send Test Event (testWebhook)', () => {
	let receiver: Server;
	let receiverUrl: string;
	let answerStatus = 200;
	const received: Array<{ headers: Record<string, unknown>; body: string }> = [];

	beforeAll(async () => {
		receiver = createServer((request, response) => {
			const chunks: Buffer[] = [];
			request.on('data', (chunk: Buffer) => chunks.push(chunk));
			request.on('end', () => {
				received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
				response.statusCode = answerStatus;
				response.end();
			});
		});
		await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
		receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
	});
	afterAll(async () => {
		receiver.closeAllConnections();
		await new Promise((resolve) => receiver.close(resolve));
	});

	const sendTest = (webhookUrl: string, eventType = 'transcription.completed') =>
		actionNode({ resource: 'webhook', operation: 'sendTestEvent', webhookUrl, eventType });

	test('delivered: the target got a signed webhook.test event with the chosen event type', async () => {
		answerStatus = 204;
		received.length = 0;
		const result = await runWorkflow({
			nodes: [sendTest(receiverUrl, 'transcription.failed')],
			credentials,
		});
		expect(result.error).toBeUndefined();
		const json = result.output(ACTION_NODE)[0].json;
		expect(json).toEqual({
			ok: true,
			event_id: expect.any(String),
			delivered: true,
			status_code: 204,
			error: null,
		});
		expect(received).toHaveLength(1);
		expect(received[0].headers['x-service-event']).toBe('webhook.test');
		expect(JSON.parse(received[0].body)).toMatchObject({
			event: 'transcription.failed',
			test_mode: true,
			event_id: json.event_id,
		});
	});

	test('a target answering 500 is data (delivered: false), not a node error', async () => {
		answerStatus = 500;
		const result = await runWorkflow({ nodes: [sendTest(receiverUrl)], credentials });
		expect(result.error).toBeUndefined();
		expect(result.output(ACTION_NODE)[0].json).toMatchObject({
			ok: true,
			delivered: false,
			status_code: 500,
		});
	});

	test('400 invalid_webhook_url for a hostname that does not resolve', async () => {
		const error = nodeError(
			await runWorkflow({ nodes: [sendTest('https://hooks.nowhere.invalid/x')], credentials }),
		);
		expect(error.code).toBe('invalid_webhook_url');
		expect(error.httpCode).toBe('400');
	});

	test('400 webhook_url_forbidden_target for a loopback target when local targets are not allowed', async () => {
		const strict = await startSandbox({ port: 0, quiet: true });
		try {
			const result = await runWorkflow({
				nodes: [sendTest('https://127.0.0.1/hook')],
				credentials: { apiKey: strict.keys.platinum_live.key, baseUrl: strict.baseUrl },
			});
			expect(nodeError(result).code).toBe('webhook_url_forbidden_target');
		} finally {
			await strict.close();
		}
	});

	test('400 invalid_webhook_url for a malformed URL', async () => {
		expect(nodeError(await runWorkflow({ nodes: [sendTest('not a url')], credentials })).code).toBe(
			'invalid_webhook_url',
		);
	});

	test('403 plan_downgraded_api_revoked for an account without API access', async () => {
		const result = await runWorkflow({
			nodes: [sendTest(receiverUrl)],
			credentials: { ...credentials, apiKey: env.sandbox.keys.no_api_access_live.key },
		});
		expect(nodeError(result).code).toBe('plan_downgraded_api_revoked');
	});
});

// A 503 to POST /webhooks/test is not retried: the call is not idempotent (spec 7).
describe('Send Test Event is not repeated blindly', () => {
	it('against a 503 it is sent once and the item says why it was not repeated', async () => {
		const { credentials } = await freshAccount();
		await env.admin.setFaults({ rules: [{ route: 'testWebhook', kind: '503' }] });
		const error = nodeError(
			await runWorkflow({
				nodes: [
					actionNode({
						resource: 'webhook',
						operation: 'sendTestEvent',
						webhookUrl: 'https://example.com/hook',
						eventType: 'transcription.completed',
					}),
				],
				credentials,
			}),
		);
		expect(error.context.http_status).toBe(503);
		expect(error.message).toMatch(
			/\(not repeated: the call is not idempotent and the service may have acted on it\)$/,
		);
		expect(env.proxy.exchanges.filter((exchange) => exchange.method === 'POST')).toHaveLength(1);
	});
});
