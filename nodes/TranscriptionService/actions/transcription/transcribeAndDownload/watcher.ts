// The safety net of a pause: a loop in an n8n process that sends the execution's resume URL a signed check now and
// then, so a job whose completion event was lost (n8n down for all five deliveries, answered by n8n's "starting up",
// refused with 409 before the execution was saved as waiting) still resumes it, and once at Max Wait the deadline
// check, which resumes it whatever the jobs say. The process that paused the execution starts one right after the
// pause; a process that answered a request for it without resuming starts one too, in case the first one restarted.
//
// It stops when a check resumed the execution, when n8n answers that the execution is not waiting (404/409 from n8n
// itself, not from this node), after MAX_UNREACHABLE failures in a row to reach the URL (one warning in the log), and
// after the deadline check. n8n's own timeout (Max Wait + BACKSTOP_MS) ends the wait only when no watcher is left.
import type { IHttpRequestOptions, Logger } from 'n8n-workflow';

import { buildPauseCheck } from '../../../../../src/webhooks';
import { abortableSleep } from '../../../../shared/abortable-sleep';
import { forgetLedger, isKept, type Ledger } from './ledger';

/** The pauser's first check: late enough for n8n to have saved the execution as waiting. */
export const FIRST_CHECK_MS = 5_000;
/** A process that only answered a request checks later: the events it expects usually come first. */
export const LATER_FIRST_CHECK_MS = 60_000;
const GROWTH = 3;
export const MAX_CHECK_INTERVAL_MS = 30 * 60 * 1000;
/** n8n's own timeout comes this long after Max Wait: time for the deadline check and its collection. */
export const BACKSTOP_MS = 10 * 60 * 1000;
/** A check this close to Max Wait is taken as the deadline check (processes' clocks differ a little). */
export const DEADLINE_SKEW_MS = 5_000;
const DEADLINE_RETRY_MS = 30_000;
const MAX_UNREACHABLE = 3;
/** The node reads every pending job before answering a deadline check. */
const CHECK_TIMEOUT_MS = 120_000;
/** A timer waits at most 2^31 − 1 ms (about 24.8 days); a longer wait sleeps in parts. */
const MAX_SLEEP_MS = 24 * 60 * 60 * 1000;

/** The field by which a check's answer says it comes from this node (and not from n8n). */
export const CHECK_ANSWER_KEY = 'pause_check';

export type CheckAnswer = 'resumed' | 'resuming' | 'waiting' | 'read_failed' | 'not_paused';

export type CheckOutcome = CheckAnswer | 'not_waiting' | 'unreachable';

/** What an answer to a check says: this node's own answer, n8n's "not waiting" (404/409), or no usable answer. */
export function checkOutcome(status: number | undefined, body: unknown): CheckOutcome {
	const answer = (body as Record<string, unknown> | undefined)?.[CHECK_ANSWER_KEY];
	if (typeof answer === 'string' && CHECK_ANSWERS.has(answer)) return answer as CheckAnswer;
	if (status === 404 || status === 409) return 'not_waiting';
	return 'unreachable';
}

const CHECK_ANSWERS: ReadonlySet<string> = new Set<CheckAnswer>([
	'resumed',
	'resuming',
	'waiting',
	'read_failed',
	'not_paused',
]);

/**
 * When to check (ms since the epoch): first after `firstInMs`, then at intervals growing ×3 up to
 * MAX_CHECK_INTERVAL_MS, none within DEADLINE_SKEW_MS before the deadline; then the deadline check, and its retries
 * until shortly before n8n's own timeout.
 */
export function checkTimes(args: {
	startMs: number;
	firstInMs: number;
	deadlineAtMs: number;
}): number[] {
	const times: number[] = [];
	let interval = args.firstInMs;
	for (let at = args.startMs + interval; at < args.deadlineAtMs - DEADLINE_SKEW_MS;) {
		times.push(at);
		interval = Math.min(interval * GROWTH, MAX_CHECK_INTERVAL_MS);
		at += interval;
	}
	const lastRetryAt = args.deadlineAtMs + BACKSTOP_MS - 2 * DEADLINE_RETRY_MS;
	for (
		let at = Math.max(args.deadlineAtMs, args.startMs);
		at <= lastRetryAt;
		at += DEADLINE_RETRY_MS
	) {
		times.push(at);
	}
	return times;
}

