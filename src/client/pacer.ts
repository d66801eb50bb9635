// Client-side pacing from the X-RateLimit-* headers (spec section 4 and 8): a batch slows down before the
// service answers 429. Pure bookkeeping; the caller sleeps for the delays it returns.
//
// The budget is the account's, and in n8n's queue mode several processes (workers, webhook processors) spend it at
// once with no channel between them. Every answer says what is left of the whole account's window, so a process can
// tell how much of the spending was not its own. While it sees nobody else spend, it spends whatever is left. Once
// it has, it keeps to its part of each window — the limit divided by the number of processes sharing it — so
// processes that all do this never claim the same requests twice.

import type { RateLimitBucket } from '../api/operations';
import { headerValue, parseRateLimitReset, type HeaderBag } from './retry';

interface WindowSpending {
	/** The window's X-RateLimit-Reset (Unix seconds), which names it; undefined until its first answer arrives. */
	reset: number | undefined;
	/**
	 * The lowest X-RateLimit-Remaining answered in the window. Answers can arrive out of order, and within one window
	 * the service's count only goes down: a higher figure arriving later is older news.
	 */
	remaining: number;
	/** Requests of this process the service counted (answered with the headers, not 429). */
	own: number;
	/** Requests the service counted that this process did not send (at least this many). */
	others: number;
	/**
	 * What the service had counted in this window before this process's first answer: in the first window it sees,
	 * a process cannot tell others' requests from its own sent before it kept count (a restart), so those are not
	 * taken for others'.
	 */
	before: number;
}

interface BucketState {
	limit: number;
	/** When the current window ends (+∞ once it has ended and the next one's end is not yet known). */
	resetAtMs: number;
	inFlight: number;
	current: WindowSpending;
	previous: WindowSpending | undefined;
	/** The reset of the last window that ended: answers naming it or an earlier one arrive late and are ignored. */
	endedReset: number | undefined;
	/**
	 * Windows in which this process was refused (429) after it had spent in them while it kept to its part: more
	 * processes share the budget than it assumed, one more for each such window.
	 */
	overshoots: number;
	lastOvershootReset: number | undefined;
}

export interface PacerOptions {
	/** Added after a reset time, so our clock's skew against the service's does not hit the old window. */
	safetyMarginMs?: number;
}

export class RateLimitPacer {
	private readonly buckets = new Map<RateLimitBucket, BucketState>();
	/** Requests let through before anything was known about their bucket, not yet answered. */
	private readonly unknownInFlight = new Map<RateLimitBucket, number>();
	private readonly safetyMarginMs: number;

	constructor(options: PacerOptions = {}) {
		this.safetyMarginMs = options.safetyMarginMs ?? 250;
	}

	/**
	 * Claims a request slot in `bucket`. Returns 0 when the request may go now, or the milliseconds to wait
	 * before asking again (the slot is then not claimed).
	 */
	reserve(bucket: RateLimitBucket, nowMs: number): number {
		const state = this.buckets.get(bucket);
		if (!state) {
			this.unknownInFlight.set(bucket, (this.unknownInFlight.get(bucket) ?? 0) + 1);
			return 0;
		}
		// A new window: the service grants `limit` again; the next answer tells us when it ends.
		if (nowMs >= state.resetAtMs) startWindow(state, undefined);
		const { current } = state;
		const part = Math.floor(state.limit / processesSharing(state)) - current.own - state.inFlight;
		const left = current.remaining - state.inFlight;
		// With nothing in flight in a window not yet heard of, one request goes to ask.
		const probe = current.reset === undefined && state.inFlight === 0;
		if (Math.min(part, left) > 0 || probe) {
			state.inFlight += 1;
			return 0;
		}
		if (!Number.isFinite(state.resetAtMs)) {
			// Window used up and its end not yet known: wait for an in-flight answer to tell us.
			return this.safetyMarginMs;
		}
		return state.resetAtMs - nowMs + this.safetyMarginMs;
	}

