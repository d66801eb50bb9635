// Transcribe and Download, Wait Mode "Pause Until Webhook" (issues 10 and 17), in n8n-core's engine with n8n's own
// waiting-webhook steps (waiting-harness.ts) and the sandbox delivering real signed events to the resume URL; the
// node's watcher sends its signed checks to the same URL. The service retries a failed delivery after 3 s and 27 s
// here (timeScale 0.05).
import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { SandboxAdmin } from '../../sandbox/admin-client';
import { DEFAULT_RATE_LIMITS } from '../../sandbox/rate-limit';
import { startSandbox } from '../../sandbox/server';
import type { PublicTranscriptionWebhookEvent } from '../../src/api';
import { buildSignedDelivery } from '../../src/service';
import { makeWav, NOT_MEDIA } from '../support/fixtures/media';
import {
	ACTION_NODE,
	actionNode,
	binaryBytes,
	binaryItem,
	runWorkflow,
	type TestCredentials,
} from '../support/engine/harness';
import { wavItems } from '../support/engine/batch-runs';
import { useEngineSandbox } from '../support/engine/engine-sandbox';
import { itOnProjectN8nOnly } from '../support/engine/tier-profile';
import { actOnNewJobs } from '../support/sandbox/client';
import {
	PausedRun,
	type PausedRunOptions,
	type ResumeCall,
} from '../support/engine/waiting-harness';

const env = useEngineSandbox({
	jobSeconds: 2,
	allowLocalWebhooks: true,
	recordExchanges: true,
	timeScale: 0.05,
});
const runs: PausedRun[] = [];

afterEach(async () => {
	await Promise.all(runs.splice(0).map(async (run) => await run.close()));
});

async function freshAccount(mode: 'live' | 'test' = 'live') {
	const key = await env.admin.createKey({ mode, tier: 'platinum' });
	const signingSecret = key.signing_secret as string;
	const credentials: TestCredentials = { ...env.credentials(key.key), signingSecret };
	return { accountId: key.account_id, credentials, signingSecret };
}

const transcribe = (waitMode: 'poll' | 'pauseUntilWebhook', extra: INodeParameters = {}) => ({
	resource: 'transcription',
	operation: 'transcribeAndDownload',
	binaryPropertyName: 'data',
	formats: ['srt', 'txt'],
	waitMode,
	options: { pollIntervalSeconds: 0.2, maxPollIntervalSeconds: 0.5, maxWaitSeconds: 600 },
	...extra,
});

const FILES = ['interview.wav', 'meeting notes.wav', 'ראיון.wav'];
async function mediaItems(names = FILES): Promise<INodeExecutionData[]> {
	return await Promise.all(
		names.map(async (fileName, index) =>
			binaryItem({ data: makeWav({ seconds: 2 + index }), fileName, mimeType: 'audio/wav' }),
		),
	);
}

/** A recording, then a file the service cannot transcribe (its job fails). */
async function mediaAndNotMedia(): Promise<INodeExecutionData[]> {
	const notMedia = await binaryItem({
		data: NOT_MEDIA,
		fileName: 'notes.wav',
		mimeType: 'audio/wav',
	});
	return [...(await mediaItems([FILES[0]])), notMedia];
}

async function pause(options: Parameters<typeof PausedRun.start>[0]): Promise<PausedRun> {
	const run = await PausedRun.start(options);
	runs.push(run);
	return run;
}

/** GET /transcriptions/{id}: a status request (artifact downloads and lists are not). */
const statusRequests = () =>
	env.proxy.exchanges.filter(
		(exchange) => exchange.method === 'GET' && /\/transcriptions\/[^/?]+(\?|$)/.test(exchange.url),
	);
/** Status requests the service answered (200, or 304 for an unchanged job): not refused with 429. */
const statusReads = () =>
	statusRequests().filter((exchange) => exchange.status === 200 || exchange.status === 304);
/** GET /transcriptions/{id}/artifact[.ext]: one download. */
const artifactRequests = () =>
	env.proxy.exchanges.filter(
		(exchange) =>
			exchange.method === 'GET' && /\/transcriptions\/[^/?]+\/artifact/.test(exchange.url),
	);

/**
 * Holds every job of the account the moment it exists, so that none ends before the test lets it (with 2 s jobs, a
 * loaded machine could otherwise see one end before the pause). `stop()` resolves with the held jobs, oldest first.
 */
