// Transcribe and Download, Wait Mode "Pause Until Webhook" (issues 10 and 17), in n8n-core's engine with n8n's own
// waiting-webhook steps (waiting-harness.ts) and the sandbox delivering real signed events to the resume URL; the
// node's watcher sends its signed checks to the same URL. The service retries a failed delivery after 3 s and 27 s
// here (timeScale 0.05); the runs and their helpers are support/engine/paused-runs.ts's.
// This file: when Max Wait runs out, the deadline check (under the rate limit too), and n8n's own timeout when no
// watcher is left.
import type { INodeExecutionData } from 'n8n-workflow';

import { DEFAULT_RATE_LIMITS } from '../../sandbox/rate-limit';
import { wavItems } from '../support/engine/batch-runs';
import { binaryItem } from '../support/engine/harness';
import { makeWav } from '../support/fixtures/media';
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
const { freshAccount, pause, statusReads, artifactRequests, pauseHeld, completeJobs } =
	usePausedRuns(env);

describe('when Max Wait runs out: the deadline check', () => {
	it('delivers the completed jobs and names the one still running max_wait_exceeded, with its current status', async () => {
		const { run, accountId, jobIds } = await pauseHeld({
			parameters: transcribe('pauseUntilWebhook', { options: { maxWaitSeconds: 8 } }),
			input: await mediaItems(),
		});
		const pausedAt = Date.now();
		await completeJobs(jobIds.slice(0, 2));

		await within(run.finished());
		expect(run.errors).toEqual([]);
		const resumedBy = run.calls.find((call) => call.resumed);
		expect(resumedBy).toMatchObject({ kind: 'check', status: 200 });
		expect(resumedBy!.receivedAtMs - pausedAt).toBeGreaterThanOrEqual(7000);
		const [first, second, third] = run.output();
		expect([first.json.status, second.json.status]).toEqual(['completed', 'completed']);
		expect(Object.keys(first.binary ?? {}).sort()).toEqual(['srt', 'txt']);
		const held = (await env.admin.records(accountId)).jobs.find((job) => job.job_id === jobIds[2]);
		expect(Object.keys(third.json)).toEqual(['error']);
		expect(third.json.error).toMatchObject({
			code: 'max_wait_exceeded',
			job_id: jobIds[2],
			status: held!.status,
			message: `Transcription job ${jobIds[2]} did not finish within the Max Wait of 8 s (status "${held!.status}")`,
		});
		expect(third.pairedItem).toEqual({ item: 2 });
		await env.admin.releaseJob(jobIds[2]);
	});
});

describe("Max Wait is one value for the run, the first item's, in both wait modes", () => {
	/** Two recordings whose Max Wait is an expression: 4 s for the first item, 600 s for the second. */
	const itemsWithMaxWaits = async () =>
		await Promise.all(
			[4, 600].map(
				async (maxWait, index) =>
					await binaryItem({
						data: makeWav({ seconds: 2 }),
						fileName: `part-${index}.wav`,
						mimeType: 'audio/wav',
						json: { maxWait },
					}),
			),
		);
	const firstItemsMaxWait = (waitMode: 'poll' | 'pauseUntilWebhook') =>
		transcribe(waitMode, {
			options: {
				pollIntervalSeconds: 0.2,
				maxPollIntervalSeconds: 0.5,
				maxWaitSeconds: '={{ $json.maxWait }}',
				concurrency: 2,
			},
		});
	/** Each item is max_wait_exceeded at the first item's 4 s, each job once (items start at once: any order). */
	const expectEachExceededAtFourSeconds = (output: INodeExecutionData[], jobIds: string[]) => {
		const errors = output.map((item) => item.json.error as { job_id: string });
		expect(errors).toEqual(
			errors.map(({ job_id }) =>
				expect.objectContaining({
					code: 'max_wait_exceeded',
					job_id,
					message: expect.stringMatching(/ did not finish within the Max Wait of 4 s /),
				}),
			),
		);
		expect(errors.map(({ job_id }) => job_id).sort()).toEqual([...jobIds].sort());
	};

	it("Poll: each job gets the first item's Max Wait from its start, the second item's 600 s too", async () => {
		const { run, jobIds } = await pauseHeld({
			parameters: firstItemsMaxWait('poll'),
			input: await itemsWithMaxWaits(),
			continueOnFail: true,
		});
		expect(run.status).toBe('finished');
		expectEachExceededAtFourSeconds(run.output(), jobIds);
		await Promise.all(jobIds.map(async (jobId) => await env.admin.releaseJob(jobId)));
	});

	it("Pause Until Webhook: the batch waits the first item's Max Wait once, from the pause, and says so for each item", async () => {
		const { run, jobIds } = await pauseHeld({
			parameters: firstItemsMaxWait('pauseUntilWebhook'),
			input: await itemsWithMaxWaits(),
		});
		const { pause } = run.storedItems()[1].json.error as {
			pause: { paused_at: string; deadline_at: string };
		};
		expect(Date.parse(pause.deadline_at) - Date.parse(pause.paused_at)).toBe(4_000);

		await within(run.finished());
		expect(run.errors).toEqual([]);
		expect(run.calls.find((call) => call.resumed)).toMatchObject({ kind: 'check', status: 200 });
		expectEachExceededAtFourSeconds(run.output(), jobIds);
		await Promise.all(jobIds.map(async (jobId) => await env.admin.releaseJob(jobId)));
	});
});

