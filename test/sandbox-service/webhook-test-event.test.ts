// POST /webhooks/test (spec 4.9, 2.6): one signed webhook.test delivery, reported as delivered or not. First the
// dispatcher's sendTest on a frozen sandbox clock, then the same behaviour over HTTP, through the sandbox's API.

import { createHmac } from 'node:crypto';

import type { PublicWebhookTestDelivery, PublicWebhookTestResponse } from '../../src/api';
import { canonicalJson } from '../../src/service';
import {
	advance,
	expectedSignature,
	FROZEN_SECONDS,
	HOUR,
	Receiver,
	SECRET,
	useDispatcherHarness,
} from '../support/sandbox/dispatcher-harness';
import { api, expectRateLimitHeaders, startReceiver, useSandbox } from '../support/sandbox/client';

const { receiver, dispatcher } = useDispatcherHarness();
const local = useSandbox({ allowLocalWebhooks: true });
const customPrefix = useSandbox({ allowLocalWebhooks: true, pathPrefix: '/custom/v1' });

describe('sendTest (POST /webhooks/test)', () => {
	const baseUrl = 'http://127.0.0.1:4010';

	it('sends one signed webhook.test delivery with the 2.6 body and reports it delivered', async () => {
		const target = await receiver();
		const { webhooks } = dispatcher();

		const response = await webhooks.sendTest({
			url: target.url(),
			secret: SECRET,
			eventType: 'transcription.failed',
			baseUrl,
		});

		expect(target.received).toHaveLength(1);
		const [received] = target.received;
		const body = JSON.parse(received.body.toString('utf8')) as PublicWebhookTestDelivery;
		expect(response).toEqual({
			ok: true,
			event_id: body.event_id,
			delivered: true,
			status_code: 200,
			error: null,
		});
		expect(body).toEqual({
			event: 'transcription.failed',
			event_id: expect.stringMatching(/^evt_test_[0-9a-f]+$/),
			job_id: expect.stringMatching(/^job_test_[0-9a-f]+$/),
			status: 'completed',
			test_mode: true,
			links: {
				self: `${baseUrl}/api/v1/transcriptions/${body.job_id}`,
				artifact: `${baseUrl}/api/v1/transcriptions/${body.job_id}/artifact`,
			},
		});
		expect(received.body.toString('utf8')).toBe(canonicalJson(body));
		expect(received.headers['x-service-event']).toBe('webhook.test');
		expect(received.headers['x-service-event-id']).toBe(body.event_id);
		expect(received.headers['x-service-timestamp']).toBe(String(FROZEN_SECONDS));
		expect(received.headers['x-service-signature']).toBe(expectedSignature(SECRET, received));
		expect(webhooks.deliveries()).toMatchObject([
			{
				kind: 'test',
				event_id: body.event_id,
				event: 'transcription.failed',
				attempt: 1,
				status_code: 200,
				error: null,
				outcome: 'delivered',
			},
		]);
	});

	it('builds the synthetic links under a custom path prefix', async () => {
		const target = await receiver();
		const { webhooks } = dispatcher();

		await webhooks.sendTest({
			url: target.url(),
			secret: SECRET,
			eventType: 'transcription.completed',
			baseUrl: 'http://127.0.0.1:4010/',
			pathPrefix: '/custom/v1',
		});

		const [body] = target.bodies();
		expect(body.links).toEqual({
			self: `http://127.0.0.1:4010/custom/v1/transcriptions/${body.job_id}`,
			artifact: `http://127.0.0.1:4010/custom/v1/transcriptions/${body.job_id}/artifact`,
		});
	});

	it('reports a 500 answer as not delivered and does not retry', async () => {
		const target = await receiver([500]);
		const { clock, webhooks } = dispatcher();

		const response = await webhooks.sendTest({
			url: target.url(),
			secret: SECRET,
			eventType: 'transcription.completed',
			baseUrl,
		});
		await advance(clock, webhooks, 24 * HOUR);

		expect(response).toEqual({
			ok: true,
			event_id: target.bodies()[0].event_id,
			delivered: false,
			status_code: 500,
			error: 'target answered 500',
		});
		expect(target.received).toHaveLength(1);
		expect(webhooks.deliveries()).toMatchObject([
			{ kind: 'test', status_code: 500, outcome: 'not_retried', next_attempt_at: null },
		]);
	});

	it('reports a refused connection when nothing listens', async () => {
		const closed = await Receiver.start();
		const url = closed.url();
		await closed.close();
		const { webhooks } = dispatcher();

		const response = await webhooks.sendTest({
			url,
			secret: SECRET,
			eventType: 'transcription.completed',
			baseUrl,
		});

		expect(response).toEqual({
			ok: true,
			event_id: expect.stringMatching(/^evt_test_/),
			delivered: false,
			status_code: null,
			error: 'connection refused',
		});
	});
});

describe('testWebhook: POST /webhooks/test (4.9)', () => {
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
