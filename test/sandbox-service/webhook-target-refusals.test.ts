// Spec 4.4/4.9 and 6 rules 5–6 as the core applies them: webhook targets are checked when a job is
// created and when POST /webhooks/test is called. Only loopback addresses and .invalid names are
// used; no traffic leaves the machine.

import { createHmac } from 'node:crypto';
import type { PublicWebhookTestDelivery, PublicWebhookTestResponse } from '../../src/api';
import {
	api,
	expectError,
	expectRateLimitHeaders,
	startReceiver,
	uploadMedia,
	useSandbox,
} from '../support/sandbox/client';

const strict = useSandbox();
const local = useSandbox({ allowLocalWebhooks: true });
const customPrefix = useSandbox({ allowLocalWebhooks: true, pathPrefix: '/custom/v1' });

describe('createTranscription webhook_url (4.4)', () => {
	test.each([
		['https://127.0.0.1/hook', 'webhook_url_forbidden_target'],
		['https://[::1]/hook', 'webhook_url_forbidden_target'],
		['https://localhost/hook', 'webhook_url_forbidden_target'],
		['not a url', 'invalid_webhook_url'],
		['https://no-such-host.invalid/hook', 'invalid_webhook_url'],
	])('%s → 400 %s, and the slot stays usable', async (webhookUrl, code) => {
		const key = strict.sandbox.keys.platinum_live.key;
		const uploadId = await uploadMedia(strict.baseUrl, key);
		const response = await api(strict.baseUrl, {
			path: '/api/v1/transcriptions',
			key,
			json: { upload_id: uploadId, webhook_url: webhookUrl },
		});
		expect(expectError(response, 400, code).details).toMatchObject({ webhook_url: webhookUrl });
		const retry = await api(strict.baseUrl, {
			path: '/api/v1/transcriptions',
			key,
			json: { upload_id: uploadId },
		});
		expect(retry.status).toBe(202);
	});
});

describe('testWebhook: POST /webhooks/test (4.9)', () => {
	test.each([
		['https://127.0.0.1/hook', 'webhook_url_forbidden_target'],
		['https://no-such-host.invalid/hook', 'invalid_webhook_url'],
	])('%s → 400 %s', async (webhookUrl, code) => {
		const response = await api(strict.baseUrl, {
			path: '/api/v1/webhooks/test',
			key: strict.sandbox.keys.platinum_live.key,
			json: { webhook_url: webhookUrl },
		});
		expectError(response, 400, code);
	});

	test('a missing webhook_url is 422 validation_error', async () => {
		const response = await api(strict.baseUrl, {
			path: '/api/v1/webhooks/test',
			key: strict.sandbox.keys.platinum_live.key,
			json: {},
		});
		expectError(response, 422, 'validation_error');
	});

	test('sends one signed webhook.test delivery and reports it', async () => {
		const receiver = await startReceiver();
		try {
			const response = await api(local.baseUrl, {
				path: '/api/v1/webhooks/test',
				key: local.sandbox.keys.premium_live.key,
				json: { webhook_url: receiver.url, event_type: 'transcription.failed' },
			});
			expect(response.status).toBe(200);
			expectRateLimitHeaders(response);
			expect(response.headers['x-ratelimit-limit']).toBe('10');
			const result = response.json as PublicWebhookTestResponse;
			expect(result).toEqual({
				ok: true,
				event_id: expect.any(String),
				delivered: true,
				status_code: 200,
				error: null,
			});

			expect(receiver.received).toHaveLength(1);
			const [hook] = receiver.received;
			const timestamp = String(hook.headers['x-service-timestamp']);
			const digest = createHmac('sha256', local.sandbox.keys.premium_live.signing_secret)
				.update(`${timestamp}.${hook.body}`)
				.digest('hex');
			expect(hook.headers['x-service-signature']).toBe(`v1=${digest}`);
			expect(hook.headers['x-service-event']).toBe('webhook.test');
			const body = JSON.parse(hook.body) as PublicWebhookTestDelivery;
			expect(body).toMatchObject({
				event: 'transcription.failed',
				event_id: result.event_id,
				status: 'completed',
				test_mode: true,
			});
		} finally {
			await receiver.close();
		}
	});

	test('a deployment with a custom path prefix puts it in the synthetic links too', async () => {
		const receiver = await startReceiver();
		try {
			const response = await api(customPrefix.baseUrl, {
				path: '/custom/v1/webhooks/test',
				key: customPrefix.sandbox.keys.premium_live.key,
				json: { webhook_url: receiver.url },
			});
			expect(response.status).toBe(200);
			const body = JSON.parse(receiver.received[0].body) as PublicWebhookTestDelivery;
			expect(body.links).toEqual({
				self: `${customPrefix.baseUrl}/custom/v1/transcriptions/${body.job_id}`,
				artifact: `${customPrefix.baseUrl}/custom/v1/transcriptions/${body.job_id}/artifact`,
			});
		} finally {
			await receiver.close();
		}
	});
});
