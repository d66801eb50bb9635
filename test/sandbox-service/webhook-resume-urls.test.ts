// For Pause Until Webhook: a local n8n's resume URLs as webhook targets. n8n hands out
// `http://127.0.0.1:5678/webhook-waiting/<executionId>` and, in newer versions,
// `…/webhook-waiting/<executionId>/<nodeId>?signature=<token>`; the signed event must arrive at exactly that
// request target. The receiver here is a bare TCP server, so the request line is recorded as sent, byte for byte.
// n8n answers 409 to a resume request while the execution is still running: spec 6 retries only network
// failures, 408, 425, 429 and 5xx, so the delivery log must say plainly that a 409 ended the delivery.

import { createHmac } from 'node:crypto';
import type { PublicWebhookTestResponse } from '../../src/api';
import { SEEDED_KEYS } from '../../sandbox/seed';
import type { RawHook } from '../support/sandbox/client';
import {
	api,
	createJob,
	GENEROUS_LIMITS,
	startRawReceiver,
	uploadMedia,
	useSandbox,
} from '../support/sandbox/client';

const handle = useSandbox({
	allowLocalWebhooks: true,
	rateLimits: { ...GENEROUS_LIMITS, webhookTestsPerWindow: 1000 },
});

const EXECUTION_ID = '4711';
const NODE_ID = '8e3a9c1f-5b7d-4e2a-9f60-1c2d3e4f5a6b';
const SIGNATURE = createHmac('sha256', 'n8n-instance-secret')
	.update(`127.0.0.1:5678/webhook-waiting/${EXECUTION_ID}/${NODE_ID}`)
	.digest('hex');

const receivers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
	await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

async function n8nLikeReceiver(status = 200) {
	const receiver = await startRawReceiver(status);
	receivers.push(receiver);
	return receiver;
}

function expectSignedBy(secret: string, hook: RawHook): void {
	const digest = createHmac('sha256', secret)
		.update(`${hook.headers['x-service-timestamp']}.${hook.body}`)
		.digest('hex');
	expect(hook.headers['x-service-signature']).toBe(`v1=${digest}`);
}

const RESUME_TARGETS = [
	['n8n resume URL', `/webhook-waiting/${EXECUTION_ID}`],
	[
		'n8n resume URL with node id and signature',
		`/webhook-waiting/${EXECUTION_ID}/${NODE_ID}?signature=${SIGNATURE}`,
	],
	[
		'a query with encoded and reserved characters',
		`/webhook-waiting/${EXECUTION_ID}?signature=a%2Bb%3D%3D&next=%2Fdone&x=1+2&empty=&tilde=~-._`,
	],
] as const;

describe('createTranscription with a resume URL as webhook_url', () => {
	test.each(RESUME_TARGETS)(
		'%s: the signed event arrives at exactly that request target',
		async (_case, target) => {
			const receiver = await n8nLikeReceiver();
			const key = handle.sandbox.keys.platinum_test.key;
			const uploadId = await uploadMedia(handle.baseUrl, key);
			const job = await createJob(handle.baseUrl, key, {
				upload_id: uploadId,
				webhook_url: `${receiver.origin}${target}`,
			});
			await handle.admin.webhookDeliveries({ waitIdle: true });

			expect(receiver.received.map((hook) => hook.requestLine)).toEqual([
				`POST ${target} HTTP/1.1`,
			]);
			const [hook] = receiver.received;
			expect(hook.headers['x-service-event']).toBe('transcription.completed');
			expect(JSON.parse(hook.body)).toMatchObject({ job_id: job.job_id, status: 'completed' });
			expectSignedBy(SEEDED_KEYS.platinum_test.signing_secret, hook);
		},
	);
});

describe('POST /webhooks/test with a resume URL', () => {
	test.each(RESUME_TARGETS)(
		'%s: delivered to exactly that request target',
		async (_case, target) => {
			const receiver = await n8nLikeReceiver();
			const response = await api(handle.baseUrl, {
				path: '/api/v1/webhooks/test',
				key: handle.sandbox.keys.premium_live.key,
				json: { webhook_url: `${receiver.origin}${target}` },
			});
			expect(response.status).toBe(200);
			expect((response.json as PublicWebhookTestResponse).delivered).toBe(true);
			expect(receiver.received.map((hook) => hook.requestLine)).toEqual([
				`POST ${target} HTTP/1.1`,
			]);
			expectSignedBy(SEEDED_KEYS.premium_live.signing_secret, receiver.received[0]);
		},
	);
});

describe('a 409 from the target (n8n: execution still running) (spec 6 rule 4)', () => {
	test('is not retried, and the delivery log says so', async () => {
		const receiver = await n8nLikeReceiver(409);
		const key = handle.sandbox.keys.platinum_live.key;
		const target = `/webhook-waiting/${EXECUTION_ID}/${NODE_ID}?signature=${SIGNATURE}`;
		const uploadId = await uploadMedia(handle.baseUrl, key);
		const job = await createJob(handle.baseUrl, key, {
			upload_id: uploadId,
			webhook_url: `${receiver.origin}${target}`,
		});
		await handle.admin.advanceClock(10);
		await handle.admin.advanceClock(4 * 3600);
		const deliveries = (await handle.admin.webhookDeliveries({ waitIdle: true })).filter(
			(delivery) => delivery.url === `${receiver.origin}${target}`,
		);

		expect(receiver.received.map((hook) => hook.requestLine)).toEqual([`POST ${target} HTTP/1.1`]);
		expect(deliveries).toHaveLength(1);
		expect(deliveries[0]).toMatchObject({
			kind: 'event',
			event: 'transcription.completed',
			attempt: 1,
			status_code: 409,
			error: 'target answered 409',
			outcome: 'not_retried',
			next_attempt_at: null,
		});
		expect(JSON.parse(deliveries[0].body)).toMatchObject({ job_id: job.job_id });
	});

	test('a 503 is retried, and the log shows when the next attempt is due', async () => {
		const receiver = await n8nLikeReceiver(503);
		const key = handle.sandbox.keys.platinum_live.key;
		const webhookUrl = `${receiver.origin}/webhook-waiting/${EXECUTION_ID}?signature=retry`;
		const uploadId = await uploadMedia(handle.baseUrl, key);
		await createJob(handle.baseUrl, key, { upload_id: uploadId, webhook_url: webhookUrl });
		await handle.admin.advanceClock(10);
		const [first] = (await handle.admin.webhookDeliveries({ waitIdle: true })).filter(
			(delivery) => delivery.url === webhookUrl,
		);
		expect(first).toMatchObject({
			attempt: 1,
			status_code: 503,
			error: 'target answered 503',
			outcome: 'retry_scheduled',
		});
		const waitSeconds = (Date.parse(first.next_attempt_at ?? '') - Date.parse(first.at)) / 1000;
		expect(waitSeconds).toBeGreaterThanOrEqual(48);
		expect(waitSeconds).toBeLessThanOrEqual(72);
	});
});
