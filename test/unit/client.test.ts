import { OPERATIONS } from '../../src/api';
import {
	attemptDeadlineMs,
	ATTEMPT_DEADLINE_CODE,
	backoffDelay,
	baseUrlProblem,
	contradictsTotal,
	decideRetry,
	DEFAULT_RETRY_POLICY,
	derivedIdempotencyKey,
	formatBytes,
	generateIdempotencyKey,
	headerValue,
	idempotencyKeyProblem,
	isLoopbackHost,
	isRetryableNetworkError,
	ListWalk,
	MAX_ARTIFACT_BYTES,
	MAX_JSON_ANSWER_BYTES,
	MAX_LIST_PAGES,
	maxAnswerBytes,
	MIN_TRANSFER_BYTES_PER_SECOND,
	parseRateLimitReset,
	parseRetryAfter,
	PLAIN_HTTP_MESSAGE,
	RateLimitPacer,
	readListPage,
	RETRYABLE_STATUSES,
	type RetryPolicy,
} from '../../src/client';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY };
const midRandom = () => 0.5;

describe('retry policy (spec section 7)', () => {
	describe('which outcomes are retried', () => {
		it.each([401, 403, 404, 409, 410, 422, 400])(
			'never retries HTTP %i without a changed request',
			(status) => {
				expect(decideRetry({ kind: 'response', status }, 1, policy, NOW, midRandom)).toEqual({
					retry: false,
					reason: `status ${status} is not retryable`,
				});
			},
		);

		it.each([500, 502, 503, 504, 408])(
			'retries temporary failure HTTP %i with backoff',
			(status) => {
				const decision = decideRetry({ kind: 'response', status }, 1, policy, NOW, midRandom);
				expect(decision).toEqual({
					retry: true,
					delayMs: 375,
					reason: `temporary failure (HTTP ${status})`,
				});
			},
		);

		it('treats exactly 408, 429, 500, 502, 503 and 504 as retryable statuses', () => {
			expect([...RETRYABLE_STATUSES].sort()).toEqual([408, 429, 500, 502, 503, 504]);
		});

		it('retries a connection reset and a timeout, not an unknown failure', () => {
			const reset = decideRetry(
				{ kind: 'network_error', error: { code: 'ECONNRESET' } },
				1,
				policy,
				NOW,
				midRandom,
			);
			expect(reset).toMatchObject({ retry: true, reason: 'network error' });
			const refused = { message: 'connect ECONNREFUSED 127.0.0.1:4010', code: 'ECONNREFUSED' };
			expect(
				decideRetry({ kind: 'network_error', error: refused }, 2, policy, NOW, midRandom).retry,
			).toBe(true);
			expect(
				decideRetry(
					{ kind: 'network_error', error: new Error('certificate has expired') },
					1,
					policy,
					NOW,
					midRandom,
				),
			).toEqual({ retry: false, reason: 'network error is not retryable' });
		});

		it('stops after maxAttempts attempts', () => {
			expect(decideRetry({ kind: 'response', status: 503 }, 5, policy, NOW, midRandom)).toEqual({
				retry: false,
				reason: 'gave up after 5 attempts',
			});
		});
	});

	describe('429 rate_limit_exceeded', () => {
		it('waits Retry-After seconds plus a small random delay', () => {
			const decision = decideRetry(
				{
					kind: 'response',
					status: 429,
					headers: { 'Retry-After': '7', 'X-RateLimit-Reset': '999999999999' },
				},
				1,
				policy,
				NOW,
				() => 1,
			);
			expect(decision).toEqual({
				retry: true,
				delayMs: 7000 + policy.rateLimitJitterMs,
				reason: 'rate limited (429)',
			});
		});

		it('falls back to X-RateLimit-Reset when Retry-After is absent', () => {
			const reset = String(NOW / 1000 + 12);
			const decision = decideRetry(
				{ kind: 'response', status: 429, headers: { 'x-ratelimit-reset': reset } },
				1,
				policy,
				NOW,
				() => 0,
			);
			expect(decision).toEqual({ retry: true, delayMs: 12_000, reason: 'rate limited (429)' });
		});

		it('reports instead of waiting when the reset is further away than maxRateLimitWaitMs', () => {
			const decision = decideRetry(
				{ kind: 'response', status: 429, headers: { 'retry-after': '3600' } },
				1,
				policy,
				NOW,
				() => 0,
			);
			expect(decision).toEqual({
				retry: false,
				reason: 'rate limit resets in 3600 s, longer than the 120 s this node waits',
			});
		});

		it('uses exponential backoff when a 429 carries no timing headers', () => {
			expect(decideRetry({ kind: 'response', status: 429 }, 2, policy, NOW, () => 0)).toEqual({
				retry: true,
				delayMs: 500,
				reason: 'temporary failure (HTTP 429)',
			});
		});
	});

	describe('backoffDelay', () => {
		it('doubles per attempt, half fixed and half random, capped at maxDelayMs', () => {
			expect([1, 2, 3, 4].map((attempt) => backoffDelay(attempt, policy, () => 0))).toEqual([
				250, 500, 1000, 2000,
			]);
			expect([1, 2, 3, 4].map((attempt) => backoffDelay(attempt, policy, () => 1))).toEqual([
				500, 1000, 2000, 4000,
			]);
			expect(backoffDelay(30, policy, () => 1)).toBe(policy.maxDelayMs);
			expect(backoffDelay(30, policy, () => 0)).toBe(policy.maxDelayMs / 2);
		});
	});

	describe('header parsing', () => {
		it('reads Retry-After as seconds or as an HTTP date', () => {
			expect(parseRetryAfter('30', NOW)).toBe(30_000);
			expect(parseRetryAfter(new Date(NOW + 5000).toUTCString(), NOW)).toBe(5000);
			expect(parseRetryAfter(new Date(NOW - 5000).toUTCString(), NOW)).toBe(0);
			expect(parseRetryAfter('soon', NOW)).toBeUndefined();
			expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
		});

		it('reads X-RateLimit-Reset as Unix seconds', () => {
			expect(parseRateLimitReset(String(NOW / 1000 + 60), NOW)).toBe(60_000);
			expect(parseRateLimitReset(String(NOW / 1000 - 60), NOW)).toBe(0);
			expect(parseRateLimitReset('1.5', NOW)).toBeUndefined();
		});

		it('finds headers case-insensitively and takes the first of repeated values', () => {
			expect(headerValue({ 'X-RateLimit-Limit': '60' }, 'x-ratelimit-limit')).toBe('60');
			expect(headerValue({ 'set-cookie': ['a', 'b'] }, 'Set-Cookie')).toBe('a');
			expect(headerValue({ 'content-length': 12 }, 'Content-Length')).toBe('12');
			expect(headerValue(undefined, 'x')).toBeUndefined();
		});
	});

	describe('isRetryableNetworkError', () => {
		it('looks through n8n wrappers to the socket error', () => {
			expect(
				isRetryableNetworkError({ message: 'wrapped', cause: { code: 'UND_ERR_SOCKET' } }),
			).toBe(true);
			expect(isRetryableNetworkError({ message: 'socket hang up' })).toBe(true);
			expect(isRetryableNetworkError({ code: 'ERR_INVALID_URL', message: 'Invalid URL' })).toBe(
				false,
			);
			expect(isRetryableNetworkError(null)).toBe(false);
		});
	});
});

