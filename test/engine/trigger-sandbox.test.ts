// The sandbox delivers real signed events to the trigger's Production URL (a loopback server with n8n's request
// handling around the built node's webhook()), and each started execution runs through n8n-core's WorkflowExecute.
import { resolveLink } from '../../src/api';
import { REORDER_HOLD_SECONDS } from '../../sandbox/webhooks';
import { makeWav } from '../support/fixtures/media';
import { binaryBytes } from '../support/engine/harness';
import { useEngineSandbox } from '../support/engine/engine-sandbox';
import {
	TriggerUnderTest,
	type TriggerSetup,
	type WebhookCall,
} from '../support/engine/webhook-harness';

const JOB_SECONDS = 2;

const env = useEngineSandbox({ allowLocalWebhooks: true, jobSeconds: JOB_SECONDS, seed: 7 });
let trigger: TriggerUnderTest | undefined;

afterEach(async () => {
	await trigger?.close();
	trigger = undefined;
});

function platinum(overrides: Partial<TriggerSetup> = {}): TriggerSetup {
	const account = env.sandbox.keys.platinum_live;
	return {
		runExecutions: true,
		...overrides,
		credentials: {
			apiKey: account.key,
			baseUrl: env.sandbox.baseUrl,
			signingSecret: account.signing_secret,
			...overrides.credentials,
		},
	};
}

async function api<T>(
	path: string,
	init: { method: string; body?: unknown; raw?: Buffer },
): Promise<{ status: number; body: T }> {
	const response = await fetch(resolveLink(env.sandbox.baseUrl, path), {
		method: init.method,
		headers: {
			Authorization: `Bearer ${env.sandbox.keys.platinum_live.key}`,
			'Content-Type': init.raw ? 'application/octet-stream' : 'application/json',
		},
		body: init.raw ?? (init.body === undefined ? undefined : JSON.stringify(init.body)),
	});
	return { status: response.status, body: (await response.json()) as T };
}

/** Upload slot → bytes → live job whose webhook_url is the trigger's Production URL. */
async function createLiveJob(webhookUrl: string): Promise<string> {
	const media = makeWav({ seconds: 2 });
	const slot = await api<{ upload_id: string; upload_url: string }>('/api/v1/uploads', {
		method: 'POST',
		body: { filename: 'interview.wav', content_type: 'audio/wav', size_bytes: media.length },
	});
	await api(slot.body.upload_url, { method: 'PUT', raw: media });
	const job = await api<{ job_id: string; status: string }>('/api/v1/transcriptions', {
		method: 'POST',
		body: { upload_id: slot.body.upload_id, webhook_url: webhookUrl },
	});
	expect(job).toMatchObject({ status: 202, body: { status: 'queued' } });
	return job.body.job_id;
}

async function completeJobs(): Promise<void> {
	await env.admin.advanceClock(JOB_SECONDS + 1);
}

function startedExecutions(calls: WebhookCall[]): WebhookCall[] {
	return calls.filter((call) => call.workflowData !== undefined);
}

