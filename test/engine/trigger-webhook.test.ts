// The built trigger's real webhook() inside n8n-core's WebhookContext, behind an express server with n8n's body
// handling, fed the Python-signed deliveries of test/support/fixtures/trigger-vectors.json over HTTP. Only Date is faked
// (to each vector's receiver clock): the signatures are fixed, so the clock has to be. Last, a signing secret pasted
// with whitespace around it, on a sandbox account.
import type { INodeParameters } from 'n8n-workflow';

import type { PublicTranscriptionWebhookEvent } from '../../src/api';
import { canonicalJson, signPayload } from '../../src/service';
import { freshAccounts } from '../support/engine/accounts';
import { useEngineSandbox } from '../support/engine/engine-sandbox';
import {
	TriggerUnderTest,
	type TriggerSetup,
	type WebhookCall,
} from '../support/engine/webhook-harness';
import {
	loadTriggerVectors,
	vectorBody,
	type TriggerVector,
} from '../support/fixtures/trigger-vectors';

const vectors = loadTriggerVectors();
const ALL_BUT_DATE = [
	'hrtime',
	'nextTick',
	'performance',
	'queueMicrotask',
	'setImmediate',
	'clearImmediate',
	'setInterval',
	'clearInterval',
	'setTimeout',
	'clearTimeout',
] as const;
// Nothing listens there: no vector may reach the API.
const UNREACHABLE_API = 'http://127.0.0.1:9';

function setupFor(vector: TriggerVector): TriggerSetup {
	return {
		parameters: vector.parameters as INodeParameters,
		credentials: {
			apiKey: 'svc_sk_live_engineTrigger000000000001',
			baseUrl: UNREACHABLE_API,
			...vector.credential,
		},
	};
}

function freezeClock(unixSeconds: number): void {
	jest.useFakeTimers({ now: unixSeconds * 1000, doNotFake: [...ALL_BUT_DATE] });
}

function startedExecutions(calls: WebhookCall[]): WebhookCall[] {
	return calls.filter((call) => call.workflowData !== undefined);
}

afterEach(() => jest.useRealTimers());

describe('webhook() over HTTP with the Python-signed deliveries', () => {
	describe.each(vectors.map((vector) => [vector.name, vector] as const))('%s', (_name, vector) => {
		let trigger: TriggerUnderTest;

		beforeEach(async () => {
			trigger = await TriggerUnderTest.start(setupFor(vector));
			freezeClock(vector.now);
		});
		afterEach(async () => await trigger.close());

		it('answers with the exact status and body, and starts an execution only when expected', async () => {
			for (const delivery of vector.deliveries) {
				const call = await trigger.post(vectorBody(delivery), delivery.headers);
				expect(call.error).toBeUndefined();
				expect({
					status: call.status,
					response: call.response,
					emitted: call.workflowData !== undefined,
				}).toEqual(delivery.expect);
				if (delivery.expect.emitted) {
					expect(call.workflowData).toEqual([
						[
							{
								json: {
									...JSON.parse(vectorBody(delivery).toString('utf8')),
									received_at: new Date(vector.now * 1000).toISOString(),
								},
							},
						],
					]);
				}
			}
		});
	});
});

describe('webhook() and the workflow static data n8n keeps between requests', () => {
	const duplicates = vectors.find(
		({ name }) => name === 'the same event_id delivered three times',
	)!;
	const rotation = vectors.find(
		({ name }) => name === 'signed with the previous secret during rotation',
	)!;
	let trigger: TriggerUnderTest;

	afterEach(async () => await trigger.close());

	it('stores one event_id for three deliveries of it, and starts one execution', async () => {
		trigger = await TriggerUnderTest.start(setupFor(duplicates));
		freezeClock(duplicates.now);
		for (const delivery of duplicates.deliveries)
			await trigger.post(vectorBody(delivery), delivery.headers);

		expect(startedExecutions(trigger.calls)).toHaveLength(1);
		expect(trigger.nodeStaticData.seenEvents).toEqual([
			['evt_01J9Z6Q4M7W2XK3B8N5R1T0Y4C', duplicates.now * 1000],
		]);
	});

	it('keeps deduplicating across an n8n restart of the trigger (static data reloaded from storage)', async () => {
		trigger = await TriggerUnderTest.start(setupFor(duplicates));
		freezeClock(duplicates.now);
		const [first, second] = duplicates.deliveries;
		await trigger.post(vectorBody(first), first.headers);
		const stored = trigger.storedStaticData;
		await trigger.close();

		trigger = await TriggerUnderTest.start(setupFor(duplicates));
		trigger.storedStaticData = stored;
		const redelivery = await trigger.post(vectorBody(second), second.headers);
		expect(redelivery.status).toBe(200);
		expect(redelivery.response).toEqual({ received: true, ignored: 'duplicate event_id' });
		expect(redelivery.workflowData).toBeUndefined();
	});

	it('does not touch static data when Deduplicate Events is off', async () => {
		const vector = vectors.find(
			({ name }) => name === 'the same event_id three times with Deduplicate Events off',
		)!;
		trigger = await TriggerUnderTest.start(setupFor(vector));
		freezeClock(vector.now);
		for (const delivery of vector.deliveries)
			await trigger.post(vectorBody(delivery), delivery.headers);
		expect(startedExecutions(trigger.calls)).toHaveLength(3);
		expect(trigger.storedStaticData).toEqual({});
	});

	it('starts an execution for each delivery to the Test URL: static data is not kept in test mode', async () => {
		trigger = await TriggerUnderTest.start(setupFor(duplicates));
		freezeClock(duplicates.now);
		const [first, second] = duplicates.deliveries;
		const calls = [
			await trigger.post(vectorBody(first), first.headers, trigger.testUrl),
			await trigger.post(vectorBody(second), second.headers, trigger.testUrl),
		];
		expect(calls.map((call) => call.response)).toEqual([{ received: true }, { received: true }]);
		expect(startedExecutions(calls)).toHaveLength(2);
		expect(trigger.storedStaticData).toEqual({});
	});

	it('reads the raw body itself when n8n has not read it yet', async () => {
		trigger = await TriggerUnderTest.start({ ...setupFor(rotation), skipBodyParsing: true });
		freezeClock(rotation.now);
		const [delivery] = rotation.deliveries;
		const call = await trigger.post(vectorBody(delivery), delivery.headers);
		expect(call.status).toBe(200);
		expect(call.workflowData).toHaveLength(1);
	});
});