describe('RateLimitPacer (X-RateLimit-* headers, spec section 4)', () => {
	const headers = (limit: number, remaining: number, resetInSeconds: number, now = NOW) => ({
		'x-ratelimit-limit': String(limit),
		'x-ratelimit-remaining': String(remaining),
		'x-ratelimit-reset': String(Math.floor(now / 1000) + resetInSeconds),
	});

	it('lets requests through while nothing is known about a bucket', () => {
		const pacer = new RateLimitPacer();
		expect(pacer.reserve('writes', NOW)).toBe(0);
		expect(pacer.reserve('writes', NOW)).toBe(0);
	});

	it('spends the remaining budget, then waits until the window resets', () => {
		const pacer = new RateLimitPacer({ safetyMarginMs: 100 });
		expect(pacer.reserve('writes', NOW)).toBe(0);
		pacer.observe('writes', headers(60, 2, 30), NOW);
		expect(pacer.reserve('writes', NOW)).toBe(0);
		expect(pacer.reserve('writes', NOW)).toBe(0);
		expect(pacer.reserve('writes', NOW)).toBe(30_100);
		expect(pacer.reserve('writes', NOW + 10_000)).toBe(20_100);
	});

	it('counts requests still in flight against the remaining budget', () => {
		const pacer = new RateLimitPacer({ safetyMarginMs: 0 });
		pacer.observe('reads', headers(10, 5, 60), NOW);
		for (let i = 0; i < 5; i++) expect(pacer.reserve('reads', NOW)).toBe(0);
		// The first answer says 4 remain, but four of ours are still unanswered: none are left.
		pacer.observe('reads', headers(10, 4, 60), NOW);
		expect(pacer.reserve('reads', NOW)).toBe(60_000);
	});

	it('grants the full limit again once the reset time has passed', () => {
		const pacer = new RateLimitPacer({ safetyMarginMs: 50 });
		pacer.observe('artifacts', headers(3, 0, 1), NOW);
		expect(pacer.reserve('artifacts', NOW)).toBe(1050);
		const later = NOW + 1000;
		expect(pacer.reserve('artifacts', later)).toBe(0);
		expect(pacer.reserve('artifacts', later)).toBe(0);
		expect(pacer.reserve('artifacts', later)).toBe(0);
		// Window spent and the new reset time not yet reported: wait a little for an answer.
		expect(pacer.reserve('artifacts', later)).toBe(50);
	});

	it('keeps buckets apart', () => {
		const pacer = new RateLimitPacer({ safetyMarginMs: 0 });
		pacer.observe('writes', headers(30, 0, 40), NOW);
		expect(pacer.reserve('writes', NOW)).toBe(40_000);
		expect(pacer.reserve('reads', NOW)).toBe(0);
	});

	it('ignores answers without rate-limit headers and releases unsent reservations', () => {
		const pacer = new RateLimitPacer({ safetyMarginMs: 0 });
		pacer.observe('writes', headers(2, 1, 60), NOW);
		expect(pacer.reserve('writes', NOW)).toBe(0);
		expect(pacer.reserve('writes', NOW)).toBe(60_000);
		pacer.release('writes');
		expect(pacer.reserve('writes', NOW)).toBe(0);
		pacer.observe('writes', undefined, NOW);
		expect(pacer.reserve('writes', NOW)).toBe(60_000);
	});
});