describe("the trigger receiving the sandbox's signed deliveries", () => {
	it("turns a live job's completion into exactly one verified transcription.completed item", async () => {
		trigger = await TriggerUnderTest.start(platinum());
		const jobId = await createLiveJob(trigger.productionUrl);
		const delivered = trigger.nextCalls(1);
		await completeJobs();
		const [call] = await delivered;
		await env.admin.webhookDeliveries({ waitIdle: true });

		expect(call.status).toBe(200);
		expect(call.response).toEqual({ received: true });
		expect(startedExecutions(trigger.calls)).toHaveLength(1);
		const [item] = call.executionOutput!;
		expect(item.json).toMatchObject({
			event: 'transcription.completed',
			job_id: jobId,
			status: 'completed',
			links: { artifact: expect.stringContaining(`/transcriptions/${jobId}/artifact`) },
		});
		expect(typeof item.json.received_at).toBe('string');
		expect(item.binary).toBeUndefined();
		const records = (await env.admin.webhookDeliveries()).filter((record) =>
			record.body.includes(jobId),
		);
		expect(records.map((record) => record.status_code)).toEqual([200]);
		expect(item.json.event_id).toBe(records[0].event_id);
	});

	it('attaches the artifact with its file name when Download Artifact is on', async () => {
		trigger = await TriggerUnderTest.start(
			platinum({
				parameters: {
					downloadArtifact: true,
					artifactFormat: 'docx',
					binaryPropertyName: 'transcript',
				},
			}),
		);
		const jobId = await createLiveJob(trigger.productionUrl);
		const delivered = trigger.nextCalls(1);
		await completeJobs();
		const [call] = await delivered;

		expect(call.status).toBe(200);
		const [item] = call.executionOutput!;
		expect(item.json.artifact_error).toBeUndefined();
		const transcript = item.binary!.transcript;
		expect(transcript.fileName).toBe('interview.docx');
		expect(transcript.mimeType).toBe(
			'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
		);
		const direct = await fetch(
			`${env.sandbox.baseUrl}/api/v1/transcriptions/${jobId}/artifact.docx`,
			{
				headers: { Authorization: `Bearer ${env.sandbox.keys.platinum_live.key}` },
			},
		);
		expect((await binaryBytes(transcript)).equals(Buffer.from(await direct.arrayBuffer()))).toBe(
			true,
		);
	});

	it('still emits the event, with artifact_error, when the artifact download fails', async () => {
		trigger = await TriggerUnderTest.start(
			platinum({
				parameters: { downloadArtifact: true, artifactFormat: 'srt' },
				credentials: { apiKey: env.sandbox.keys.revoked_live.key, baseUrl: env.sandbox.baseUrl },
			}),
		);
		const jobId = await createLiveJob(trigger.productionUrl);
		const delivered = trigger.nextCalls(1);
		await completeJobs();
		const [call] = await delivered;

		expect(call.status).toBe(200);
		expect(startedExecutions(trigger.calls)).toHaveLength(1);
		const [item] = call.executionOutput!;
		expect(item.json).toMatchObject({
			event: 'transcription.completed',
			job_id: jobId,
			artifact_error: { code: 'invalid_api_key', http_status: 401 },
		});
		expect(item.binary).toBeUndefined();
	});

	it('turns a forced failure into exactly one transcription.failed item, with no download attempted', async () => {
		trigger = await TriggerUnderTest.start(platinum({ parameters: { downloadArtifact: true } }));
		const jobId = await createLiveJob(trigger.productionUrl);
		const delivered = trigger.nextCalls(1);
		await env.admin.failJob(jobId);
		const [call] = await delivered;
		await env.admin.webhookDeliveries({ waitIdle: true });

		expect(call.status).toBe(200);
		expect(startedExecutions(trigger.calls)).toHaveLength(1);
		const [item] = call.executionOutput!;
		expect(item.json).toMatchObject({
			event: 'transcription.failed',
			job_id: jobId,
			status: 'failed',
			links: { artifact: null },
		});
		expect(item.json.artifact_error).toBeUndefined();
		expect(item.binary).toBeUndefined();
	});

	it('starts one execution for an event the sandbox delivers twice (duplicate fault)', async () => {
		trigger = await TriggerUnderTest.start(platinum());
		await env.admin.setFaults({ seed: 11, webhooks: { duplicateProbability: 1 } });
		const jobId = await createLiveJob(trigger.productionUrl);
		const delivered = trigger.nextCalls(2);
		await completeJobs();
		const [first, second] = await delivered;

		expect(first.response).toEqual({ received: true });
		expect(second.status).toBe(200);
		expect(second.response).toEqual({ received: true, ignored: 'duplicate event_id' });
		expect(startedExecutions(trigger.calls)).toHaveLength(1);
		const records = (await env.admin.webhookDeliveries({ waitIdle: true })).filter((record) =>
			record.body.includes(jobId),
		);
		expect(records).toHaveLength(2);
		expect(new Set(records.map((record) => record.event_id)).size).toBe(1);
	});

	it('starts one execution per event when the sandbox delivers them out of order (reorder fault)', async () => {
		trigger = await TriggerUnderTest.start(platinum());
		await env.admin.setFaults({ seed: 5, webhooks: { reorderProbability: 1 } });
		const jobIds = [
			await createLiveJob(trigger.productionUrl),
			await createLiveJob(trigger.productionUrl),
		];
		const delivered = trigger.nextCalls(2);
		await completeJobs();
		await env.admin.advanceClock(REORDER_HOLD_SECONDS + 1);
		const calls = await delivered;

		expect(calls.map((call) => call.response)).toEqual([{ received: true }, { received: true }]);
		const emittedJobs = calls.map((call) => call.executionOutput?.[0].json.job_id);
		expect([...emittedJobs].sort()).toEqual([...jobIds].sort());
	});

	it('produces one test item for POST /webhooks/test when Webhook Test is selected', async () => {
		trigger = await TriggerUnderTest.start(platinum({ parameters: { events: ['webhook.test'] } }));
		const delivered = trigger.nextCalls(1);
		const test = await api('/api/v1/webhooks/test', {
			method: 'POST',
			body: { webhook_url: trigger.productionUrl, event_type: 'transcription.failed' },
		});
		const [call] = await delivered;

		expect(test).toMatchObject({
			status: 200,
			body: { ok: true, delivered: true, status_code: 200, error: null },
		});
		expect(startedExecutions(trigger.calls)).toHaveLength(1);
		const [item] = call.executionOutput!;
		expect(item.json).toMatchObject({
			event: 'transcription.failed',
			status: 'completed',
			test_mode: true,
		});
	});

	it('acknowledges POST /webhooks/test without starting anything when Webhook Test is not selected', async () => {
		trigger = await TriggerUnderTest.start(platinum());
		const delivered = trigger.nextCalls(1);
		const test = await api('/api/v1/webhooks/test', {
			method: 'POST',
			body: { webhook_url: trigger.productionUrl },
		});
		const [call] = await delivered;

		expect(test).toMatchObject({
			status: 200,
			body: { ok: true, delivered: true, status_code: 200 },
		});
		expect(call.response).toEqual({ received: true, ignored: 'event not selected' });
		expect(startedExecutions(trigger.calls)).toHaveLength(0);
	});

	it("refuses the sandbox's deliveries with 401 when the credential holds another account's secret", async () => {
		trigger = await TriggerUnderTest.start(
			platinum({
				credentials: {
					...platinum().credentials,
					signingSecret: env.sandbox.keys.premium_live.signing_secret,
				},
			}),
		);
		const delivered = trigger.nextCalls(1);
		const test = await api('/api/v1/webhooks/test', {
			method: 'POST',
			body: { webhook_url: trigger.productionUrl },
		});
		const [call] = await delivered;

		expect(call.response).toEqual({ error: 'signature_mismatch' });
		expect(test.body).toMatchObject({ delivered: false, status_code: 401 });
		expect(startedExecutions(trigger.calls)).toHaveLength(0);
	});
});