const holdJobsOf = (accountId: string) =>
	actOnNewJobs(env.admin, accountId, async (jobId) => await env.admin.holdJob(jobId));

/** Completes every job of the account the moment it exists: its event comes while the execution still runs. */
const completeJobsOf = (accountId: string) =>
	actOnNewJobs(env.admin, accountId, async (jobId) => await env.admin.completeJob(jobId));

/** A fresh account's run, paused with every job held from the moment it existed; the jobs, oldest first. */
async function pauseHeld(options: Omit<PausedRunOptions, 'credentials'>) {
	const { accountId, credentials } = await freshAccount();
	const holding = holdJobsOf(accountId);
	const run = await pause({ ...options, credentials });
	return { run, accountId, jobIds: await holding.stop() };
}

const completeJobs = async (jobIds: string[]) =>
	await Promise.all(jobIds.map(async (jobId) => await env.admin.completeJob(jobId)));

/** The account's jobs in the order they were created: item order, as items start one at a time. */
const jobIdsOf = async (accountId: string) =>
	(await env.admin.records(accountId)).jobs.map((job) => job.job_id);

const eventCalls = (run: PausedRun) => run.calls.filter((call) => call.kind === 'event');

/** A check answered by processor 1 while every job has ended, the last seconds ago: the resume is left to its event. */
function expectLeftToTheEvent(check: ResumeCall): void {
	expect([check.servedBy, check.status, check.response]).toEqual([
		1,
		200,
		{ received: true, settling_until: expect.any(String), pause_check: 'waiting' },
	]);
}

/** The three media items came out completed, each of their two artifacts downloaded once. */
function expectThreeCollectedOnce(run: PausedRun): void {
	expect(run.output().map((item) => item.json.status)).toEqual([
		'completed',
		'completed',
		'completed',
	]);
	expect(artifactRequests()).toHaveLength(3 * 2);
}