describe('the deadline check of a large batch under the rate limit', () => {
	afterEach(async () => {
		await env.admin.setRateLimits(DEFAULT_RATE_LIMITS);
	});

	it('100 items, 89 still running, 30 status reads per 20 s: it reads each running job once over its retries, then resumes', async () => {
		// Writes and downloads unlimited, status reads 30 per 20 s window: one try of the deadline check (2 s at most for
		// a window) reads a window's worth, never all 89.
		await env.admin.setRateLimits({
			windowSeconds: 20,
			perTier: { premium: 10_000, platinum: 10_000 },
			readsMultiplier: 0.003,
		});
		const maxWaitSeconds = 20;
		const { run, accountId, jobIds } = await pauseHeld({
			parameters: transcribe('pauseUntilWebhook', {
				formats: ['srt'],
				options: { maxWaitSeconds },
			}),
			input: await wavItems(100, 'deadline'),
		});
		const deadlineAtMs = Date.parse(
			(run.storedItems()[0].json.error as { pause: { deadline_at: string } }).pause.deadline_at,
		);
		expect(jobIds).toHaveLength(100);
		// Every tenth job completes before Max Wait (its event comes), the others are still running at Max Wait.
		const endedEarly = jobIds.filter((_, index) => index % 10 === 0);
		await completeJobs(endedEarly);
		await clock.sleepUntil(deadlineAtMs);
		const readsBeforeDeadline = statusReads().length;
		const deadlineAnswer = (call: (typeof run.calls)[number]) =>
			call.kind === 'check' && call.receivedAtMs >= deadlineAtMs - 5_000;
		await until('a deadline check answered 503', () =>
			run.calls.some((call) => deadlineAnswer(call) && call.status === 503) ? true : undefined,
		);
		// A job the deadline check read still running completes before the check is done: its event tells.
		const endedAfterRead = jobIds[1];
		await env.admin.completeJob(endedAfterRead);

		await within(run.finished(), 300_000);
		expect(run.errors).toEqual([]);
		// Checks are recorded when answered; the one that resumes is answered after its downloads, so a check
		// arriving meanwhile (the watcher's next) is recorded before it and told the execution is already resuming.
		const deadlineChecks = run.calls.filter(deadlineAnswer);
		const resumedBy = deadlineChecks.filter((call) => call.resumed);
		expect(resumedBy).toHaveLength(1);
		expect(resumedBy[0].status).toBe(200);
		const resumedAtMs = resumedBy[0].receivedAtMs;
		for (const call of deadlineChecks.filter((check) => !check.resumed)) {
			const answer = [call.status, call.response];
			if (call.status === 503) {
				expect(answer).toEqual([503, { error: 'status_unavailable', pause_check: 'read_failed' }]);
				expect(call.receivedAtMs).toBeLessThanOrEqual(resumedAtMs);
			} else {
				expect(answer).toEqual([
					200,
					{ received: true, ignored: 'already resuming', pause_check: 'resuming' },
				]);
				expect(call.receivedAtMs).toBeGreaterThanOrEqual(resumedAtMs);
			}
		}
		const output = run.output();
		expect(output).toHaveLength(100);
		const completed = new Set([...endedEarly, endedAfterRead]);
		const jobs = new Map(
			(await env.admin.records(accountId)).jobs.map((job) => [job.job_id, job.status]),
		);
		for (const [index, item] of output.entries()) {
			const jobId = jobIds[index];
			expect(item.pairedItem).toEqual({ item: index });
			if (completed.has(jobId)) {
				expect([item.json.job_id, item.json.status]).toEqual([jobId, 'completed']);
				expect(Object.keys(item.binary ?? {})).toEqual(['srt']);
			} else {
				expect(Object.keys(item.json)).toEqual(['error']);
				expect(item.json.error).toMatchObject({
					code: 'max_wait_exceeded',
					job_id: jobId,
					status: jobs.get(jobId),
				});
			}
		}
		// Each job still running at Max Wait read once by the deadline check, each job whose end only its event told
		// read once for its output, and each event after Max Wait reads at most the first job still running.
		const eventsAfterDeadline = eventCalls(run).filter(
			(call) => call.receivedAtMs >= deadlineAtMs,
		).length;
		expect(statusReads().length - readsBeforeDeadline).toBeLessThanOrEqual(
			89 + completed.size + eventsAfterDeadline,
		);
		expect(artifactRequests()).toHaveLength(completed.size);
		await Promise.all(
			jobIds
				.filter((jobId) => !completed.has(jobId))
				.map(async (jobId) => await env.admin.releaseJob(jobId)),
		);
	}, 90_000);
});

