// Spec section 8 and the header rules of section 4: per-account fixed windows, separate buckets for
// writes, reads, artifact downloads and webhook tests, headers on success and 429, Retry-After.

import {
	api,
	createSlot,
	expectError,
	expectRateLimitHeaders,
	startRateLimitWindow,
	useSandbox,
} from '../support/sandbox/client';

const WINDOW = 60;
const handle = useSandbox({
	rateLimits: { windowSeconds: WINDOW, perTier: { premium: 30, platinum: 3 } },
});

// Each test starts at the start of a window, so its requests cannot straddle two windows.
beforeEach(async () => await startRateLimitWindow(handle.admin, WINDOW));

describe('rate-limit headers (4)', () => {
	test('a success carries limit, remaining and the reset second of the window', async () => {
		const key = handle.sandbox.keys.premium_live.key;
		const first = await api(handle.baseUrl, { path: '/api/v1/account', key });
		const second = await api(handle.baseUrl, { path: '/api/v1/account', key });
		expectRateLimitHeaders(first);
		expect(first.headers['x-ratelimit-limit']).toBe('60');
		expect(Number(second.headers['x-ratelimit-remaining'])).toBe(
			Number(first.headers['x-ratelimit-remaining']) - 1,
		);
		const reset = Number(first.headers['x-ratelimit-reset']);
		expect(reset % WINDOW).toBe(0);
		expect(reset - handle.sandbox.clock.nowSeconds()).toBeGreaterThan(0);
		expect(reset - handle.sandbox.clock.nowSeconds()).toBeLessThanOrEqual(WINDOW);
	});

	test('premium limits per bucket: writes 30, reads 60, artifacts 30, webhook tests 10', async () => {
		const key = handle.sandbox.keys.premium_live.key;
		const limitOf = async (request: Parameters<typeof api>[1]) =>
			(await api(handle.baseUrl, request)).headers['x-ratelimit-limit'];
		expect(
			await limitOf({
				path: '/api/v1/uploads',
				key,
				json: { filename: 'a.wav', content_type: 'audio/wav', size_bytes: 1 },
			}),
		).toBe('30');
		expect(await limitOf({ path: '/api/v1/transcriptions', key })).toBe('60');
		expect(await limitOf({ path: '/api/v1/transcriptions/job_x/artifact', key })).toBe('30');
		expect(
			await limitOf({
				path: '/api/v1/webhooks/test',
				key,
				json: { webhook_url: 'https://hook.invalid/' },
			}),
		).toBe('10');
	});
});

describe('429 rate_limit_exceeded (8)', () => {
	test('the request after the limit is 429 with Retry-After; the next window admits again', async () => {
		const { key, account_id } = await handle.admin.createKey({ tier: 'platinum' });
		for (let index = 0; index < 3; index += 1) {
			await createSlot(handle.baseUrl, key, { filename: 'a.wav', size_bytes: 1 });
		}
		const limited = await api(handle.baseUrl, {
			path: '/api/v1/uploads',
			key,
			json: { filename: 'a.wav', content_type: 'audio/wav', size_bytes: 1 },
		});
		const error = expectError(limited, 429, 'rate_limit_exceeded');
		expect(limited.headers['x-ratelimit-limit']).toBe('3');
		expect(limited.headers['x-ratelimit-remaining']).toBe('0');
		const reset = Number(limited.headers['x-ratelimit-reset']);
		const retryAfter = Number(limited.headers['retry-after']);
		expect(retryAfter).toBeGreaterThanOrEqual(1);
		expect(retryAfter).toBeLessThanOrEqual(WINDOW);
		expect(Math.abs(reset - handle.sandbox.clock.nowSeconds() - retryAfter)).toBeLessThanOrEqual(1);
		expect(error.details).toMatchObject({ limit: 3, reset });
		expect((await handle.admin.records(account_id)).counts.uploads).toBe(3);

		// Other buckets and other accounts are untouched.
		expect((await api(handle.baseUrl, { path: '/api/v1/account', key })).status).toBe(200);
		expect(
			(
				await createSlot(handle.baseUrl, handle.sandbox.keys.platinum_live.key, {
					filename: 'b.wav',
					size_bytes: 1,
				})
			).upload_id,
		).toMatch(/^upl_/);

		await handle.admin.advanceClock(retryAfter);
		expect(
			(await createSlot(handle.baseUrl, key, { filename: 'a.wav', size_bytes: 1 })).upload_id,
		).toMatch(/^upl_/);
	});

	test('GET /account and GET /transcriptions/{job_id} draw from one reads bucket', async () => {
		const { key } = await handle.admin.createKey({ tier: 'platinum' });
		const first = await api(handle.baseUrl, { path: '/api/v1/account', key });
		const second = await api(handle.baseUrl, { path: '/api/v1/transcriptions/job_x', key });
		expect(Number(second.headers['x-ratelimit-remaining'])).toBe(
			Number(first.headers['x-ratelimit-remaining']) - 1,
		);
	});

	test('the admin API changes limits at run time', async () => {
		const { key } = await handle.admin.createKey({ tier: 'premium' });
		const effective = await handle.admin.setRateLimits({
			perTier: { premium: 1 },
			readsMultiplier: 1,
		});
		expect(effective).toMatchObject({
			windowSeconds: WINDOW,
			perTier: { premium: 1, platinum: 3 },
			readsMultiplier: 1,
		});
		expect((await api(handle.baseUrl, { path: '/api/v1/account', key })).status).toBe(200);
		expectError(
			await api(handle.baseUrl, { path: '/api/v1/account', key }),
			429,
			'rate_limit_exceeded',
		);
		await handle.admin.setRateLimits({ perTier: { premium: 30 }, readsMultiplier: 2 });
	});

	test('documents and the admin API are not rate limited', async () => {
		await handle.admin.setRateLimits({ perTier: { platinum: 1 }, readsMultiplier: 1 });
		for (let index = 0; index < 5; index += 1) {
			const response = await api(handle.baseUrl, { path: '/api/v1/openapi.json', key: null });
			expect(response.status).toBe(200);
			expect(response.headers['x-ratelimit-limit']).toBeUndefined();
			await handle.admin.clock();
		}
		await handle.admin.setRateLimits({ perTier: { platinum: 3 }, readsMultiplier: 2 });
	});
});
