// Transcribe and Download, Wait Mode "Pause Until Webhook" (issues 10 and 17), in n8n-core's engine with n8n's own
// waiting-webhook steps (waiting-harness.ts) and the sandbox delivering real signed events to the resume URL; the
// node's watcher sends its signed checks to the same URL. The service retries a failed delivery after 3 s and 27 s
// here (timeScale 0.05); the runs and their helpers are support/engine/paused-runs.ts's.
// This file: a completion event that never reaches the node (n8n starting up, a redeploy, a 409 the service does not
// repeat, a cancelled job): the watcher's checks resume.
import { makeWav } from '../support/fixtures/media';
import { binaryItem } from '../support/engine/harness';
import { useControlledClock } from '../support/clock/controlled-clock';
import { useEngineSandbox } from '../support/engine/engine-sandbox';
import {
	eventCalls,
	FILES,
	mediaItems,
	transcribe,
	until,
	within,
	usePausedRuns,
	PAUSED_RUNS_SANDBOX,
} from '../support/engine/paused-runs';

const clock = useControlledClock();
const env = useEngineSandbox({ ...PAUSED_RUNS_SANDBOX, clock });
const {
	freshAccount,
	pause,
	completeJobsOf,
	pauseHeld,
	completeJobs,
	eventsAnsweredByN8nStartingUp,
} = usePausedRuns(env);

describe('the watcher: a completion event that never reaches the node', () => {
	it("n8n answered the batch's last event with its own 200 while starting up: the watcher's check resumes, well before Max Wait", async () => {
		const { run, jobIds } = await pauseHeld({
			parameters: transcribe('pauseUntilWebhook'),
			input: await mediaItems(FILES.slice(0, 2)),
		});
		const pausedAt = Date.now();
		run.startingUp = true;
		await completeJobs(jobIds);
		await eventsAnsweredByN8nStartingUp(jobIds);
		expect(run.calls.some((call) => call.resumed)).toBe(false);
		run.startingUp = false;

		// The checks come 5 s and 20 s after the pause; one that met n8n starting up counts for nothing.
		await within(run.finished(), 60_000);
		expect(run.errors).toEqual([]);
		const resumedBy = run.calls.find((call) => call.resumed);
		expect(resumedBy?.kind).toBe('check');
		expect(resumedBy!.receivedAtMs - pausedAt).toBeLessThan(60_000);
		expect(run.output().map((item) => item.json.status)).toEqual(['completed', 'completed']);
	}, 90_000);

	it("keeps checking through a redeploy — n8n starting up, the node unable to read its credential, a load balancer's 503 — and resumes once n8n is back", async () => {
		const { run, jobIds } = await pauseHeld({
			parameters: transcribe('pauseUntilWebhook'),
			input: await mediaItems(FILES.slice(0, 2)),
			frontDoor: true,
		});
		const router = run.frontDoor!;
		run.startingUp = true;
		await completeJobs(jobIds);
		await eventsAnsweredByN8nStartingUp(jobIds);
		const checks = () => run.calls.filter((call) => call.kind === 'check');
		await until('a check answered by n8n starting up', () =>
			checks().length >= 1 ? true : undefined,
		);
		run.startingUp = false;
		run.credentialsUndecryptable = true;
		await until(
			"a check answered by the node's own error",
			() => (checks().some((call) => call.status === 500) ? true : undefined),
			60_000,
		);
		run.credentialsUndecryptable = false;
		router.outage = 'unavailable';
		const refusedChecks = () =>
			router.records.filter(
				(record) => record.target === 'none' && record.status === 503 && record.eventId === null,
			);
		await until(
			'two checks answered 503 by the load balancer',
			() => (refusedChecks().length >= 2 ? true : undefined),
			90_000,
		);
		router.outage = undefined;

		await within(run.finished(), 120_000);
		expect(run.errors).toEqual([]);
		const [startingUp, failed] = checks();
		expect([startingUp.status, startingUp.response]).toEqual([200, undefined]);
		expect([failed.status, failed.response]).toEqual([
			500,
			{ error: 'internal_error', pause_check: 'failed' },
		]);
		expect(refusedChecks()).toHaveLength(2);
		expect(run.calls.filter((call) => call.resumed).map((call) => call.kind)).toEqual(['check']);
		expect(run.output().map((item) => item.json.status)).toEqual(['completed', 'completed']);
	});

	it('every job ended before the execution was saved waiting (n8n answered 409, which the service does not repeat): the first check resumes', async () => {
		const { accountId, credentials } = await freshAccount();
		// Each upload takes 3.5 s and each job is completed as soon as it exists: every job ends while a later item
		// uploads, the third one while the fourth item uploads, whose job is then refused (an unknown model tier), so
		// the execution pauses only after.
		await env.admin.setFaults({
			rules: [{ route: 'uploadBinary', kind: 'latency', latency_ms: 3500 }],
		});
		const completing = completeJobsOf(accountId);
		const media = makeWav({ seconds: 2 });
		const input = await Promise.all(
			['standard', 'standard', 'standard', 'no_such_tier'].map(
				async (tier, index) =>
					await binaryItem({
						data: media,
						fileName: `part-${index}.wav`,
						mimeType: 'audio/wav',
						json: { tier },
					}),
			),
		);
		const run = await pause({
			parameters: transcribe('pauseUntilWebhook', {
				additionalFields: { model_tier: '={{ $json.tier }}' },
			}),
			input,
			credentials,
			continueOnFail: true,
		});
		await completing.stop();
		expect(run.status).toBe('waiting');
		expect(eventCalls(run).map((call) => [call.status, call.resumed])).toEqual([
			[409, false],
			[409, false],
			[409, false],
		]);

		await within(run.finished());
		expect(run.calls.slice(3).map((call) => [call.kind, call.status, call.resumed])).toEqual([
			['check', 200, true],
		]);
		const output = run.output();
		expect(output.slice(0, 3).map((item) => item.json.status)).toEqual([
			'completed',
			'completed',
			'completed',
		]);
		expect(output[3].json.error).toMatchObject({ http_status: 422 });
	}, 60_000);
});

