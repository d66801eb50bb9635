// A share of an account's rate limits for one caller that drains a backlog (the Polling Trigger), read from the
// X-RateLimit-* headers (spec 4 and 8) as the pacer reads them: per bucket, each window's limit, what the whole account
// has left of it and when it ends. The caller takes only what leaves the rest of the account `1 − share` of each
// window's limit, whoever spends it: other workflows on the account keep theirs however fast the caller could go.
// Pure bookkeeping: the caller asks how much it may send now and, when nothing, until when to wait.
import type { RateLimitBucket } from '../api/operations';
import { headerValue, type HeaderBag } from './retry';

/** Added after a window's end, as the pacer adds it: the service's clock and this one's differ by some milliseconds. */
const WINDOW_END_MARGIN_MS = 250;

interface WindowState {
	limit: number;
	/** The lowest X-RateLimit-Remaining answered in the current window: answers may arrive out of order. */
	remaining: number;
	/** The window's X-RateLimit-Reset (Unix seconds), which names it. */
	reset: number;
	/** When it ends on this machine's clock (ms). */
	endsAtMs: number;
}

export interface RateShareOptions {
	/** The part of each window's limit the caller may use, above 0 and at most 1. */
	share: number;
	/** What the caller may send in a bucket the service has not answered yet (or answers without the headers). */
	unknown: Partial<Record<RateLimitBucket, number>>;
	/** What the caller needs of a window to do anything at all, whatever the share (at most the whole limit). */
	minimum?: Partial<Record<RateLimitBucket, number>>;
}

export class RateShare {
	private readonly windows = new Map<RateLimitBucket, WindowState>();
	private readonly inFlight = new Map<RateLimitBucket, number>();

	constructor(private readonly options: RateShareOptions) {
		if (!(options.share > 0 && options.share <= 1)) {
			throw new RangeError('a rate-limit share is above 0 and at most 1');
		}
	}

	/** Requests of `bucket` the share allows now, those in flight deducted. */
	available(bucket: RateLimitBucket, nowMs: number): number {
		const inFlight = this.inFlight.get(bucket) ?? 0;
		const window = this.windows.get(bucket);
		if (!window) return Math.max(0, (this.options.unknown[bucket] ?? 1) - inFlight);
		// After its end the account has the whole limit again, until an answer says otherwise.
		const remaining = nowMs >= window.endsAtMs ? window.limit : window.remaining;
		return Math.max(0, remaining - this.keptForOthers(bucket, window.limit) - inFlight);
	}

	/** When `bucket`'s current window ends on this machine's clock (ms); undefined while nothing is known of it. */
	windowEndsAt(bucket: RateLimitBucket): number | undefined {
		return this.windows.get(bucket)?.endsAtMs;
	}

	/** The most the share allows in one window of `bucket`; undefined while its limit is not known. */
	perWindow(bucket: RateLimitBucket): number | undefined {
		const window = this.windows.get(bucket);
		if (!window) return undefined;
		return window.limit - this.keptForOthers(bucket, window.limit);
	}

	/** What each window leaves the rest of the account: 1 − share of the limit, less what the caller needs at least. */
	private keptForOthers(bucket: RateLimitBucket, limit: number): number {
		const needed = Math.min(limit, this.options.minimum?.[bucket] ?? 0);
		return Math.min(Math.ceil((1 - this.options.share) * limit), limit - needed);
	}

	/** A request of `bucket` is on its way. */
	sent(bucket: RateLimitBucket): void {
		this.inFlight.set(bucket, (this.inFlight.get(bucket) ?? 0) + 1);
	}

	/**
	 * Its answer arrived (`headers` undefined when none did), at `nowMs` on this machine's clock; `serviceNowMs` is the
	 * answer's Date (whole seconds), which X-RateLimit-Reset is read against when the service sends it, so this
	 * machine's clock may be off the service's.
	 */
	answered(
		bucket: RateLimitBucket,
		headers: HeaderBag | undefined,
		nowMs: number,
		serviceNowMs?: number,
	): void {
		this.inFlight.set(bucket, Math.max(0, (this.inFlight.get(bucket) ?? 0) - 1));
		const limit = count(headerValue(headers, 'x-ratelimit-limit'));
		const remaining = count(headerValue(headers, 'x-ratelimit-remaining'));
		const reset = count(headerValue(headers, 'x-ratelimit-reset'));
		if (limit === undefined || remaining === undefined || reset === undefined || limit === 0)
			return;
		const known = this.windows.get(bucket);
		// An answer from a window that has ended arrives late: what it says is older news.
		if (known && reset < known.reset && known.limit === limit) return;
		const sameWindow = known !== undefined && known.reset === reset && known.limit === limit;
		const clockMs = serviceNowMs ?? nowMs;
		this.windows.set(bucket, {
			limit,
			remaining: sameWindow ? Math.min(known.remaining, remaining) : remaining,
			reset,
			endsAtMs: nowMs + Math.max(0, reset * 1000 - clockMs) + WINDOW_END_MARGIN_MS,
		});
	}
}

function count(value: string | undefined): number | undefined {
	if (value === undefined || !/^\d{1,15}$/.test(value.trim())) return undefined;
	return Number(value.trim());
}
