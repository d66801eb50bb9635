// The safety net of a pause: a loop in an n8n process that sends the execution's resume URL a check, signed with the
// pause's own key, at most MAX_CHECK_INTERVAL_MS apart (timing.ts), so a batch resumes within RESUME_WITHIN_MS of its
// last job's end even when that job's event was lost (n8n down for all five deliveries, answered by n8n's "starting up", refused with 409
// before the execution was saved as waiting) or never sent (a cancelled job); and once at Max Wait the deadline check,
// which resumes it whatever the jobs say. The process that paused the execution starts one right after the
// pause; a process that answered a request for it without resuming starts one too, in case the first one restarted.
//
// It stops only on a final answer: a check resumed the execution, the node says the execution is not its pause, or
// n8n answers that the execution is not waiting (404/409 from n8n itself, not from this node) once it was seen
// waiting. A check that gets no answer from this node (a proxy's 502/503/504, n8n's "starting up", the node's own
// failure) is tried again soon, backing off, until the schedule ends (one warning in the log). n8n's own timeout
// (Max Wait + the backstop) ends the wait only when no watcher is left.
import { randomBytes } from 'crypto';
import type { IHttpRequestOptions, Logger } from 'n8n-workflow';

import {
	buildPauseCheck,
	pauseCheckAnswerOf,
	type PauseCheckAnswer,
} from '../../../../../src/webhooks';
import { abortableSleep } from '../../../../shared/abortable-sleep';
import { forgetLedger, isKept, type Ledger } from './ledger';
import type { PauseRecord } from './pause-record';
import {
	CHECK_TIMEOUT_MS,
	checkTimes,
	MAX_SLEEP_MS,
	pauseTimes,
	READ_FAILED_RECHECK_MS,
	RETRY_FIRST_MS,
	RETRY_MAX_MS,
	SAVED_WITHIN_MS,
	SETTLE_RECHECK_MS,
	WARN_AFTER_UNANSWERED,
	WATCHER_ROLES,
	type WatcherRole,
} from './timing';

export type CheckOutcome = PauseCheckAnswer | 'not_waiting' | 'unreachable';

/** What an answer to a check says: this node's own answer, n8n's "not waiting" (404/409), or no usable answer. */
export function checkOutcome(status: number | undefined, body: unknown): CheckOutcome {
	const answer = pauseCheckAnswerOf(body);
	if (answer !== undefined) return answer;
	if (status === 404 || status === 409) return 'not_waiting';
	return 'unreachable';
}

/**
 * When an answer asks for the next check sooner than the schedule would come: a check that left a recent end to its
 * event (`settling_until`) checks again just after that; one whose reads failed, after READ_FAILED_RECHECK_MS.
 */
export function recheckAtMs(
	outcome: CheckOutcome,
	body: unknown,
	nowMs: number,
): number | undefined {
	if (outcome === 'read_failed') return nowMs + READ_FAILED_RECHECK_MS;
	if (outcome !== 'waiting') return undefined;
	const until = Date.parse(String((body as Record<string, unknown> | undefined)?.settling_until));
	return Number.isNaN(until) ? undefined : until + SETTLE_RECHECK_MS;
}

export interface WatcherSetup {
	ledger: Ledger;
	resumeUrl: string;
	deadlineAtMs: number;
	/** The deadline check's last try (deadlineTimings). */
	lastTryAtMs: number;
	/** Whose watcher this is: the process that paused the execution, or one that answered a request for it. */
	role: WatcherRole;
	firstInMs: number;
	/** This process already saw the execution waiting (a request reached it): n8n's 409 then means "resumed". */
	seenWaiting: boolean;
	/** The pause's key (pause-record.ts), which signs its checks. */
	checkKey: string;
	httpRequest: (options: IHttpRequestOptions) => Promise<unknown>;
	logger: Logger;
}

/**
 * Starts this process's watcher of a pause (unless it has one), in its role: the process that paused the execution, or
 * one that answered a request for it without resuming. `httpRequest` is n8n-core's helper alone, not the context: the
 * watcher outlives the request and must not keep its items alive.
 */
