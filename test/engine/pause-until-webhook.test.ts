// Transcribe and Download, Wait Mode "Pause Until Webhook" (issues 10 and 17), in n8n-core's engine with n8n's own
// waiting-webhook steps (waiting-harness.ts) and the sandbox delivering real signed events to the resume URL; the
// node's watcher sends its signed checks to the same URL. The service retries a failed delivery after 3 s and 27 s
// here (timeScale 0.05); the runs and their helpers are support/engine/paused-runs.ts's.
// This file: pausing, what reaches the resume URL, the error output, a job that ended before the pause, and where the
// mode cannot work. Max Wait, the node's checks, other processes and lost events have files of their own beside it
// (pause-until-webhook-{max-wait,checks,processes,lost-events}.test.ts).
import { SandboxAdmin } from '../../sandbox/admin-client';
import { startSandbox } from '../../sandbox/server';
import { ACTION_NODE, actionNode, binaryBytes, runWorkflow } from '../support/engine/harness';
import { useControlledClock } from '../support/clock/controlled-clock';
import { useEngineSandbox } from '../support/engine/engine-sandbox';
import {
	eventCalls,
	FILES,
	mediaAndNotMedia,
	mediaItems,
	post,
	signedEvent,
	transcribe,
	until,
	within,
	usePausedRuns,
	PAUSED_RUNS_SANDBOX,
} from '../support/engine/paused-runs';

const clock = useControlledClock();
const env = useEngineSandbox({ ...PAUSED_RUNS_SANDBOX, clock });
const { freshAccount, pause, statusRequests, artifactRequests, holdJobsOf, jobIdsOf } =
	usePausedRuns(env);

describe('pausing: jobs created with the resume URL, the execution saved waiting', () => {
	it('holds no execution while 3 jobs run, reads at most 2 statuses per item, and resumes once, on the last event', async () => {
		const { accountId, credentials } = await freshAccount();
		const run = await pause({
			parameters: transcribe('pauseUntilWebhook'),
			input: await mediaItems(),
			credentials,
		});
		expect(run.status).toBe('waiting');
		expect(run.waitTill!.getTime()).toBeGreaterThan(Date.now() + 590_000);
		const creates = env.proxy.exchanges.filter(
			(exchange) => exchange.method === 'POST' && exchange.url.endsWith('/transcriptions'),
		);
		expect(
			creates.map((create) => (create.requestJson as { webhook_url: string }).webhook_url),
		).toEqual([run.resumeUrl, run.resumeUrl, run.resumeUrl]);

		await within(run.finished());
		expect(run.errors).toEqual([]);
		const events = eventCalls(run);
		expect(events.map((call) => [call.status, call.resumed])).toEqual([
			[200, false],
			[200, false],
			[200, true],
		]);
		// An earlier event waits for the jobs still running or, arriving once a later job has ended too, defers to that
		// job's own event (which resumes); which one depends on how late it arrives. On a loaded machine it may even
		// arrive once that resume is under way, which it then leaves alone.
		const jobIds = await jobIdsOf(accountId);
		for (const early of events.slice(0, 2)) {
			const response = early.response as {
				waiting_for?: number;
				deferred?: string;
				ignored?: string;
			};
			if (response.ignored !== undefined) {
				expect(response).toEqual({ received: true, ignored: 'already resuming' });
			} else if (response.deferred === undefined) {
				expect(response).toEqual({ received: true, waiting_for: expect.any(Number) });
				expect(response.waiting_for).toBeGreaterThanOrEqual(1);
			} else {
				expect(response).toEqual({ received: true, deferred: expect.any(String) });
				expect(jobIds.slice(1)).toContain(response.deferred);
			}
		}
		expect(events[2].response).toEqual({ received: true });
		// Each event reads the next job (still running); the output needs one snapshot per job.
		expect(statusRequests().length).toBeLessThanOrEqual(2 * 3);
		expect(artifactRequests()).toHaveLength(3 * 2);
	});

	it('outputs what Poll mode outputs: the same items, fields and transcript bytes', async () => {
		const { credentials } = await freshAccount();
		const run = await pause({
			parameters: transcribe('pauseUntilWebhook'),
			input: await mediaItems(),
			credentials,
		});
		await within(run.finished());
		const paused = run.output();

		const polled = (
			await runWorkflow({
				nodes: [actionNode(transcribe('poll'))],
				input: await mediaItems(),
				credentials,
			})
		).output(ACTION_NODE);

		expect(paused).toHaveLength(3);
		expect(paused.map((item) => item.pairedItem)).toEqual(polled.map((item) => item.pairedItem));
		for (const [index, item] of paused.entries()) {
			const other = polled[index];
			expect(Object.keys(item.json).sort()).toEqual(Object.keys(other.json).sort());
			expect(item.json.status).toBe('completed');
			expect(item.json.text).toBe(other.json.text);
			expect(item.json.analysis).toEqual(other.json.analysis);
			expect(Object.keys(item.binary ?? {}).sort()).toEqual(['srt', 'txt']);
			for (const format of ['srt', 'txt']) {
				const [mine, theirs] = [item.binary![format], other.binary![format]];
				expect(mine.fileName).toBe(theirs.fileName);
				expect(mine.mimeType).toBe(theirs.mimeType);
				expect((await binaryBytes(mine)).equals(await binaryBytes(theirs))).toBe(true);
			}
		}
	});
});