export interface WatcherSetup {
	ledger: Ledger;
	resumeUrl: string;
	deadlineAtMs: number;
	firstInMs: number;
	/** This process already saw the execution waiting (a request reached it): n8n's 409 then means "resumed". */
	seenWaiting: boolean;
	signingSecret: string;
	httpRequest: (options: IHttpRequestOptions) => Promise<unknown>;
	logger: Logger;
}

/**
 * Starts the watcher of this execution in this process, unless it has one. Only a kept ledger gets one, so there are
 * never more watchers than MAX_LEDGERS, and dropping a ledger stops its watcher.
 */
export function startWatcher(setup: WatcherSetup): void {
	const { ledger } = setup;
	if (ledger.watcher || !isKept(ledger)) return;
	const abort = new AbortController();
	ledger.watcher = abort;
	void watch(setup, abort.signal)
		.then((over) => {
			// Nothing left to know of an execution that no longer waits, unless this process is collecting its results.
			if (over && !ledger.resuming && isKept(ledger)) forgetLedger(ledger.executionId);
		})
		.catch(() => undefined)
		.finally(() => {
			if (ledger.watcher === abort) ledger.watcher = undefined;
		});
}

/** Resolves true when the execution no longer waits (resumed, or n8n says so). */
async function watch(setup: WatcherSetup, signal: AbortSignal): Promise<boolean> {
	const { ledger, logger } = setup;
	let seenWaiting = setup.seenWaiting;
	let unreachable = 0;
	let notWaiting = 0;
	const times = checkTimes({
		startMs: Date.now(),
		firstInMs: setup.firstInMs,
		deadlineAtMs: setup.deadlineAtMs,
	});
	for (const at of times) {
		while (Date.now() < at) await abortableSleep(Math.min(at - Date.now(), MAX_SLEEP_MS), signal);
		if (signal.aborted) return false;
		const { outcome, detail } = await sendCheck(setup);
		if (outcome === 'resumed' || outcome === 'not_paused') return true;
		if (outcome === 'not_waiting') {
			// Before the execution was ever seen waiting, n8n's 409 may only mean it is still being saved.
			if (seenWaiting || ++notWaiting >= MAX_UNREACHABLE) return true;
			continue;
		}
		if (outcome === 'unreachable') {
			if (++unreachable < MAX_UNREACHABLE) continue;
			logger.warn(
				`Transcription Service: the paused execution ${ledger.executionId} could not be checked at its resume URL ${setup.resumeUrl} (${detail}); it resumes on its jobs' completion events, or when n8n ends the wait ${BACKSTOP_MS / 60_000} minutes after Max Wait`,
			);
			return false;
		}
		seenWaiting = true;
		unreachable = 0;
	}
	return false;
}

async function sendCheck(setup: WatcherSetup): Promise<{ outcome: CheckOutcome; detail: string }> {
	const check = buildPauseCheck({
		secret: setup.signingSecret,
		executionId: setup.ledger.executionId,
		timestamp: Math.floor(Date.now() / 1000),
	});
	try {
		const response = (await setup.httpRequest({
			method: 'POST',
			url: setup.resumeUrl,
			headers: check.headers,
			body: check.body,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			disableFollowRedirect: true,
			timeout: CHECK_TIMEOUT_MS,
		})) as { statusCode?: number; body?: unknown };
		const outcome = checkOutcome(response.statusCode, parsedBody(response.body));
		return { outcome, detail: `HTTP ${response.statusCode}` };
	} catch (error) {
		return { outcome: 'unreachable', detail: (error as Error).message };
	}
}

function parsedBody(body: unknown): unknown {
	if (typeof body !== 'string' && !Buffer.isBuffer(body)) return body;
	try {
		return JSON.parse(body.toString());
	} catch {
		return undefined;
	}
}