describe("when no watcher is left: n8n's own timeout, Max Wait + 10 minutes", () => {
	it('passes the stored items on: each an error alone, max_wait_exceeded naming its job and saying why', async () => {
		const { credentials } = await freshAccount();
		const run = await pause({
			parameters: transcribe('pauseUntilWebhook', { options: { maxWaitSeconds: 60 } }),
			input: await mediaItems(FILES.slice(0, 2)),
			credentials,
		});
		expect(run.waitTill!.getTime()).toBeGreaterThan(Date.now() + 60_000 + 9 * 60_000);
		await run.timeout();
		const output = run.output();
		expect(output).toHaveLength(2);
		for (const [index, item] of output.entries()) {
			expect(Object.keys(item.json)).toEqual(['error']);
			expect(item.binary).toBeUndefined();
			expect(item.json.error).toMatchObject({
				code: 'max_wait_exceeded',
				job_id: expect.any(String),
				upload_id: expect.any(String),
				message: expect.stringMatching(/did not finish within the Max Wait of 60 s/),
				description: expect.stringMatching(
					/^n8n ended the wait 10 minutes after Max Wait without a last status check: every n8n process that knew this paused execution had restarted/,
				),
			});
			expect(item.pairedItem).toEqual({ item: index });
		}
		// Events that arrive later meet a finished execution.
		await env.admin.webhookDeliveries({ waitIdle: true });
		await clock.sleep(3000);
		expect(eventCalls(run).every((call) => call.status === 409 && !call.resumed)).toBe(true);
	});
});

describe("n8n's own timeout of a large batch: time for its collection, and its items say when", () => {
	it('30 items × 4 formats: 25 minutes after Max Wait (10 for a small batch), and each item says 25', async () => {
		const { run, jobIds } = await pauseHeld({
			parameters: transcribe('pauseUntilWebhook', {
				formats: ['srt', 'txt', 'pdf', 'docx'],
				options: { maxWaitSeconds: 60 },
			}),
			input: await wavItems(30, 'backstop'),
		});
		const deadlineAtMs = Date.parse(
			(run.storedItems()[0].json.error as { pause: { deadline_at: string } }).pause.deadline_at,
		);
		// 30 status reads and 120 downloads after Max Wait, at the lowest tier's 30 requests a minute, twice over.
		expect(run.waitTill!.getTime() - deadlineAtMs).toBe(25 * 60_000);
		await run.timeout();
		const output = run.output();
		expect(output).toHaveLength(30);
		for (const item of output) {
			expect(item.json.error).toMatchObject({
				code: 'max_wait_exceeded',
				description: expect.stringMatching(/^n8n ended the wait 25 minutes after Max Wait without/),
			});
		}
		await Promise.all(jobIds.map(async (jobId) => await env.admin.releaseJob(jobId)));
	});
});