describe('what reaches the resume URL', () => {
	it('refuses a forgery (401), an event of a job it did not start (409) and a test delivery (409) without resuming', async () => {
		const { accountId, credentials, signingSecret } = await freshAccount();
		const run = await pause({
			parameters: transcribe('pauseUntilWebhook'),
			input: await mediaItems([FILES[0]]),
			credentials,
		});
		const [jobId] = await jobIdsOf(accountId);

		const forged = signedEvent('whsec_not_the_secret', { job_id: jobId });
		expect(await post(run.resumeUrl, forged)).toEqual({
			status: 401,
			body: { error: 'signature_mismatch' },
		});
		const tampered = signedEvent(signingSecret, { job_id: jobId });
		expect(
			(
				await post(run.resumeUrl, {
					...tampered,
					body: tampered.body.replace('completed', 'failed!'),
				})
			).status,
		).toBe(401);
		expect(
			await post(run.resumeUrl, signedEvent(signingSecret, { job_id: 'job_of_another_run' })),
		).toEqual({
			status: 409,
			body: { error: 'unknown_job' },
		});
		const test = signedEvent(signingSecret, { job_id: jobId, test_mode: true } as never);
		expect((await post(run.resumeUrl, test)).body).toEqual({ error: 'not_a_job_event' });
		expect(run.status).toBe('waiting');

		await within(run.finished());
		expect(run.calls.filter((call) => call.resumed)).toHaveLength(1);
		expect(run.output()[0].json.status).toBe('completed');
	});

	it('resumes once when every event arrives twice', async () => {
		const { credentials } = await freshAccount();
		await env.admin.setFaults({ webhooks: { duplicateProbability: 1 } });
		const run = await pause({
			parameters: transcribe('pauseUntilWebhook'),
			input: await mediaItems(FILES.slice(0, 2)),
			credentials,
		});
		await within(run.finished());
		await env.admin.webhookDeliveries({ waitIdle: true });
		expect(run.errors).toEqual([]);
		expect(run.calls.filter((call) => call.resumed)).toHaveLength(1);
		expect(run.calls.length).toBeGreaterThanOrEqual(3);
		expect(run.output().map((item) => item.json.status)).toEqual(['completed', 'completed']);
	});

	it('gives job_failed for the item whose job failed, and the transcript for the others', async () => {
		const { credentials } = await freshAccount();
		const run = await pause({
			parameters: transcribe('pauseUntilWebhook'),
			input: await mediaAndNotMedia(),
			credentials,
		});
		await within(run.finished());
		const [good, failed] = run.output();
		expect(good.json.status).toBe('completed');
		expect(failed.binary).toBeUndefined();
		expect(failed.json.error).toMatchObject({
			code: 'job_failed',
			status: 'failed',
			job_id: expect.any(String),
			upload_id: expect.any(String),
		});
		expect(failed.pairedItem).toEqual({ item: 1 });
	});
});

describe('On Error → Continue (using error output): every failure reaches the error output', () => {
	it('on the resume: the failed job on the error output, the transcript on the success output', async () => {
		const { credentials } = await freshAccount();
		const run = await pause({
			parameters: transcribe('pauseUntilWebhook'),
			input: await mediaAndNotMedia(),
			credentials,
			onError: 'continueErrorOutput',
		});
		await within(run.finished());
		const [success, failure] = run.outputs();
		expect(success.map((item) => [item.json.status, item.pairedItem])).toEqual([
			['completed', { item: 0 }],
		]);
		expect(failure).toHaveLength(1);
		expect(failure[0].json.error).toMatchObject({ code: 'job_failed', status: 'failed' });
		expect(failure[0].pairedItem).toEqual({ item: 1 });
	});

	it("on n8n's own timeout: every stored item on the error output", async () => {
		const { credentials } = await freshAccount();
		const run = await pause({
			parameters: transcribe('pauseUntilWebhook', { options: { maxWaitSeconds: 60 } }),
			input: await mediaItems(FILES.slice(0, 2)),
			credentials,
			onError: 'continueErrorOutput',
		});
		await run.timeout();
		const [success, failure] = run.outputs();
		expect(success).toEqual([]);
		expect(failure.map((item) => (item.json.error as { code: string }).code)).toEqual([
			'max_wait_exceeded',
			'max_wait_exceeded',
		]);
	});
});