async function until<T>(
	what: string,
	probe: () => Promise<T | undefined> | T | undefined,
	ms = 30_000,
) {
	const deadline = Date.now() + ms;
	for (;;) {
		const value = await probe();
		if (value !== undefined) return value;
		if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
}

async function within<T>(promise: Promise<T>, ms = 30_000): Promise<T> {
	let timer: NodeJS.Timeout | undefined;
	const timeout = new Promise<never>((_, reject) => {
		timer = setTimeout(() => reject(new Error(`not within ${ms} ms`)), ms);
	});
	try {
		return await Promise.race([promise, timeout]);
	} finally {
		clearTimeout(timer);
	}
}

function signedEvent(secret: string, event: Partial<PublicTranscriptionWebhookEvent>) {
	const body: PublicTranscriptionWebhookEvent = {
		event: 'transcription.completed',
		event_id: `evt_${Math.random().toString(36).slice(2)}`,
		job_id: 'job_not_ours',
		status: 'completed',
		created_at: new Date().toISOString(),
		links: { self: 'https://api.example.com/j', artifact: 'https://api.example.com/j/artifact' },
		...event,
	} as PublicTranscriptionWebhookEvent;
	return buildSignedDelivery({ secret, timestamp: Math.floor(Date.now() / 1000), event: body });
}

async function post(url: string, signed: { body: string; headers: Record<string, string> }) {
	const answer = await fetch(url, {
		method: 'POST',
		headers: { ...signed.headers, 'Content-Type': 'application/json' },
		body: signed.body,
	});
	return { status: answer.status, body: (await answer.json()) as unknown };
}

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

describe("the checks are the node's own: they do not depend on the service's signing secret", () => {
	it('the signing secret rotated mid-pause, the credential updated and its previous secret cleared: the deadline check still resumes, with the transcript of the job that completed', async () => {
		const maxWaitSeconds = 12;
		const { run, accountId, jobIds } = await pauseHeld({
			parameters: transcribe('pauseUntilWebhook', { options: { maxWaitSeconds } }),
			input: await mediaItems(FILES.slice(0, 2)),
		});
		await env.admin.completeJob(jobIds[0]);
		await until('the first event answered', () =>
			eventCalls(run).find((call) => call.status === 200),
		);
		// Rotation: the service signs with the new secret at once; the user updates the credential and, as its help
		// says once rotation is done, clears Previous Signing Secret.
		const rotated = `whsec_rotated_${Date.now()}`;
		await env.admin.updateAccount(accountId, { signing_secret: rotated });
		run.updateCredentials({ signingSecret: rotated, previousSigningSecret: '' });

		await within(run.finished(), 60_000);
		expect(run.errors).toEqual([]);
		const checks = run.calls.filter((call) => call.kind === 'check');
		expect(checks.filter((call) => call.status === 401)).toEqual([]);
		expect(run.calls.find((call) => call.resumed)).toMatchObject({ kind: 'check', status: 200 });
		const [completed, running] = run.output();
		expect([completed.json.job_id, completed.json.status]).toEqual([jobIds[0], 'completed']);
		expect(Object.keys(completed.binary ?? {}).sort()).toEqual(['srt', 'txt']);
		expect(running.json.error).toMatchObject({ code: 'max_wait_exceeded', job_id: jobIds[1] });
		await env.admin.releaseJob(jobIds[1]);
	}, 90_000);
});

describe('a check is answered once: a captured one cannot be replayed', () => {
	const REPLAYED = { status: 401, body: { error: 'check_replayed' } };
	const firstCheckAnswered = (run: PausedRun) =>
		until('the first check answered', () =>
			run.calls.find((call) => call.kind === 'check' && call.status === 200),
		);

	it('the same check posted 10 times more: each refused 401 check_replayed, not one status read', async () => {
		const { run, jobIds } = await pauseHeld({
			parameters: transcribe('pauseUntilWebhook'),
			input: await mediaItems([FILES[0]]),
		});
		const captured = await firstCheckAnswered(run);
		expect(captured.response).toMatchObject({ pause_check: 'waiting' });
		const readsBefore = statusRequests().length;
		const replays = [];
		for (let replay = 0; replay < 10; replay++)
			replays.push(await post(run.resumeUrl, captured.sent!));
		expect(replays).toEqual(Array.from({ length: 10 }, () => REPLAYED));
		expect(statusRequests()).toHaveLength(readsBefore);

		await env.admin.completeJob(jobIds[0]);
		await within(run.finished());
		expect(run.output()[0].json.status).toBe('completed');
	});

	it('across processes, as far as n8n lets the node know: answered once more by each other process, never again', async () => {
		const { run, jobIds } = await pauseHeld({
			parameters: transcribe('pauseUntilWebhook'),
			input: await mediaItems([FILES[0]]),
			processors: 2,
		});
		// The node's own checks reach processor 0; the replays then go to processor 1, which has not seen the check.
		let checksTo = 0;
		run.route = (_callIndex, kind) => (kind === 'check' ? checksTo : 0);
		const captured = await firstCheckAnswered(run);
		expect(captured.servedBy).toBe(0);
		checksTo = 1;
		const onceMore = await post(run.resumeUrl, captured.sent!);
		expect(onceMore).toEqual({
			status: 200,
			body: { received: true, waiting_for: 1, pause_check: 'waiting' },
		});
		expect(await post(run.resumeUrl, captured.sent!)).toEqual(REPLAYED);
		checksTo = 0;
		expect(await post(run.resumeUrl, captured.sent!)).toEqual(REPLAYED);

		await env.admin.completeJob(jobIds[0]);
		await within(run.finished());
		expect(run.output()[0].json.status).toBe('completed');
	});
});

describe('the deadline check of a large batch under the rate limit', () => {
	afterEach(async () => {
		await env.admin.setRateLimits(DEFAULT_RATE_LIMITS);
	});

	itOnProjectN8nOnly(
		'100 items, 89 still running, 30 status reads per 20 s: it reads each running job once over its retries, then resumes',
		async () => {
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
			await until('Max Wait', () => (Date.now() >= deadlineAtMs ? true : undefined), 60_000);
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
					expect(answer).toEqual([
						503,
						{ error: 'status_unavailable', pause_check: 'read_failed' },
					]);
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
		},
		420_000,
	);
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
		await new Promise((resolve) => setTimeout(resolve, 3000));
		expect(eventCalls(run).every((call) => call.status === 409 && !call.resumed)).toBe(true);
	});
});

describe("n8n's own timeout of a large batch: time for its collection, and its items say when", () => {
	itOnProjectN8nOnly(
		'30 items × 4 formats: 25 minutes after Max Wait (10 for a small batch), and each item says 25',
		async () => {
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
					description: expect.stringMatching(
						/^n8n ended the wait 25 minutes after Max Wait without/,
					),
				});
			}
			await Promise.all(jobIds.map(async (jobId) => await env.admin.releaseJob(jobId)));
		},
	);
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