describe('Idempotency-Key (spec 4.2, 4.4, 8)', () => {
	it('generates distinct keys within 1 to 200 characters', () => {
		const keys = new Set(Array.from({ length: 100 }, () => generateIdempotencyKey()));
		expect(keys.size).toBe(100);
		for (const key of keys) {
			expect(key).toMatch(/^n8n-[0-9a-f-]{36}$/);
			expect(idempotencyKeyProblem(key)).toBeUndefined();
		}
	});

	it('names the problem of an empty or over-long key', () => {
		expect(idempotencyKeyProblem('')).toBe('Idempotency Key must not be empty');
		expect(idempotencyKeyProblem('k'.repeat(200))).toBeUndefined();
		expect(idempotencyKeyProblem('k'.repeat(201))).toBe(
			'Idempotency Key is 201 characters long; the API accepts 1 to 200',
		);
	});
});

describe('derived Idempotency-Keys: the same write keeps its key across n8n retries', () => {
	const write = {
		executionMark: '2f1c3e7a-0b7d-4c55-9d0e-6a1f0c2b9e44',
		executionId: '4711',
		nodeId: 'node-a',
		runIndex: 0,
		itemIndex: 3,
		step: 'job',
	};

	it('is the same for the same execution (id and mark), node, run, item and step', () => {
		expect(derivedIdempotencyKey(write)).toBe(derivedIdempotencyKey({ ...write }));
		expect(derivedIdempotencyKey(write)).toMatch(/^n8n-[0-9a-f]{48}$/);
		expect(idempotencyKeyProblem(derivedIdempotencyKey(write))).toBeUndefined();
	});

	it.each([
		[
			"a staging clone's execution with the same id (its own mark)",
			{ executionMark: '9b0e5d21-7c4a-4f3e-8a61-d2c7b5e0f183' },
		],
		['another execution', { executionId: '4712' }],
		['another node', { nodeId: 'node-b' }],
		['another run of the node (a loop)', { runIndex: 1 }],
		['another item', { itemIndex: 4 }],
		['another step of the item', { step: 'slot' }],
	])('differs for %s', (_label, change) => {
		expect(derivedIdempotencyKey({ ...write, ...change })).not.toBe(derivedIdempotencyKey(write));
	});

	it('cannot be confused by parts that run into each other', () => {
		expect(derivedIdempotencyKey({ ...write, executionId: '47', nodeId: '11node-a' })).not.toBe(
			derivedIdempotencyKey({ ...write, executionId: '4711', nodeId: 'node-a' }),
		);
	});
});

