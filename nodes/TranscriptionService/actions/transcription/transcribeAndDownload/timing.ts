// Pause Until Webhook's numbers, in one place: its timing rules and the bounds of what a process keeps. They hold only
// together: test/unit/pause-until-webhook-timing asserts the inequalities between them, and the docs tier holds
// docs/pause-until-webhook.md and the README to the figures they state.
// - a request claims the resume only while whoever sent it still waits for the answer: an event's reads stop, and its
//   answer goes out, before the service stops waiting (SERVICE_WAITS_MS), a check's before the watcher does
//   (CHECK_TIMEOUT_MS); a read begun just before the reads stop ends before the claim must (worstReadMs);
// - the watcher checks soon after the pause, then at intervals growing up to MAX_CHECK_INTERVAL_MS; a check leaves a
//   recent end to its event (the settle, at most MAX_SETTLE_MS) and checks again once it is over, so a batch whose jobs
//   have all ended resumes within RESUME_WITHIN_MS of the last end, whatever became of the events (a lost one; a
//   cancelled job, which sends none), while the process that paused it runs; the checks of a process that only
//   answered requests leave it that time and more (ANSWERER_WAITS_MS);
// - at Max Wait the deadline check, tried until its last try; n8n's own timeout (the backstop) comes after that try's
//   collection, and a process forgets the execution only after that timeout;
// - what a process keeps of paused executions is bounded (MAX_LEDGERS, MAX_USED_CHECKS).
import {
	attemptDeadlineMs,
	DEFAULT_ATTEMPT_TIMEOUT_MS,
	type RetryPolicy,
} from '../../../../../src/client';
import { recordDownloads, type PauseRecord } from './pause-record';

// Requests and their answers.

/** The service counts an answer that takes longer as failed, and delivers the event again (perhaps elsewhere). */
export const SERVICE_WAITS_MS = 10_000;
/**
 * From an event's arrival (waiting behind this execution's other requests included): how long its reads may go on,
 * and by when its answer must go out for it to claim the resume.
 */
export const EVENT_LIMITS = { readsMs: 4_000, claimMs: 8_000 };
/**
 * An event's status reads: two quick attempts, short waits, and no long wait for a rate-limit window, so that one read
 * begun as the reads stop still ends before the claim must (worstReadMs). What is learned stays learned for the next
 * delivery.
 */
export const EVENT_READ_POLICY: RetryPolicy = {
	maxAttempts: 2,
	baseDelayMs: 200,
	maxDelayMs: 500,
	maxRateLimitWaitMs: 500,
	rateLimitJitterMs: 100,
	attemptTimeoutMs: 1_000,
};
/**
 * A check is verified this long either side of its signing (a check goes from n8n to n8n, whose processes' clocks
 * agree far closer than an event's tolerance allows for): a captured check is refused after.
 */
export const CHECK_LIFETIME_MS = 60_000;
/** How long the watcher waits for the answer to a check. */
export const CHECK_TIMEOUT_MS = 120_000;
/** A check's reads may take longer (the deadline check reads every pending job), its claim too. */
export const CHECK_LIMITS = { readsMs: 60_000, claimMs: 100_000 };
/** A check's status reads: more patient than an event's, as its limits are. */
export const CHECK_READ_POLICY: RetryPolicy = {
	maxAttempts: 2,
	baseDelayMs: 200,
	maxDelayMs: 1_000,
	maxRateLimitWaitMs: 2_000,
	rateLimitJitterMs: 100,
	attemptTimeoutMs: 3_000,
};
/** A job snapshot's answer is smaller than this (about 600 bytes): its transfer time counts in worstReadMs. */
export const SNAPSHOT_ANSWER_BYTES = 4_096;

/**
 * The longest one status read takes under `policy`: before each attempt the rate-limit pacer waits at most
 * maxRateLimitWaitMs in all (a longer wait fails the read at once; the client adds its waits up); each attempt ends at its deadline (attemptDeadlineMs, a
 * snapshot's bytes included); between two attempts the longer of the backoff's cap and a 429's wait.
 */
export function worstReadMs(policy: RetryPolicy): number {
	const attempt =
		policy.maxRateLimitWaitMs +
		attemptDeadlineMs(policy.attemptTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS, SNAPSHOT_ANSWER_BYTES);
	const between = Math.max(policy.maxDelayMs, policy.maxRateLimitWaitMs + policy.rateLimitJitterMs);
	return policy.maxAttempts * attempt + (policy.maxAttempts - 1) * between;
}

// The watcher's schedule.