describe('another process receives the events (restart, queue-mode webhook processor)', () => {
	it('reads the jobs it has heard nothing of, older first, and resumes once', async () => {
		const { credentials } = await freshAccount();
		const run = await pause({
			parameters: transcribe('pauseUntilWebhook'),
			input: await mediaItems(FILES.slice(0, 2)),
			credentials,
		});
		run.otherProcess = true;
		await within(run.finished());
		expect(run.errors).toEqual([]);
		expect(run.calls.filter((call) => call.resumed)).toHaveLength(1);
		expect(run.output().map((item) => item.json.status)).toEqual(['completed', 'completed']);
		expect(statusRequests().length).toBeLessThanOrEqual(2 * 2);
	});

	it('answers 503, not 200, while status reads fail, and resumes with both transcripts once they work again', async () => {
		const { run, jobIds } = await pauseHeld({
			parameters: transcribe('pauseUntilWebhook'),
			input: await mediaItems(FILES.slice(0, 2)),
		});
		run.otherProcess = true;
		await env.admin.setFaults({ rules: [{ route: 'getTranscription', kind: '503' }] });
		await completeJobs(jobIds);
		// Each event reaches a process that knows only that event's job: it must read the other one, and cannot.
		const refused = await until('an event of each job answered 503', async () => {
			const deliveries = (await env.admin.webhookDeliveries()).filter(
				(delivery) => delivery.status_code === 503,
			);
			const each = jobIds.map((id) => deliveries.find((delivery) => delivery.body.includes(id)));
			return each.every(Boolean) ? each : undefined;
		});
		expect(refused.map((delivery) => delivery!.outcome)).toEqual([
			'retry_scheduled',
			'retry_scheduled',
		]);
		// Not one 200 while the reads fail.
		const whileFailing = eventCalls(run);
		expect(whileFailing.length).toBeGreaterThanOrEqual(2);
		for (const call of whileFailing) {
			expect([call.status, call.response]).toEqual([503, { error: 'status_unavailable' }]);
		}
		expect(run.status).toBe('waiting');
		await env.admin.clearFaults();

		// The service delivers them again (3 s, then 27 s later), or a check comes first (5 s, 20 s after the pause).
		await within(run.finished(), 60_000);
		expect(run.errors).toEqual([]);
		expect(run.calls.filter((call) => call.resumed)).toHaveLength(1);
		expect(run.output().map((item) => [item.json.job_id, item.json.status])).toEqual([
			[jobIds[0], 'completed'],
			[jobIds[1], 'completed'],
		]);
	}, 90_000);
});

