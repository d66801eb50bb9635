// Spec section 7, "Retry policy for clients", as pure functions: the caller performs the request and
// sleeps; these only decide whether and how long.

import type { RetryScope } from '../api/operations';

export interface RetryPolicy {
	/** Attempts in total, the first one included. */
	maxAttempts: number;
	baseDelayMs: number;
	maxDelayMs: number;
	/** A 429 asking us to wait longer than this is reported instead of waited out. */
	maxRateLimitWaitMs: number;
	/** Upper bound of the random delay added to a rate-limit wait ("with a small random delay"). */
	rateLimitJitterMs: number;
	/**
	 * How long one attempt may take, from connecting to the answer's last byte, before any transfer allowance
	 * (attemptDeadlineMs); default 60 s.
	 */
	attemptTimeoutMs?: number;
}

/** Default of RetryPolicy.attemptTimeoutMs. */
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 60_000;

/**
 * The slowest transfer an attempt is given time for: each byte sent or received adds 1/32,768 s to its deadline
 * (256 kbit/s). A larger file on a slower link is not cut off as long as it moves at least this fast; an answer
 * trickled out a byte at a time ends at about the attempt timeout.
 */
export const MIN_TRANSFER_BYTES_PER_SECOND = 32 * 1024;

/** Network code of an attempt that outlived its deadline (attemptDeadlineMs): retried like a timeout. */
export const ATTEMPT_DEADLINE_CODE = 'ATTEMPT_DEADLINE_EXCEEDED';

/**
 * How long after it started an attempt ends, whatever is still arriving: the attempt timeout plus the time
 * `transferredBytes` (sent so far, declared for an upload, or received) take at MIN_TRANSFER_BYTES_PER_SECOND.
 */
export function attemptDeadlineMs(timeoutMs: number, transferredBytes: number): number {
	return (
		timeoutMs + Math.ceil((Math.max(0, transferredBytes) * 1000) / MIN_TRANSFER_BYTES_PER_SECOND)
	);
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
	maxAttempts: 5,
	baseDelayMs: 500,
	maxDelayMs: 20_000,
	maxRateLimitWaitMs: 120_000,
	rateLimitJitterMs: 250,
};

/** Temporary server-side failures; 401, 403, 422 and the other 4xx need a changed request instead. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);

const RETRYABLE_NETWORK_CODES: ReadonlySet<string> = new Set([
	ATTEMPT_DEADLINE_CODE,
	'ECONNRESET',
	'ECONNREFUSED',
	'ECONNABORTED',
	'ETIMEDOUT',
	'ESOCKETTIMEDOUT',
	'EPIPE',
	'EAI_AGAIN',
	'EHOSTUNREACH',
	'ENETUNREACH',
	'ENETDOWN',
	'UND_ERR_SOCKET',
	'UND_ERR_CONNECT_TIMEOUT',
	'UND_ERR_HEADERS_TIMEOUT',
	'UND_ERR_BODY_TIMEOUT',
	'ERR_STREAM_PREMATURE_CLOSE',
]);

/** Failures that happen before a request is on the wire: the service cannot have seen it. */
const UNSENT_NETWORK_CODES: ReadonlySet<string> = new Set([
	'ECONNREFUSED',
	'EAI_AGAIN',
	'EHOSTUNREACH',
	'ENETUNREACH',
	'ENETDOWN',
	'UND_ERR_CONNECT_TIMEOUT',
]);

const RETRYABLE_NETWORK_MESSAGES = [
	/socket hang up/i,
	/network error/i,
	/timeout/i,
	/other side closed/i,
];

export interface NetworkErrorLike {
	code?: unknown;
	message?: unknown;
	cause?: unknown;
}

/** Network failures that may succeed on a second try (as opposed to, say, a bad URL or a TLS mismatch). */
export function isRetryableNetworkError(error: unknown, depth = 0): boolean {
	if (typeof error !== 'object' || error === null || depth > 3) return false;
	const { code, message, cause } = error as NetworkErrorLike;
	if (typeof code === 'string' && RETRYABLE_NETWORK_CODES.has(code)) return true;
	if (
		typeof message === 'string' &&
		RETRYABLE_NETWORK_MESSAGES.some((pattern) => pattern.test(message))
	) {
		return true;
	}
	return isRetryableNetworkError(cause, depth + 1);
}

/** A network failure that provably happened before the request reached the service (connection never made). */
export function isUnsentNetworkError(error: unknown, depth = 0): boolean {
	if (typeof error !== 'object' || error === null || depth > 3) return false;
	const { code, cause } = error as NetworkErrorLike;
	if (typeof code === 'string' && UNSENT_NETWORK_CODES.has(code)) return true;
	return isUnsentNetworkError(cause, depth + 1);
}

export type HeaderBag = Record<string, string | string[] | number | undefined>;