/** The pauser's first check: late enough for n8n to have saved the execution as waiting. */
export const FIRST_CHECK_MS = 5_000;
/** A process that only answered a request checks later: the events it expects usually come first. */
export const LATER_FIRST_CHECK_MS = 60_000;
/** Each interval between two checks is this many times the one before, up to MAX_CHECK_INTERVAL_MS. */
export const CHECK_GROWTH = 3;
/**
 * At most this long between two checks, however long the wait: a job that ends without an event (cancelled, or its
 * event lost) is found by the next one. Each check reads at most one job still running.
 */
export const MAX_CHECK_INTERVAL_MS = 90_000;
/** A batch whose jobs have all ended resumes within this long of the last end, whatever became of its events. */
export const RESUME_WITHIN_MS = 120_000;
/** …and within this long when the process that paused it has restarted (an answerer's watcher resumes it). */
export const RESUME_WITHIN_AFTER_RESTART_MS = 270_000;
/** A check whose reads failed (429, 5xx) is tried again after this long. */
export const READ_FAILED_RECHECK_MS = 30_000;
/** A check this close to Max Wait is taken as the deadline check (processes' clocks differ a little). */
export const DEADLINE_SKEW_MS = 5_000;
/** The deadline check is tried again this often until its last try. */
export const DEADLINE_RETRY_MS = 30_000;
/** A check this node did not answer is tried again after this long, doubling up to RETRY_MAX_MS. */
export const RETRY_FIRST_MS = 5_000;
export const RETRY_MAX_MS = 60_000;
/** Unanswered checks in a row before the log says so, once per watcher (one is a blip). */
export const WARN_AFTER_UNANSWERED = 3;
/** n8n saves a paused execution within seconds: its "not waiting" this long after the watcher started is final. */
export const SAVED_WITHIN_MS = 60_000;
/** A timer waits at most 2^31 − 1 ms (about 24.8 days): a longer wait sleeps in parts of this. */
export const MAX_SLEEP_MS = 24 * 60 * 60 * 1000;

// What a check leaves to an event.

/** How long a check leaves a job's end to its event: the delivery and the reads of the resume it makes. */
export const SETTLE_MS = 5_000;
/** …and per artifact that resume downloads: one at the spec's lowest rate limit (30 requests a minute). */
export const SETTLE_PER_DOWNLOAD_MS = 2_000;
/**
 * …but never longer than this: a lost last event must not hold a large batch back for its whole download time. A
 * collection that outlasts it in another process may be joined by a check's (docs/pause-until-webhook.md).
 */
export const MAX_SETTLE_MS = 90_000;
/** A check that left the resume to an event checks again this long after the settle is over. */
export const SETTLE_RECHECK_MS = 1_000;
/**
 * The watchers of several processes check at the same pace: a check from a process that only answered requests resumes
 * only this long after the pausing process's own could, which leaves the resume to that one while it runs (two checks
 * resuming in two processes would collect the batch twice). Its checks are the net for a pauser that restarted.
 */
export const ANSWERER_WAITS_MS = 180_000;

// After Max Wait.

/** n8n's own timeout comes at least this long after Max Wait. */
export const MIN_BACKSTOP_MS = 10 * 60 * 1000;
/** After Max Wait the deadline check is tried this long at least (a redeploy's worth), more for a larger batch. */
export const DEADLINE_TRIES_MS = 7 * 60 * 1000;
/** …and the collection a last try may start gets this long at least before n8n's own timeout. */
export const COLLECTION_MS = 60 * 1000;
/** The requests a batch makes after Max Wait, timed at the lowest tier's rate, twice over (others share the account). */
export const REQUEST_MARGIN = 2;

// What a process keeps.

/**
 * Ledgers a process keeps (ledger.ts). A queue-mode worker pauses executions but never resumes them (the webhook
 * processors do), so its ledgers last until their watcher hears the execution resumed, at worst until Max Wait + twice
 * the backstop: at bench P5's 64 pauses a minute with the default Max Wait (30 min) and a 10-minute backstop, 64 × 50 =
 * 3,200. This is three times that. A ledger with its sleeping watcher holds about 6 KB (10,000 measured: 62 MB, 72 MB
 * with three snapshots each).
 */
export const MAX_LEDGERS = 10_000;
/** Ledgers whose time has passed are swept at most this often (a sweep visits them all), and whenever all are kept. */
export const SWEEP_EVERY_MS = 60_000;
/**
 * Checks a process remembers having answered (used-checks.ts; about 100 bytes each): far above what the watchers of
 * MAX_LEDGERS paused executions send within a check's lifetime in normal operation. Beyond it the oldest goes first,
 * close to its own expiry.
 */