describe('two webhook processors (queue mode): one resume, one download per artifact', () => {
	it('events that arrive together at both processors resume the execution once', async () => {
		const { run, jobIds } = await pauseHeld({
			parameters: transcribe('pauseUntilWebhook'),
			input: await mediaItems([...FILES, 'fourth.wav']),
			processors: 2,
		});
		await completeJobs(jobIds);

		await within(run.finished());
		await env.admin.webhookDeliveries({ waitIdle: true });
		expect(run.errors).toEqual([]);
		expect(run.calls.filter((call) => call.resumed)).toHaveLength(1);
		const events = eventCalls(run);
		expect(events).toHaveLength(4);
		expect(new Set(events.map((call) => call.servedBy))).toEqual(new Set([0, 1]));
		expect(events.every((call) => call.status === 200)).toBe(true);
		expect(run.output().map((item) => item.json.status)).toEqual([
			'completed',
			'completed',
			'completed',
			'completed',
		]);
		// 4 items × SRT and TXT, each downloaded once.
		expect(artifactRequests()).toHaveLength(4 * 2);
		expect(statusRequests().length).toBeLessThanOrEqual(2 * 4);
	});

	it("a check that reaches the other processor while the resume's downloads run starts no second collection", async () => {
		const { run, jobIds } = await pauseHeld({
			parameters: transcribe('pauseUntilWebhook'),
			input: await mediaItems(),
			processors: 2,
		});
		// The events reach processor 0, the node's own checks processor 1 (a router's turns can send them anywhere).
		run.route = (_callIndex, kind) => (kind === 'event' ? 0 : 1);
		// Every download takes 6 s: the collection on processor 0 still runs when the first check comes, 5 s after the
		// pause.
		await env.admin.setFaults({
			rules: [{ route: 'getTranscriptionArtifactByExtension', kind: 'latency', latency_ms: 6000 }],
		});
		await completeJobs(jobIds);

		await within(run.finished());
		const check = await until('the first check answered', () =>
			run.calls.find((call) => call.kind === 'check'),
		);
		expect(run.calls.filter((call) => call.resumed).map((call) => call.kind)).toEqual(['event']);
		expect(run.calls.filter((call) => call.secondResume)).toEqual([]);
		// Every job has ended, the last one seconds ago: the check leaves the resume to its event for a while.
		expectLeftToTheEvent(check);
		expectThreeCollectedOnce(run);
	}, 60_000);

	itOnProjectN8nOnly(
		"the deadline check that reaches the other processor while the last event's resume downloads starts no second collection",
		async () => {
			const { run, jobIds } = await pauseHeld({
				parameters: transcribe('pauseUntilWebhook', { options: { maxWaitSeconds: 8 } }),
				input: await mediaItems(),
				processors: 2,
			});
			run.route = (_callIndex, kind) => (kind === 'event' ? 0 : 1);
			// Every download takes 15 s: the last event's collection on processor 0 still runs at Max Wait, 8 s after the
			// pause, when the deadline check (the first check: none comes within 5 s of Max Wait) reaches processor 1.
			await env.admin.setFaults({
				rules: [
					{ route: 'getTranscriptionArtifactByExtension', kind: 'latency', latency_ms: 15_000 },
				],
			});
			await completeJobs(jobIds);

			await within(run.finished());
			// The pauser's watcher and processor 0's (it answered events without resuming) both send it at Max Wait.
			const checks = await until('both deadline checks answered', () => {
				const answered = run.calls.filter((call) => call.kind === 'check');
				return answered.length >= 2 ? answered : undefined;
			});
			expect(run.calls.filter((call) => call.resumed).map((call) => call.kind)).toEqual(['event']);
			expect(run.calls.filter((call) => call.secondResume)).toEqual([]);
			expect(run.errors).toEqual([]);
			// Every job has ended, the last one seconds ago: the deadline check leaves the resume to its event for a while.
			for (const check of checks) expectLeftToTheEvent(check);
			expectThreeCollectedOnce(run);
		},
		60_000,
	);
});

/** Until every job's event was delivered with a 200 (n8n's own "starting up" answer, while run.startingUp is set). */
async function eventsAnsweredByN8nStartingUp(jobIds: string[]): Promise<void> {
	await until('every event answered by n8n itself', async () => {
		const answered = (await env.admin.webhookDeliveries()).filter(
			(delivery) => delivery.status_code === 200 && jobIds.some((id) => delivery.body.includes(id)),
		);
		return answered.length >= jobIds.length ? true : undefined;
	});
}

describe('the watcher: a completion event that never reaches the node', () => {
	itOnProjectN8nOnly(
		"n8n answered the batch's last event with its own 200 while starting up: the watcher's check resumes, well before Max Wait",
		async () => {
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
		},
		90_000,
	);

	itOnProjectN8nOnly(
		"keeps checking through a redeploy — n8n starting up, the node unable to read its credential, a load balancer's 503 — and resumes once n8n is back",
		async () => {
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
		},
		300_000,
	);

	itOnProjectN8nOnly(
		'every job ended before the execution was saved waiting (n8n answered 409, which the service does not repeat): the first check resumes',
		async () => {
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
		},
		60_000,
	);
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
		await until(
			'late in the wait',
			() => (Date.now() >= pausedAtMs + LATE_MS ? true : undefined),
			90_000,
		);
		return { run, accountId, jobIds };
	}

	/** When the job ended, by the service's records. */
	const endedAtMs = async (accountId: string, jobId: string) =>
		Date.parse(
			(await env.admin.records(accountId)).jobs.find((job) => job.job_id === jobId)!.updated_at,
		);

	itOnProjectN8nOnly(
		'the last job is cancelled (the service sends no event for it): a check resumes, the item says job_cancelled',
		async () => {
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
		},
		240_000,
	);

	itOnProjectN8nOnly(
		"the last job's event is lost (n8n answered it with its own 200 while starting up): a check resumes",
		async () => {
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
		},
		240_000,
	);
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