describe('a batch whose jobs have all ended resumes within 2 minutes of the last end, whatever became of its events', () => {
	/** A minute and a bit after the pause: past the watcher's first three checks (5 s, 20 s, 65 s). */
	const LATE_MS = 67_000;

	/** Pauses two items, completes the first job at once (its event arrives) and waits until LATE_MS after the pause. */
	async function firstEndedThenLate() {
		const { run, accountId, jobIds } = await pauseHeld({
			parameters: transcribe('pauseUntilWebhook'),
			input: await mediaItems(FILES.slice(0, 2)),
		});
		const pausedAtMs = Date.parse(
			(run.storedItems()[0].json.error as { pause: { paused_at: string } }).pause.paused_at,
		);
		await env.admin.completeJob(jobIds[0]);
		await until('the first event answered', () =>
			eventCalls(run).find((call) => call.status === 200),
		);
		await clock.sleepUntil(pausedAtMs + LATE_MS);
		return { run, accountId, jobIds };
	}

	/** When the job ended, by the service's records. */
	const endedAtMs = async (accountId: string, jobId: string) =>
		Date.parse(
			(await env.admin.records(accountId)).jobs.find((job) => job.job_id === jobId)!.updated_at,
		);

	it('the last job is cancelled (the service sends no event for it): a check resumes, the item says job_cancelled', async () => {
		const { run, accountId, jobIds } = await firstEndedThenLate();
		await env.admin.cancelJob(jobIds[1]);
		const cancelledAtMs = await endedAtMs(accountId, jobIds[1]);

		await within(run.finished(), 150_000);
		expect(run.errors).toEqual([]);
		const resumedBy = run.calls.find((call) => call.resumed)!;
		expect(resumedBy.kind).toBe('check');
		expect(resumedBy.receivedAtMs - cancelledAtMs).toBeLessThanOrEqual(120_000);
		const [completed, cancelled] = run.output();
		expect(completed.json.status).toBe('completed');
		expect(cancelled.json.error).toMatchObject({
			code: 'job_cancelled',
			job_id: jobIds[1],
			status: 'cancelled',
		});
	});

	it("the last job's event is lost (n8n answered it with its own 200 while starting up): a check resumes", async () => {
		const { run, accountId, jobIds } = await firstEndedThenLate();
		run.startingUp = true;
		await env.admin.completeJob(jobIds[1]);
		await eventsAnsweredByN8nStartingUp(jobIds);
		run.startingUp = false;
		const completedAtMs = await endedAtMs(accountId, jobIds[1]);

		await within(run.finished(), 150_000);
		expect(run.errors).toEqual([]);
		const resumedBy = run.calls.find((call) => call.resumed)!;
		expect(resumedBy.kind).toBe('check');
		expect(resumedBy.receivedAtMs - completedAtMs).toBeLessThanOrEqual(120_000);
		expect(run.output().map((item) => item.json.status)).toEqual(['completed', 'completed']);
	});
});
