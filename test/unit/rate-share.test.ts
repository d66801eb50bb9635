// The Polling Trigger's share of an account's rate limits (src/client/rate-share.ts), read from the X-RateLimit-*
// headers of spec 4 and 8: each window it takes only what leaves the rest of the account 1 − share of the limit,
// whoever spends it, reads the window's end against the service's Date, and ignores answers from a window that ended.
import { RateShare } from '../../src/client';

const T0 = Date.UTC(2026, 10, 28, 12, 0, 0);

/** The headers of an answer in a window ending `resetInS` seconds after `serviceNowMs`. */
function headers(limit: number, remaining: number, serviceNowMs: number, resetInS: number) {
	return {
		'x-ratelimit-limit': String(limit),
		'x-ratelimit-remaining': String(remaining),
		'x-ratelimit-reset': String(Math.floor(serviceNowMs / 1000) + resetInS),
	};
}

describe('RateShare', () => {
	test('before any answer it allows what it is told for that bucket, one request where told nothing', () => {
		const share = new RateShare({ share: 0.5, unknown: { reads: 10 } });
		expect(share.available('reads', T0)).toBe(10);
		expect(share.available('artifacts', T0)).toBe(1);
		share.sent('artifacts');
		expect(share.available('artifacts', T0)).toBe(0);
		expect(share.windowEndsAt('reads')).toBeUndefined();
		expect(share.perWindow('reads')).toBeUndefined();
	});

	test.each([
		[0.5, 60, 30],
		[0.5, 120, 60],
		[0.5, 3, 1],
		[1, 60, 60],
		[0.01, 60, 0],
		[0.34, 30, 10],
	])('a share of %f of a limit of %i is %i requests a window', (fraction, limit, perWindow) => {
		const share = new RateShare({ share: fraction, unknown: {} });
		share.sent('artifacts');
		share.answered('artifacts', headers(limit, limit - 1, T0, 60), T0, T0);
		expect(share.perWindow('artifacts')).toBe(perWindow);
		// One of them spent already.
		expect(share.available('artifacts', T0)).toBe(Math.max(0, perWindow - 1));
	});

	test('it leaves the rest of the account its part however the account spends it', () => {
		const share = new RateShare({ share: 0.5, unknown: {} });
		share.sent('reads');
		share.answered('reads', headers(120, 119, T0, 60), T0, T0);
		expect(share.available('reads', T0)).toBe(59);
		// Others spent 50 meanwhile: the account has 69 left, 60 of which are theirs.
		share.sent('reads');
		share.answered('reads', headers(120, 69, T0, 60), T0 + 1000, T0);
		expect(share.available('reads', T0 + 1000)).toBe(9);
		// An answer that was on its way before (a higher count, the same window) changes nothing.
		share.sent('reads');
		share.answered('reads', headers(120, 100, T0, 60), T0 + 1200, T0);
		expect(share.available('reads', T0 + 1200)).toBe(9);
	});

	test('what the caller needs at least is taken whatever the share, the whole limit at most', () => {
		const share = new RateShare({ share: 0.1, unknown: {}, minimum: { reads: 3 } });
		share.sent('reads');
		share.answered('reads', headers(10, 10, T0, 60), T0, T0);
		expect(share.perWindow('reads')).toBe(3);
		const tiny = new RateShare({ share: 0.5, unknown: {}, minimum: { reads: 3 } });
		tiny.sent('reads');
		tiny.answered('reads', headers(2, 2, T0, 60), T0, T0);
		expect(tiny.perWindow('reads')).toBe(2);
		// Another bucket keeps to the share.
		expect(
			new RateShare({ share: 0.1, unknown: {}, minimum: { reads: 3 } }).perWindow('artifacts'),
		).toBe(undefined);
	});

	test('requests in flight count until answered', () => {
		const share = new RateShare({ share: 0.5, unknown: {} });
		share.sent('reads');
		share.answered('reads', headers(10, 9, T0, 60), T0, T0);
		expect(share.available('reads', T0)).toBe(4);
		share.sent('reads');
		share.sent('reads');
		expect(share.available('reads', T0)).toBe(2);
		share.answered('reads', undefined, T0);
		expect(share.available('reads', T0)).toBe(3);
	});

	test("the window ends when X-RateLimit-Reset says on the service's clock, wherever this machine's stands", () => {
		const share = new RateShare({ share: 0.5, unknown: {} });
		const serviceNow = T0 + 3 * 3600_000 + 400;
		share.sent('artifacts');
		share.answered('artifacts', headers(60, 30, serviceNow, 20), T0, serviceNow);
		// 20 s after the Date's second, less the 0.4 s this answer came into it, plus the margin: at most a second late.
		const endsAt = share.windowEndsAt('artifacts')!;
		expect(endsAt - T0).toBeGreaterThanOrEqual(19_600);
		expect(endsAt - T0).toBeLessThanOrEqual(20_250);
		expect(share.available('artifacts', T0 + 10_000)).toBe(0);
		// After it the account has its whole limit again, until an answer says otherwise.
		expect(share.available('artifacts', endsAt)).toBe(30);
		// Without a Date the machine's clock is the service's.
		const local = new RateShare({ share: 0.5, unknown: {} });
		local.sent('reads');
		local.answered('reads', headers(60, 59, T0, 20), T0);
		expect(local.windowEndsAt('reads')! - T0).toBe(20_250);
	});

	test('a new window starts the count afresh; an answer of the window before is older news', () => {
		const share = new RateShare({ share: 0.5, unknown: {} });
		share.sent('reads');
		share.answered('reads', headers(60, 0, T0, 1), T0, T0);
		expect(share.available('reads', T0)).toBe(0);
		share.sent('reads');
		share.answered('reads', headers(60, 59, T0 + 1000, 60), T0 + 1000, T0 + 1000);
		expect(share.available('reads', T0 + 1000)).toBe(29);
		share.sent('reads');
		share.answered('reads', headers(60, 0, T0, 1), T0 + 1100, T0);
		expect(share.available('reads', T0 + 1100)).toBe(29);
	});

	test('a limit that changes (a new plan) is taken at once; answers without the headers change nothing', () => {
		const share = new RateShare({ share: 0.5, unknown: {} });
		share.sent('reads');
		share.answered('reads', headers(60, 59, T0, 60), T0, T0);
		share.sent('reads');
		share.answered('reads', headers(120, 118, T0, 60), T0, T0);
		expect(share.perWindow('reads')).toBe(60);
		expect(share.available('reads', T0)).toBe(58);
		share.sent('reads');
		share.answered('reads', { 'x-ratelimit-limit': 'many' }, T0);
		expect(share.available('reads', T0)).toBe(58);
	});

	test('a share outside (0, 1] is refused', () => {
		expect(() => new RateShare({ share: 0, unknown: {} })).toThrow(RangeError);
		expect(() => new RateShare({ share: 1.5, unknown: {} })).toThrow(RangeError);
	});
});