export function watchPause(args: {
	ledger: Ledger;
	records: readonly PauseRecord[];
	role: WatcherRole;
	httpRequest: WatcherSetup['httpRequest'];
	logger: Logger;
}): void {
	const { deadlineAtMs, lastTryAtMs } = pauseTimes(args.records);
	startWatcher({
		ledger: args.ledger,
		resumeUrl: args.records[0].resume_url,
		deadlineAtMs,
		lastTryAtMs,
		role: args.role,
		...WATCHER_ROLES[args.role],
		checkKey: args.records[0].check_key,
		httpRequest: args.httpRequest,
		logger: args.logger,
	});
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

/** What a watcher knows between its checks. */
export interface WatchState {
	startedAtMs: number;
	/** n8n ran this node for one of this process's requests: its "not waiting" is then final. */
	seenWaiting: boolean;
	/** Checks in a row that this node did not answer (or answered with its own failure). */
	unanswered: number;
	warned: boolean;
}

/** Stop (`over`: the execution no longer waits; else the schedule ended), or check at `atMs`. */
export type WatchStep =
	{ action: 'stop'; over: boolean } | { action: 'check'; atMs: number; warn: boolean };

/**
 * After a check: stop, or when to check next (`times`: the schedule, checkTimes; `soonerAtMs`: the answer's own
 * time to check again, recheckAtMs).
 */
export function afterCheck(
	times: readonly number[],
	state: WatchState,
	outcome: CheckOutcome,
	nowMs: number,
	soonerAtMs?: number,
): WatchStep {
	if (outcome === 'resumed' || outcome === 'not_paused') return { action: 'stop', over: true };
	if (outcome === 'not_waiting') {
		// Before the execution was ever seen waiting, n8n's 409 may only mean it is still being saved.
		if (state.seenWaiting || nowMs - state.startedAtMs >= SAVED_WITHIN_MS) {
			return { action: 'stop', over: true };
		}
	} else if (outcome !== 'unreachable') {
		state.seenWaiting = true;
	}
	const scheduledAtMs = times.find((atMs) => atMs > nowMs);
	if (outcome !== 'unreachable' && outcome !== 'failed') {
		state.unanswered = 0;
		if (scheduledAtMs === undefined) return { action: 'stop', over: false };
		return {
			action: 'check',
			atMs: Math.min(scheduledAtMs, soonerAtMs ?? scheduledAtMs),
			warn: false,
		};
	}
	state.unanswered++;
	const retryAtMs = nowMs + Math.min(RETRY_FIRST_MS * 2 ** (state.unanswered - 1), RETRY_MAX_MS);
	const lastAtMs = times.at(-1) ?? nowMs;
	if (scheduledAtMs === undefined && retryAtMs > lastAtMs) return { action: 'stop', over: false };
	const warn = !state.warned && state.unanswered >= WARN_AFTER_UNANSWERED;
	if (warn) state.warned = true;
	return { action: 'check', atMs: Math.min(retryAtMs, scheduledAtMs ?? retryAtMs), warn };
}

/** Resolves true when the execution no longer waits (resumed, or n8n says so). */
async function watch(setup: WatcherSetup, signal: AbortSignal): Promise<boolean> {
	const { ledger, logger } = setup;
	const startedAtMs = Date.now();
	const times = checkTimes({
		startMs: startedAtMs,
		firstInMs: setup.firstInMs,
		deadlineAtMs: setup.deadlineAtMs,
		lastTryAtMs: setup.lastTryAtMs,
	});
	const state: WatchState = {
		startedAtMs,
		seenWaiting: setup.seenWaiting,
		unanswered: 0,
		warned: false,
	};
	let atMs = times[0];
	while (atMs !== undefined) {
		while (Date.now() < atMs)
			await abortableSleep(Math.min(atMs - Date.now(), MAX_SLEEP_MS), signal);
		if (signal.aborted) return false;
		const { outcome, detail, soonerAtMs } = await sendCheck(setup);
		const step = afterCheck(times, state, outcome, Date.now(), soonerAtMs);
		if (step.action === 'stop') return step.over;
		if (step.warn) {
			logger.warn(
				`Transcription Service: the paused execution ${ledger.executionId} could not be checked at its resume URL ${setup.resumeUrl} (${detail}); it keeps trying until ${new Date(times.at(-1) as number).toISOString()}, and resumes on its jobs' completion events meanwhile`,
			);
		}
		atMs = step.atMs;
	}
	return false;
}

async function sendCheck(
	setup: WatcherSetup,
): Promise<{ outcome: CheckOutcome; detail: string; soonerAtMs?: number }> {
	const check = buildPauseCheck({
		key: setup.checkKey,
		executionId: setup.ledger.executionId,
		checkId: randomBytes(16).toString('hex'),
		watcher: setup.role,
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
		const body = parsedBody(response.body);
		const outcome = checkOutcome(response.statusCode, body);
		return {
			outcome,
			detail: `HTTP ${response.statusCode}`,
			soonerAtMs: recheckAtMs(outcome, body, Date.now()),
		};
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