export const MAX_USED_CHECKS = 50_000;

/** How long a check that finds every job ended leaves the last end to its event, with `downloads` artifacts to fetch. */
export function settleMs(downloads: number): number {
	return Math.min(MAX_SETTLE_MS, collectionTimeMs(downloads));
}

/** How long a resume's collection may take, at the lowest tier's rate: SETTLE_MS, then one download after the other. */
function collectionTimeMs(downloads: number): number {
	return SETTLE_MS + downloads * SETTLE_PER_DOWNLOAD_MS;
}

/** Timed from Max Wait: the deadline check's last try, and n8n's own timeout (whole minutes, for its description). */
export interface DeadlineTimings {
	lastTryMs: number;
	backstopMs: number;
}

/**
 * Scaled with the batch at the lowest tier's rate (30 requests a minute: SETTLE_PER_DOWNLOAD_MS each), with margin:
 * the tries read every job once and outlast the collection an event may have started elsewhere; after the last try,
 * its collection reads the jobs only events told of and downloads every artifact before n8n's own timeout.
 * MIN_BACKSTOP_MS for small batches, about an hour for 100 items × 4 formats.
 */
export function deadlineTimings(records: readonly PauseRecord[]): DeadlineTimings {
	const jobs = records.filter((record) => record.job_id !== undefined);
	const downloads = jobs.reduce((sum, record) => sum + recordDownloads(record), 0);
	const tries =
		DEADLINE_TRIES_MS +
		REQUEST_MARGIN * jobs.length * SETTLE_PER_DOWNLOAD_MS +
		collectionTimeMs(downloads);
	const collection =
		COLLECTION_MS + REQUEST_MARGIN * (jobs.length + downloads) * SETTLE_PER_DOWNLOAD_MS;
	const backstopMs = Math.max(MIN_BACKSTOP_MS, Math.ceil((tries + collection) / 60_000) * 60_000);
	return { lastTryMs: backstopMs - collection, backstopMs };
}

/** When things happen to a pause (ms since the epoch), from its records. */
export interface PauseTimes {
	/** Max Wait runs out: the deadline check. */
	deadlineAtMs: number;
	/** The deadline check's last try. */
	lastTryAtMs: number;
	/** n8n's own timeout (the execution's waitTill). */
	waitTillMs: number;
	/** A process forgets what it knows of the execution (its ledger): the wait is over by then, whoever ended it. */
	forgetAtMs: number;
}

export function pauseTimes(records: readonly PauseRecord[]): PauseTimes {
	const deadlineAtMs = Date.parse(records[0].deadline_at);
	const { lastTryMs, backstopMs } = deadlineTimings(records);
	return {
		deadlineAtMs,
		lastTryAtMs: deadlineAtMs + lastTryMs,
		waitTillMs: deadlineAtMs + backstopMs,
		forgetAtMs: deadlineAtMs + 2 * backstopMs,
	};
}

/**
 * The two watchers a process may start: the pauser's, right after the pause; an answerer's (a process that answered a
 * request without resuming), later, and knowing the execution was waiting.
 */
export const WATCHER_ROLES = {
	pauser: { firstInMs: FIRST_CHECK_MS, seenWaiting: false },
	answerer: { firstInMs: LATER_FIRST_CHECK_MS, seenWaiting: true },
} as const;

export type WatcherRole = keyof typeof WATCHER_ROLES;

/**
 * When to check (ms since the epoch): first after `firstInMs`, then at intervals growing ×CHECK_GROWTH up to
 * MAX_CHECK_INTERVAL_MS, none within DEADLINE_SKEW_MS before the deadline; then the deadline check, and its retries
 * until `lastTryAtMs` (deadlineTimings).
 */
export function checkTimes(args: {
	startMs: number;
	firstInMs: number;
	deadlineAtMs: number;
	lastTryAtMs: number;
}): number[] {
	const times: number[] = [];
	let interval = args.firstInMs;
	for (let at = args.startMs + interval; at < args.deadlineAtMs - DEADLINE_SKEW_MS;) {
		times.push(at);
		interval = Math.min(interval * CHECK_GROWTH, MAX_CHECK_INTERVAL_MS);
		at += interval;
	}
	for (
		let at = Math.max(args.deadlineAtMs, args.startMs);
		at <= args.lastTryAtMs;
		at += DEADLINE_RETRY_MS
	) {
		times.push(at);
	}
	return times;
}