describe('webhook() with bodies n8n itself handles', () => {
	let trigger: TriggerUnderTest;
	afterEach(async () => await trigger.close());

	it('never reaches the node when the body claims JSON but is not: n8n answers 422 and starts nothing', async () => {
		const secret = 'whsec_engine_json';
		trigger = await TriggerUnderTest.start({
			credentials: {
				apiKey: 'svc_sk_live_engineTrigger000000000001',
				baseUrl: UNREACHABLE_API,
				signingSecret: secret,
			},
		});
		const timestamp = Math.floor(Date.now() / 1000);
		const body = '{"event": "transcription.completed",';
		const call = await trigger.post(body, {
			'Content-Type': 'application/json',
			'X-Service-Event': 'transcription.completed',
			'X-Service-Event-ID': 'evt_truncated',
			'X-Service-Timestamp': String(timestamp),
			'X-Service-Signature': signPayload(secret, timestamp, body),
		});
		expect(call.status).toBe(422);
		expect(call.workflowData).toBeUndefined();
	});

	it('refuses a declared Content-Length over 1 MiB with 413 without starting anything', async () => {
		const secret = 'whsec_engine_big';
		trigger = await TriggerUnderTest.start({
			credentials: {
				apiKey: 'svc_sk_live_engineTrigger000000000001',
				baseUrl: UNREACHABLE_API,
				signingSecret: secret,
			},
		});
		const timestamp = Math.floor(Date.now() / 1000);
		const body = canonicalJson({ padding: 'y'.repeat(2 * 1024 * 1024) });
		const call = await trigger.post(body, {
			'Content-Type': 'application/json',
			'X-Service-Event': 'transcription.completed',
			'X-Service-Event-ID': 'evt_big',
			'X-Service-Timestamp': String(timestamp),
			'X-Service-Signature': signPayload(secret, timestamp, body),
		});
		expect(call.status).toBe(413);
		expect(call.response).toEqual({ error: 'payload_too_large' });
		expect(call.workflowData).toBeUndefined();
	});
});

describe('signing secrets pasted with surrounding whitespace', () => {
	// A sandbox for this describe alone: a fresh account's signing secret, and links pointing at the sandbox.
	const env = useEngineSandbox({ recordExchanges: true });
	const freshAccount = freshAccounts(env);

	it.each([
		['a trailing newline', (secret: string) => `${secret}\n`],
		['spaces around it', (secret: string) => `  ${secret}  `],
	])('the trigger accepts events when the secret has %s', async (_label, paste) => {
		const { credentials, signingSecret } = await freshAccount();
		const trigger = await TriggerUnderTest.start({
			parameters: {},
			credentials: { ...credentials, signingSecret: paste(signingSecret) },
			runExecutions: true,
		});
		try {
			const event: PublicTranscriptionWebhookEvent = {
				event: 'transcription.failed',
				event_id: `evt_whitespace_${paste('').length}`,
				job_id: 'job_whitespace',
				status: 'failed',
				created_at: new Date().toISOString(),
				links: {
					self: `${env.proxy.baseUrl}/api/v1/transcriptions/job_whitespace`,
					artifact: null,
				},
			};
			const call = await trigger.postSignedEvent(event, signingSecret);
			expect(call.status).toBe(200);
			expect(call.executionOutput?.[0].json.event_id).toBe(event.event_id);
		} finally {
			await trigger.close();
		}
	});
});
