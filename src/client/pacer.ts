// Client-side pacing from the X-RateLimit-* headers (spec section 4 and 8): a batch slows down before the
// service answers 429. Pure bookkeeping; the caller sleeps for the delays it returns.

import type { RateLimitBucket } from '../api/operations';
import { headerValue, parseRateLimitReset, type HeaderBag } from './retry';

interface BucketState {
	limit: number;
	/** The service's remaining count, less the requests we sent that it has not answered yet. */
	remaining: number;
	resetAtMs: number;
	inFlight: number;
}

export interface PacerOptions {
	/** Added after a reset time, so our clock's skew against the service's does not hit the old window. */
	safetyMarginMs?: number;
}

export class RateLimitPacer {
	private readonly buckets = new Map<RateLimitBucket, BucketState>();
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
		if (!state) return 0;
		if (nowMs >= state.resetAtMs) {
			// A new window: the service grants `limit` again; the next answer tells us the new reset time.
			state.remaining = state.limit - state.inFlight;
			state.resetAtMs = Number.POSITIVE_INFINITY;
		}
		if (state.remaining > 0) {
			state.remaining -= 1;
			state.inFlight += 1;
			return 0;
		}
		if (!Number.isFinite(state.resetAtMs)) {
			// Window used up and the reset time not yet known: wait for an in-flight answer to tell us.
			return this.safetyMarginMs;
		}
		return state.resetAtMs - nowMs + this.safetyMarginMs;
	}

	/** Records the headers of an answer to a request that `reserve` let through (pass `undefined` when none came). */
	observe(bucket: RateLimitBucket, headers: HeaderBag | undefined, nowMs: number): void {
		const existing = this.buckets.get(bucket);
		if (existing && existing.inFlight > 0) existing.inFlight -= 1;
		const limit = Number(headerValue(headers, 'x-ratelimit-limit'));
		const remaining = Number(headerValue(headers, 'x-ratelimit-remaining'));
		const resetInMs = parseRateLimitReset(headerValue(headers, 'x-ratelimit-reset'), nowMs);
		if (!Number.isInteger(limit) || !Number.isInteger(remaining) || resetInMs === undefined) return;
		const inFlight = existing?.inFlight ?? 0;
		this.buckets.set(bucket, {
			limit,
			remaining: Math.max(0, remaining - inFlight),
			resetAtMs: nowMs + resetInMs,
			inFlight,
		});
	}

	/** Releases a slot whose request never reached the service (e.g. it failed before sending). */
	release(bucket: RateLimitBucket): void {
		const state = this.buckets.get(bucket);
		if (!state || state.inFlight === 0) return;
		state.inFlight -= 1;
		state.remaining += 1;
	}
}