	/**
	 * Records the headers of an answer to a request that `reserve` let through (pass `undefined` when none came).
	 * `counted` is false for a 429: the service refused the request and did not count it.
	 */
	observe(
		bucket: RateLimitBucket,
		headers: HeaderBag | undefined,
		nowMs: number,
		counted = true,
	): void {
		const existing = this.buckets.get(bucket);
		if (existing) {
			if (existing.inFlight > 0) existing.inFlight -= 1;
			// No answer (or none with the headers): the service may have counted the request all the same.
			if (headers === undefined) existing.current.own += 1;
		} else {
			this.unknownInFlight.set(bucket, Math.max(0, (this.unknownInFlight.get(bucket) ?? 0) - 1));
		}
		const limit = Number(headerValue(headers, 'x-ratelimit-limit'));
		const remaining = Number(headerValue(headers, 'x-ratelimit-remaining'));
		const resetText = headerValue(headers, 'x-ratelimit-reset');
		const resetInMs = parseRateLimitReset(resetText, nowMs);
		if (!Number.isInteger(limit) || !Number.isInteger(remaining) || resetInMs === undefined) return;
		const reset = Number(resetText);

		// A different limit means the service changed the bucket (a new plan, a new window length): what was learnt of
		// the old one, its window's reset included, no longer holds, so this answer starts the count afresh.
		const changed = existing !== undefined && existing.limit !== limit;
		const state =
			existing && !changed
				? existing
				: newState(
						limit,
						reset,
						limit - remaining - (counted ? 1 : 0),
						existing?.inFlight ?? this.unknownInFlight.get(bucket) ?? 0,
					);
		this.unknownInFlight.delete(bucket);
		if (state.endedReset !== undefined && reset <= state.endedReset) return;
		if (state.current.reset === undefined) state.current.reset = reset;
		else if (reset > state.current.reset) startWindow(state, reset);
		else if (reset < state.current.reset) return;

		const { current } = state;
		state.limit = limit;
		current.remaining = Math.min(current.remaining, remaining);
		if (counted) {
			current.own += 1;
		} else if (
			current.own > 0 &&
			state.lastOvershootReset !== reset &&
			processesSharing(state) > 1
		) {
			state.overshoots += 1;
			state.lastOvershootReset = reset;
		}
		// What the service counted beyond our answered requests and those still in flight was someone else's.
		const others = limit - current.remaining - current.own - state.inFlight - current.before;
		current.others = Math.max(current.others, others);
		state.resetAtMs = nowMs + resetInMs;
		this.buckets.set(bucket, state);
	}

	/** Releases a slot whose request never reached the service (e.g. it failed before sending). */
	release(bucket: RateLimitBucket): void {
		const state = this.buckets.get(bucket);
		if (!state) {
			this.unknownInFlight.set(bucket, Math.max(0, (this.unknownInFlight.get(bucket) ?? 0) - 1));
		} else if (state.inFlight > 0) {
			state.inFlight -= 1;
		}
	}
}

function newState(
	limit: number,
	reset: number,
	countedBefore: number,
	inFlight: number,
): BucketState {
	return {
		limit,
		resetAtMs: Number.POSITIVE_INFINITY,
		inFlight,
		current: { reset, remaining: limit, own: 0, others: 0, before: Math.max(0, countedBefore) },
		previous: undefined,
		endedReset: undefined,
		overshoots: 0,
		lastOvershootReset: undefined,
	};
}

/** The current window has ended and becomes the previous one. */
function startWindow(state: BucketState, reset: number | undefined): void {
	state.endedReset = state.current.reset ?? state.endedReset;
	state.previous = state.current;
	state.current = { reset, remaining: state.limit, own: 0, others: 0, before: 0 };
	state.resetAtMs = Number.POSITIVE_INFINITY;
}

/**
 * How many processes spend this budget, this one included, judged from the last two windows: 1 while nobody else
 * was seen spending. Otherwise at least 2, and more only as far as both the share of the spending (processes that
 * keep to equal parts spend alike) and the windows that still met a 429 say so: a process others left little room
 * must not divide ever smaller and starve.
 */
function processesSharing(state: BucketState): number {
	const own = state.current.own + (state.previous?.own ?? 0);
	const others = state.current.others + (state.previous?.others ?? 0);
	if (others <= 0) return 1;
	const byShare = own === 0 ? Number.POSITIVE_INFINITY : Math.ceil((own + others) / own);
	return Math.max(2, Math.min(byShare, 2 + state.overshoots));
}