describe('a job that ended before the execution was saved waiting', () => {
	it("is read by the next event, since n8n refused its own (409, 'running') and the service does not repeat a 409", async () => {
		const { accountId, credentials } = await freshAccount();
		// Each upload takes 3.5 s: the first job is completed while the second item is still uploading, the second one
		// once the execution waits.
		await env.admin.setFaults({
			rules: [{ route: 'uploadBinary', kind: 'latency', latency_ms: 3500 }],
		});
		const holding = holdJobsOf(accountId);
		const pausing = pause({
			parameters: transcribe('pauseUntilWebhook'),
			input: await mediaItems(FILES.slice(0, 2)),
			credentials,
		});
		const [firstJob] = await until('the first job', () =>
			holding.done.length > 0 ? holding.done : undefined,
		);
		await env.admin.completeJob(firstJob);
		const run = await pausing;
		const [, secondJob] = await holding.stop();
		await env.admin.completeJob(secondJob);
		await within(run.finished());
		expect(eventCalls(run).map((call) => [call.status, call.resumed])).toEqual([
			[409, false],
			[200, true],
		]);
		expect(run.output().map((item) => item.json.status)).toEqual(['completed', 'completed']);
	}, 60_000);
});

describe('where it cannot work, it says so before starting a job', () => {
	it('with test keys the jobs end at once: no pause, the same output as Poll mode', async () => {
		const { credentials } = await freshAccount('test');
		const run = await pause({
			parameters: transcribe('pauseUntilWebhook'),
			input: await mediaItems([FILES[0]]),
			credentials,
		});
		expect(run.status).toBe('finished');
		expect(run.firstRun.waitTill).toBeUndefined();
		expect(run.output()[0].json.status).toBe('completed');
		expect(Object.keys(run.output()[0].binary ?? {}).sort()).toEqual(['srt', 'txt']);
	});

	it('without a Signing Secret: signing_secret_missing, nothing created', async () => {
		const { accountId, credentials } = await freshAccount();
		const result = await runWorkflow({
			nodes: [actionNode(transcribe('pauseUntilWebhook'), { continueOnFail: true })],
			input: await mediaItems(FILES.slice(0, 2)),
			credentials: { ...credentials, signingSecret: '  ' },
		});
		const output = result.output(ACTION_NODE);
		expect(output.map((item) => (item.json.error as { code: string }).code)).toEqual([
			'signing_secret_missing',
			'signing_secret_missing',
		]);
		const records = await env.admin.records(accountId);
		expect(records.uploads).toHaveLength(0);
		expect(records.jobs).toHaveLength(0);
	});

	it('a public service and a resume URL it cannot reach: resume_url_not_public, no request sent', async () => {
		const { credentials } = await freshAccount();
		const result = await runWorkflow({
			nodes: [actionNode(transcribe('pauseUntilWebhook'), { continueOnFail: true })],
			input: await mediaItems([FILES[0]]),
			credentials: { ...credentials, baseUrl: 'https://api.transcription.example' },
		});
		const [item] = result.output(ACTION_NODE);
		expect(item.json.error).toMatchObject({
			code: 'resume_url_not_public',
			message: expect.stringMatching(
				/^The service cannot reach this n8n's resume URL http:\/\/127\.0\.0\.1:5678\/webhook-waiting\/.+: it is http, not https$/,
			),
			description: expect.stringMatching(/WEBHOOK_URL.*Wait Mode: Poll\. No job was started\.$/),
		});
		expect(env.proxy.exchanges).toHaveLength(0);
	});

	it('the service refuses the resume URL: its error code, what to do, and no job', async () => {
		const strict = await startSandbox({ port: 0, quiet: true, jobSeconds: 2 });
		try {
			const strictAdmin = new SandboxAdmin(strict.baseUrl);
			const key = await strictAdmin.createKey({ mode: 'live', tier: 'platinum' });
			const result = await runWorkflow({
				nodes: [actionNode(transcribe('pauseUntilWebhook'), { continueOnFail: true })],
				input: await mediaItems([FILES[0]]),
				credentials: {
					apiKey: key.key,
					baseUrl: strict.baseUrl,
					signingSecret: key.signing_secret as string,
				},
			});
			const [item] = result.output(ACTION_NODE);
			expect(item.json.error).toMatchObject({
				code: expect.stringMatching(/^(invalid_webhook_url|webhook_url_forbidden_target)$/),
				http_status: 400,
				upload_id: expect.any(String),
				message: expect.stringMatching(
					/^The service refused this n8n's resume URL http:\/\/127\.0\.0\.1:5678\/webhook-waiting\//,
				),
			});
			const records = await strictAdmin.records(key.account_id);
			expect(records.jobs).toHaveLength(0);
		} finally {
			await strict.close();
		}
	});

	it('a Webhook URL saved under Additional Fields is hidden in this mode and not used: the job gets the resume URL', async () => {
		const { credentials } = await freshAccount('test');
		const run = await pause({
			parameters: transcribe('pauseUntilWebhook', {
				additionalFields: { webhook_url: 'https://example.com/hook' },
			}),
			input: await mediaItems([FILES[0]]),
			credentials,
		});
		const [create] = env.proxy.exchanges.filter(
			(exchange) => exchange.method === 'POST' && exchange.url.endsWith('/transcriptions'),
		);
		expect((create.requestJson as { webhook_url: string }).webhook_url).toBe(run.resumeUrl);
		expect(run.output()[0].json.status).toBe('completed');
	});
});
