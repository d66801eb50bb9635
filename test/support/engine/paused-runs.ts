// Transcribe and Download paused until its webhook, in the engine tier (engine/pause-until-webhook*.test.ts): the
// node's parameters and media items, runs paused on the file's sandbox (waiting-harness.ts) and closed after each
// test, what the recording proxy saw of them, and waiting for what a run does next.
import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

import type { PublicTranscriptionWebhookEvent } from '../../../src/api';
import { buildSignedDelivery } from '../../../src/service';
import { controlledClock, type ControlledClock } from '../clock/controlled-clock';
import { makeWav, NOT_MEDIA } from '../fixtures/media';
import { actOnNewJobs } from '../sandbox/client';
import { freshAccounts } from './accounts';
import type { EngineSandbox, EngineSandboxOptions } from './engine-sandbox';
import { binaryItem } from './harness';
import { PausedRun, type PausedRunOptions, type ResumeCall } from './waiting-harness';

/** Transcribe and Download of the item's `data` into SRT and TXT, polling fast, Max Wait 10 minutes. */
export const transcribe = (
	waitMode: 'poll' | 'pauseUntilWebhook',
	extra: INodeParameters = {},
) => ({
	resource: 'transcription',
	operation: 'transcribeAndDownload',
	binaryPropertyName: 'data',
	formats: ['srt', 'txt'],
	waitMode,
	options: { pollIntervalSeconds: 0.2, maxPollIntervalSeconds: 0.5, maxWaitSeconds: 600 },
	...extra,
});

export const FILES = ['interview.wav', 'meeting notes.wav', 'ראיון.wav'];
export async function mediaItems(names = FILES): Promise<INodeExecutionData[]> {
	return await Promise.all(
		names.map(async (fileName, index) =>
			binaryItem({ data: makeWav({ seconds: 2 + index }), fileName, mimeType: 'audio/wav' }),
		),
	);
}

/** A recording, then a file the service cannot transcribe (its job fails). */
export async function mediaAndNotMedia(): Promise<INodeExecutionData[]> {
	const notMedia = await binaryItem({
		data: NOT_MEDIA,
		fileName: 'notes.wav',
		mimeType: 'audio/wav',
	});
	return [...(await mediaItems([FILES[0]])), notMedia];
}

export const eventCalls = (run: PausedRun) => run.calls.filter((call) => call.kind === 'event');

/** A check answered by processor 1 while every job has ended, the last seconds ago: the resume is left to its event. */
export function expectLeftToTheEvent(check: ResumeCall): void {
	expect([check.servedBy, check.status, check.response]).toEqual([
		1,
		200,
		{ received: true, settling_until: expect.any(String), pause_check: 'waiting' },
	]);
}

/** The file's controlled clock: every paused-run file has one (useControlledClock), or its waits would be real. */
function clock(): ControlledClock {
	const installed = controlledClock();
	if (!installed)
		throw new Error("Paused runs need the file's controlled clock: call useControlledClock()");
	return installed;
}

/** Resolves with `probe`'s first value other than undefined; fails after `ms` on the file's controlled clock. */
export async function until<T>(
	what: string,
	probe: () => Promise<T | undefined> | T | undefined,
	ms = 30_000,
): Promise<T> {
	return await clock().until(what, probe, ms);
}

/** `promise`, or a failure after `ms` on the file's controlled clock. */
export async function within<T>(promise: Promise<T>, ms = 30_000): Promise<T> {
	return await clock().within(promise, ms);
}

export function signedEvent(secret: string, event: Partial<PublicTranscriptionWebhookEvent>) {
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

export async function post(url: string, signed: { body: string; headers: Record<string, string> }) {
	const answer = await fetch(url, {
		method: 'POST',
		headers: { ...signed.headers, 'Content-Type': 'application/json' },
		body: signed.body,
	});
	return { status: answer.status, body: (await answer.json()) as unknown };
}

/**
 * The sandbox every paused-run file starts, with its controlled clock (`{ ...PAUSED_RUNS_SANDBOX, clock }`): resume URLs
 * on loopback, the proxy's record (for `statusRequests`), jobs of 2 s, and the service's retries at 0.05 × their
 * schedule (3 s, 27 s, 2.5 min, 6 min).
 */
export const PAUSED_RUNS_SANDBOX: EngineSandboxOptions = {
	jobSeconds: 2,
	allowLocalWebhooks: true,
	recordExchanges: true,
	timeScale: 0.05,
};

/**
 * Paused runs on `env`'s sandbox, each closed after its test, and what `env`'s recording proxy saw of them. Call it
 * after `useEngineSandbox`, at the top of the file.
 */
export function usePausedRuns(env: EngineSandbox) {
	const runs: PausedRun[] = [];
	afterEach(async () => {
		await Promise.all(runs.splice(0).map(async (run) => await run.close()));
	});
	const accounts = freshAccounts(env);

	/** A fresh platinum account (a live key unless told) with its signing secret. */
	const freshAccount = async (mode: 'live' | 'test' = 'live') => await accounts(mode);

	async function pause(options: Parameters<typeof PausedRun.start>[0]): Promise<PausedRun> {
		const run = await PausedRun.start(options);
		runs.push(run);
		return run;
	}

	/** GET /transcriptions/{id}: a status request (artifact downloads and lists are not). */
	const statusRequests = () =>
		env.proxy.exchanges.filter(
			(exchange) =>
				exchange.method === 'GET' && /\/transcriptions\/[^/?]+(\?|$)/.test(exchange.url),
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
	 * Holds every job of the account the moment it exists, so that none ends before the test lets it (with 2 s jobs,
	 * a loaded machine could otherwise see one end before the pause). `stop()` resolves with the held jobs, oldest first.
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

	/** The three media items came out completed, each of their two artifacts downloaded once. */
	function expectThreeCollectedOnce(run: PausedRun): void {
		expect(run.output().map((item) => item.json.status)).toEqual([
			'completed',
			'completed',
			'completed',
		]);
		expect(artifactRequests()).toHaveLength(3 * 2);
	}

	/** Until every job's event was delivered with a 200 (n8n's own "starting up" answer, while run.startingUp is set). */
	async function eventsAnsweredByN8nStartingUp(jobIds: string[]): Promise<void> {
		await until('every event answered by n8n itself', async () => {
			const answered = (await env.admin.webhookDeliveries()).filter(
				(delivery) =>
					delivery.status_code === 200 && jobIds.some((id) => delivery.body.includes(id)),
			);
			return answered.length >= jobIds.length ? true : undefined;
		});
	}

	return {
		freshAccount,
		pause,
		statusRequests,
		statusReads,
		artifactRequests,
		holdJobsOf,
		completeJobsOf,
		pauseHeld,
		completeJobs,
		jobIdsOf,
		expectThreeCollectedOnce,
		eventsAnsweredByN8nStartingUp,
	};
}