describe('retry scope: a call that is not idempotent is repeated only when it never reached the service', () => {
	const scope = OPERATIONS.testWebhook.retry;

	it('is "unsent" for POST /webhooks/test, and "any" for every other operation', () => {
		expect(scope).toBe('unsent');
		const others = Object.entries(OPERATIONS).filter(([id]) => id !== 'testWebhook');
		expect(others.map(([, operation]) => operation.retry)).toEqual(others.map(() => 'any'));
	});

	it.each([500, 502, 503, 504, 408])(
		'does not repeat after HTTP %i: the service may have sent the event',
		(status) => {
			expect(decideRetry({ kind: 'response', status }, 1, policy, NOW, midRandom, scope)).toEqual({
				retry: false,
				reason: 'not repeated: the call is not idempotent and the service may have acted on it',
			});
		},
	);

	it.each(['ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'UND_ERR_SOCKET'])(
		'does not repeat after %s: the request may have arrived',
		(code) => {
			expect(
				decideRetry({ kind: 'network_error', error: { code } }, 1, policy, NOW, midRandom, scope)
					.retry,
			).toBe(false);
		},
	);

	it.each(['ECONNREFUSED', 'EAI_AGAIN', 'EHOSTUNREACH', 'UND_ERR_CONNECT_TIMEOUT'])(
		'repeats after %s: no connection was made',
		(code) => {
			expect(
				decideRetry({ kind: 'network_error', error: { code } }, 1, policy, NOW, midRandom, scope),
			).toMatchObject({ retry: true, reason: 'network error' });
		},
	);

	it('repeats after 429: the service refused the call without acting on it', () => {
		expect(
			decideRetry(
				{ kind: 'response', status: 429, headers: { 'retry-after': '2' } },
				1,
				policy,
				NOW,
				midRandom,
				scope,
			),
		).toEqual({ retry: true, delayMs: 2000 + 125, reason: 'rate limited (429)' });
	});
});

describe('ListWalk: paging GET /transcriptions (spec 4.5)', () => {
	const link = (cursor: number) => `/api/v1/transcriptions?limit=100&cursor=${cursor}`;
	const page = (next: string | null, items: unknown[] = [{}], total = 1000) =>
		readListPage({ items, total, links: { self: link(0), next, prev: null } }, { limit: 100 })!;

	describe('from the start, as links.next hands the pages on (Get Many, the Job list search)', () => {
		it('follows links.next and ends at a null link', () => {
			const walk = new ListWalk({ from: 'start', maxPages: MAX_LIST_PAGES, status: 'failed' });
			const first = walk.next()!;
			expect(first).toEqual({ limit: 100, status: 'failed', end: 'front' });
			walk.record(first, page(link(100)));
			const second = walk.next()!;
			expect(second).toEqual({ limit: 100, cursor: 100, status: 'failed', end: 'front' });
			walk.record(second, page(null));
			expect(walk.next()).toBeUndefined();
			expect(walk.stop).toBeUndefined();
			expect(walk.continueAt).toBeUndefined();
		});

		it('ends at a link without a cursor', () => {
			const walk = new ListWalk({ from: 'start', maxPages: MAX_LIST_PAGES });
			walk.record(walk.next()!, page('/api/v1/transcriptions?limit=100'));
			expect(walk.next()).toBeUndefined();
			expect(walk.stop).toBeUndefined();
		});

		it('stops at a cursor it was already given: an alternating cursor never ends otherwise', () => {
			const walk = new ListWalk({ from: 'start', maxPages: MAX_LIST_PAGES });
			walk.record(walk.next()!, page(link(100)));
			walk.record(walk.next()!, page(link(0)));
			expect(walk.next()).toBeUndefined();
			expect(walk.stop).toEqual({ reason: 'repeated_cursor', cursor: 0 });
			expect(walk.pagesRead).toBe(2);
			expect(walk.continueAt).toBeUndefined();
		});

		it('stops at a link to the page it just fetched', () => {
			const walk = new ListWalk({ from: 'start', maxPages: MAX_LIST_PAGES });
			walk.record(walk.next()!, page(link(0)));
			expect(walk.next()).toBeUndefined();
			expect(walk.stop).toEqual({ reason: 'repeated_cursor', cursor: 0 });
			expect(walk.pagesRead).toBe(1);
		});

		it('stops after the page bound even when every cursor is new, and says where the next page begins', () => {
			const walk = new ListWalk({ from: 'start', maxPages: 3, start: 200 });
			const cursors: number[] = [];
			for (let read = walk.next(); read; read = walk.next()) {
				cursors.push(read.cursor ?? 0);
				walk.record(read, page(link((read.cursor ?? 0) + 100)));
			}
			expect(cursors).toEqual([200, 300, 400]);
			expect(walk.stop).toEqual({ reason: 'page_bound', pages: 3 });
			expect(walk.continueAt).toBe(500);
		});
	});

	describe('from both ends towards the middle, by offset (the Polling Trigger)', () => {
		const items = (count: number) => Array.from({ length: count }, () => ({}));

		it('reads the end read less first, then alternates, until the ends meet', () => {
			const walk = new ListWalk(
				{ from: 'both_ends', maxPages: 10, status: 'completed' },
				{ front: 100, back: 0, total: 450 },
			);
			const reads: Array<[string, number, number]> = [];
			for (let read = walk.next(); read; read = walk.next()) {
				reads.push([read.end, read.cursor ?? 0, read.limit]);
				walk.record(read, readListPage({ items: items(read.limit), total: 450 }, read)!);
			}
			expect(reads).toEqual([
				['back', 350, 100],
				['front', 100, 100],
				['back', 250, 100],
				['front', 200, 50],
			]);
			expect(walk.isWhole).toBe(true);
		});

		it('a back page of a list that grew is not counted: it may have slid past jobs not read yet', () => {
			const walk = new ListWalk(
				{ from: 'both_ends', maxPages: 10 },
				{ front: 100, back: 0, total: 450 },
			);
			const read = walk.next()!;
			walk.record(read, readListPage({ items: items(100), total: 451 }, read)!);
			expect(walk.position).toEqual({ front: 100, back: 0, total: 451 });
		});

		it('stops at an empty page inside the list, and when the list shrinks', () => {
			const empty = new ListWalk(
				{ from: 'both_ends', maxPages: 10 },
				{ front: 100, back: 100, total: 450 },
			);
			// Both ends read as far: the front goes first.
			const front = empty.next()!;
			expect(front.end).toBe('front');
			empty.record(front, readListPage({ items: [], total: 450 }, front)!);
			expect(empty.stop).toEqual({ reason: 'empty_page', cursor: 100 });

			const shrunk = new ListWalk(
				{ from: 'both_ends', maxPages: 10 },
				{ front: 100, back: 0, total: 450 },
			);
			const read = shrunk.next()!;
			shrunk.record(read, readListPage({ items: items(100), total: 300 }, read)!);
			expect(shrunk.stop).toEqual({ reason: 'shrank', from: 450, to: 300 });
			expect(shrunk.next()).toBeUndefined();
		});
	});

	describe('reading an answer', () => {
		const query = { limit: 100, cursor: 200 };

		it('an answer without an items array or a count total is not a page', () => {
			expect(readListPage({ total: 3 }, query)).toBeUndefined();
			expect(readListPage({ items: 'nope', total: 1 }, query)).toBeUndefined();
			expect(readListPage({ items: [], total: -1 }, query)).toBeUndefined();
			expect(readListPage({ items: [], total: 1.5 }, query)).toBeUndefined();
			expect(readListPage('<html>', query)).toBeUndefined();
		});

		it('more items than the limit asked for: the first `limit`, the rest counted as dropped', () => {
			const jobs = Array.from({ length: 250 }, (_, index) => ({ job_id: `job_${index}` }));
			const page = readListPage({ items: jobs, total: 1000 }, query)!;
			expect(page.items).toEqual(jobs.slice(0, 100));
			expect(page.dropped).toBe(150);
		});

		it('a page that contradicts its total: jobs listed past it', () => {
			const items = (count: number) => Array.from({ length: count }, () => ({}));
			const judge = (count: number, total: number) =>
				contradictsTotal(query, readListPage({ items: items(count), total }, query)!);
			expect(judge(100, 1000)).toBe(false);
			expect(judge(30, 230)).toBe(false);
			expect(judge(0, 200)).toBe(false);
			// A short or empty page inside the list is taken: the spec does not promise full pages.
			expect(judge(40, 1000)).toBe(false);
			expect(judge(0, 201)).toBe(false);
			expect(judge(31, 230)).toBe(true);
			expect(judge(1, 0)).toBe(true);
		});
	});
});

describe('503 with Retry-After (the service is full: spec 7, "temporary 5xx")', () => {
	it('waits what Retry-After asks when that is longer than the backoff', () => {
		expect(
			decideRetry(
				{ kind: 'response', status: 503, headers: { 'retry-after': '5' } },
				1,
				policy,
				NOW,
				midRandom,
			),
		).toEqual({ retry: true, delayMs: 5000, reason: 'temporary failure (HTTP 503)' });
	});

	it('keeps the backoff when Retry-After asks for less', () => {
		expect(
			decideRetry(
				{ kind: 'response', status: 503, headers: { 'retry-after': '0' } },
				3,
				policy,
				NOW,
				midRandom,
			),
		).toEqual({
			retry: true,
			delayMs: backoffDelay(3, policy, midRandom),
			reason: 'temporary failure (HTTP 503)',
		});
	});

	it('never waits longer than the backoff cap', () => {
		expect(
			decideRetry(
				{ kind: 'response', status: 503, headers: { 'retry-after': '3600' } },
				1,
				policy,
				NOW,
				midRandom,
			),
		).toEqual({ retry: true, delayMs: policy.maxDelayMs, reason: 'temporary failure (HTTP 503)' });
	});
});

describe("each attempt's deadline", () => {
	it('is the attempt timeout plus 1 s for every 32 KiB sent or received (256 kbit/s)', () => {
		expect(MIN_TRANSFER_BYTES_PER_SECOND).toBe(32 * 1024);
		expect(attemptDeadlineMs(60_000, 0)).toBe(60_000);
		expect(attemptDeadlineMs(60_000, 12)).toBe(60_001);
		expect(attemptDeadlineMs(60_000, 64 * 1024 * 1024)).toBe(60_000 + 2048_000);
		expect(attemptDeadlineMs(20_000, 1024 * 1024 * 1024)).toBe(20_000 + 32_768_000);
	});

	it('an attempt that outlived it is a network failure retried like a timeout, never as unsent', () => {
		const outcome = { kind: 'network_error' as const, error: { code: ATTEMPT_DEADLINE_CODE } };
		expect(decideRetry(outcome, 1, policy, NOW, midRandom)).toMatchObject({ retry: true });
		expect(decideRetry(outcome, 1, policy, NOW, midRandom, 'unsent')).toMatchObject({
			retry: false,
		});
	});
});

describe('answer sizes', () => {
	it('64 MiB for a transcript download that succeeded, 8 MiB for everything else', () => {
		expect(maxAnswerBytes('artifacts', 200)).toBe(64 * 1024 * 1024);
		expect(maxAnswerBytes('artifacts', 404)).toBe(8 * 1024 * 1024);
		expect(maxAnswerBytes('reads', 200)).toBe(8 * 1024 * 1024);
		expect(maxAnswerBytes('writes', 201)).toBe(MAX_JSON_ANSWER_BYTES);
		expect(MAX_ARTIFACT_BYTES).toBe(64 * 1024 * 1024);
	});

	it.each([
		[0, '0 bytes'],
		[1023, '1023 bytes'],
		[1536, '1.5 KiB'],
		[8 * 1024 * 1024, '8 MiB'],
		[256 * 1024 * 1024, '256 MiB'],
		[9.25 * 1024 * 1024, '9.3 MiB'],
		[3 * 1024 ** 3, '3 GiB'],
	])('formatBytes(%i) → %s', (bytes, text) => {
		expect(formatBytes(bytes)).toBe(text);
	});
});

describe('where the API key may go: the Base URL', () => {
	it.each([
		'https://api.transcription.example',
		'https://api.transcription.example:8443/base',
		'http://127.0.0.1:4010',
		'http://127.8.9.10',
		'http://localhost:4010',
		'http://sandbox.localhost',
		'http://[::1]:4010',
		'HTTP://LOCALHOST',
	])('%s is accepted', (baseUrl) => {
		expect(baseUrlProblem(baseUrl)).toBeUndefined();
	});

	it.each([
		'http://api.transcription.example',
		'http://10.0.0.8:4010',
		'http://192.168.1.20',
		'http://[2001:db8::1]',
		'http://127.0.0.1.nip.io',
		'http://localhost.example.com',
		'http://0.0.0.0:4010',
	])('%s is plain http to another machine: refused', (baseUrl) => {
		expect(baseUrlProblem(baseUrl)).toEqual({ kind: 'plain_http', message: PLAIN_HTTP_MESSAGE });
	});

	it.each(['', 'ftp://127.0.0.1', 'api.transcription.example', 'javascript:alert(1)'])(
		'%j is not an http(s) address',
		(baseUrl) => {
			expect(baseUrlProblem(baseUrl)?.kind).toBe('not_http');
		},
	);

	it('a user name or password in it is refused (n8n would send them in place of the key)', () => {
		expect(baseUrlProblem('https://user:secret@api.transcription.example')?.kind).toBe(
			'credentials_in_url',
		);
		expect(baseUrlProblem('http://user@127.0.0.1:4010')?.kind).toBe('credentials_in_url');
	});

	it.each([
		// The parser reads "\\" as "/": the host is evil.example, the rest a path. It was accepted until issue 30.
		['https://evil.example\\@api.transcription.example', 'misleading_text'],
		['https://api.transcription.example\\', 'misleading_text'],
		['https://api.transcription.example /v1', 'misleading_text'],
		['https://evil.example%2f@api.transcription.example', 'credentials_in_url'],
	])('%s reads as another host than the one written: refused (%s)', (baseUrl, kind) => {
		const problem = baseUrlProblem(baseUrl);
		expect(problem?.kind).toBe(kind);
		expect(problem?.message).toMatch(/^The credential's Base URL /);
	});

	it('loopback means 127.0.0.0/8, ::1 and localhost, not a name that resolves there', () => {
		expect(isLoopbackHost('127.255.255.254')).toBe(true);
		expect(isLoopbackHost('[::1]')).toBe(true);
		expect(isLoopbackHost('::ffff:127.0.0.1')).toBe(true);
		expect(isLoopbackHost('128.0.0.1')).toBe(false);
		expect(isLoopbackHost('127.0.0.256')).toBe(false);
		expect(isLoopbackHost('my-laptop')).toBe(false);
	});
});