/** Case-insensitive single header value. */
export function headerValue(headers: HeaderBag | undefined, name: string): string | undefined {
	if (!headers) return undefined;
	const wanted = name.toLowerCase();
	for (const [key, value] of Object.entries(headers)) {
		if (key.toLowerCase() !== wanted || value === undefined) continue;
		return Array.isArray(value) ? value[0] : String(value);
	}
	return undefined;
}

/** Retry-After: whole seconds or an HTTP date (RFC 9110 10.2.3). Returns milliseconds from now. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
	if (value === undefined) return undefined;
	const trimmed = value.trim();
	if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
	const date = Date.parse(trimmed);
	if (Number.isNaN(date)) return undefined;
	return Math.max(0, date - nowMs);
}

/** X-RateLimit-Reset: Unix seconds (UTC) when the window resets. Returns milliseconds from now. */
export function parseRateLimitReset(value: string | undefined, nowMs: number): number | undefined {
	if (value === undefined || !/^\d+$/.test(value.trim())) return undefined;
	return Math.max(0, Number(value.trim()) * 1000 - nowMs);
}

/** Bounded exponential backoff with "equal jitter": half fixed, half random, never above maxDelayMs. */
export function backoffDelay(attempt: number, policy: RetryPolicy, random: () => number): number {
	const exponential = policy.baseDelayMs * 2 ** Math.max(0, attempt - 1);
	const capped = Math.min(policy.maxDelayMs, exponential);
	return Math.round(capped / 2 + random() * (capped / 2));
}

/** How long a 429 asks us to wait: Retry-After first, else X-RateLimit-Reset, plus a small random delay. */
export function rateLimitDelay(
	headers: HeaderBag | undefined,
	nowMs: number,
	policy: RetryPolicy,
	random: () => number,
): number | undefined {
	const wait =
		parseRetryAfter(headerValue(headers, 'retry-after'), nowMs) ??
		parseRateLimitReset(headerValue(headers, 'x-ratelimit-reset'), nowMs);
	if (wait === undefined) return undefined;
	return wait + Math.round(random() * policy.rateLimitJitterMs);
}

export type AttemptOutcome =
	| { kind: 'response'; status: number; headers?: HeaderBag }
	| { kind: 'network_error'; error: unknown };

export type RetryDecision =
	{ retry: true; delayMs: number; reason: string } | { retry: false; reason: string };

/**
 * Whether to try again after `attempt` (1-based) ended with `outcome`, and after how long.
 * A success, or a status a retry cannot fix, ends the loop. With scope `unsent` (a call that is not idempotent) only
 * an attempt the service provably did not act on is repeated: a 429, or a connection that was never made.
 */
export function decideRetry(
	outcome: AttemptOutcome,
	attempt: number,
	policy: RetryPolicy = DEFAULT_RETRY_POLICY,
	nowMs: number = Date.now(),
	random: () => number = Math.random,
	scope: RetryScope = 'any',
): RetryDecision {
	if (outcome.kind === 'response' && !RETRYABLE_STATUSES.has(outcome.status)) {
		return { retry: false, reason: `status ${outcome.status} is not retryable` };
	}
	if (outcome.kind === 'network_error' && !isRetryableNetworkError(outcome.error)) {
		return { retry: false, reason: 'network error is not retryable' };
	}
	if (scope === 'unsent') {
		const unsent =
			outcome.kind === 'response' ? outcome.status === 429 : isUnsentNetworkError(outcome.error);
		if (!unsent) {
			return {
				retry: false,
				reason: 'not repeated: the call is not idempotent and the service may have acted on it',
			};
		}
	}
	if (attempt >= policy.maxAttempts) {
		return { retry: false, reason: `gave up after ${attempt} attempts` };
	}
	if (outcome.kind === 'response' && outcome.status === 429) {
		const wait = rateLimitDelay(outcome.headers, nowMs, policy, random);
		if (wait !== undefined) {
			if (wait > policy.maxRateLimitWaitMs) {
				return {
					retry: false,
					reason: `rate limit resets in ${Math.ceil(wait / 1000)} s, longer than the ${Math.round(
						policy.maxRateLimitWaitMs / 1000,
					)} s this node waits`,
				};
			}
			return { retry: true, delayMs: wait, reason: 'rate limited (429)' };
		}
	}
	const reason =
		outcome.kind === 'response' ? `temporary failure (HTTP ${outcome.status})` : 'network error';
	const backoff = backoffDelay(attempt, policy, random);
	// A 503 may say when to come back (RFC 9110 10.2.3); never sooner than the backoff, never beyond its cap.
	const retryAfter =
		outcome.kind === 'response' && outcome.status === 503
			? parseRetryAfter(headerValue(outcome.headers, 'retry-after'), nowMs)
			: undefined;
	const delayMs =
		retryAfter === undefined ? backoff : Math.min(Math.max(backoff, retryAfter), policy.maxDelayMs);
	return { retry: true, delayMs, reason };
}
