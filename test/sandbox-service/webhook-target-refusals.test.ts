// Spec 4.4/4.9 and 6 rules 5–6 as the core applies them: webhook targets are checked when a job is
// created and when POST /webhooks/test is called. Only loopback addresses and .invalid names are
// used; no traffic leaves the machine. What POST /webhooks/test sends to an accepted target:
// webhook-test-event.test.ts.

import { api, expectError, uploadMedia, useSandbox } from '../support/sandbox/client';

const strict = useSandbox();

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
});
