// The Job field's From List (listSearch.searchJobs) inside n8n's engine, against the sandbox: the editor's search run
// the way n8n runs it (n8n-core's LoadOptionsContext for a node that is being edited), page by page over
// GET /transcriptions. Its use in executions: job-locator.test.ts.
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { startRateLimitWindow } from '../support/sandbox/client';
import { useControlledClock } from '../support/clock/controlled-clock';
import { useEngineSandbox } from '../support/engine/engine-sandbox';
import {
	allPages,
	expectedLabel,
	jobSetup,
	searchJobs,
	type Job,
} from '../support/engine/job-list';

const clock = useControlledClock();
const env = useEngineSandbox({
	clock,
	recordExchanges: true,
	jobSeconds: 5,
	// Setting up hundreds of jobs takes more writes than a platinum minute allows.
	rateLimits: { perTier: { premium: 100_000, platinum: 100_000 } },
});
const { createJob, accountWithJobs } = jobSetup(env);

const listRequests = () =>
	env.proxy.exchanges.filter((exchange) => exchange.url.startsWith('/api/v1/transcriptions?'));

describe('Job → From List (listSearch.searchJobs, GET /transcriptions)', () => {
	let big: Awaited<ReturnType<typeof accountWithJobs>>;
	let hebrew: Job;
	let failed: Job;

	beforeAll(async () => {
		// 601 jobs: more than the 500 one search reads, and a last page of one.
		big = await accountWithJobs(599);
		hebrew = await createJob(big.credentials.apiKey, 'ראיון עם דנה.wav');
		const liveKey = await env.admin.createKey({ mode: 'live', account_id: big.accountId });
		const live = await createJob(liveKey.key);
		failed = { ...live, ...(await env.admin.failJob(live.job_id)) };
	}, 120_000);

	test("the first page: the service's first 100 jobs, newest first, labelled with time, status, duration, language and job_id", async () => {
		const page = await searchJobs(big.credentials);
		expect(page.results).toHaveLength(100);
		expect(page.paginationToken).toBe('100');
		const newest = [...big.jobs, hebrew, failed].reverse();
		expect(page.results.map((result) => result.value)).toEqual(
			newest.slice(0, 100).map((job) => job.job_id),
		);
		const byId = new Map(page.results.map((result) => [result.value, result.name]));
		expect(byId.get(hebrew.job_id)).toBe(expectedLabel(hebrew, '15 s · Hebrew'));
		// A failed live job has no transcript: no duration, no language.
		expect(byId.get(failed.job_id)).toBe(
			`${failed.created_at.slice(0, 16).replace('T', ' ')} UTC · failed · ${failed.job_id}`,
		);
		const plain = big.jobs[big.jobs.length - 1];
		expect(byId.get(plain.job_id)).toBe(expectedLabel(plain));
		expect(page.results.every((result) => result.url === undefined)).toBe(true);
		expect(listRequests().map((exchange) => exchange.url)).toEqual([
			'/api/v1/transcriptions?limit=100&cursor=0',
		]);
	});

	test('scrolling follows the cursor: every job exactly once, one request per page of 100, the last page without a token', async () => {
		const pages = await allPages(big.credentials);
		expect(pages.map((page) => page.results.length)).toEqual([100, 100, 100, 100, 100, 100, 1]);
		expect(pages.map((page) => page.paginationToken)).toEqual([
			'100',
			'200',
			'300',
			'400',
			'500',
			'600',
			undefined,
		]);
		const listed = pages.flatMap((page) => page.results.map((result) => result.value));
		expect(new Set(listed).size).toBe(601);
		expect(new Set(listed)).toEqual(
			new Set([...big.jobs, hebrew, failed].map((job) => job.job_id)),
		);
		expect(listRequests()).toHaveLength(7);
	});

	test('search matches job_id, status, language, created time, and every word given', async () => {
		const target = big.jobs[550];
		const byId = await searchJobs(big.credentials, target.job_id.slice(-10).toUpperCase());
		expect(byId.results).toEqual([{ name: expectedLabel(target), value: target.job_id }]);

		const byStatus = await searchJobs(big.credentials, 'failed');
		expect(byStatus.results.map((result) => result.value)).toEqual([failed.job_id]);

		const byLanguage = await searchJobs(big.credentials, 'hebrew');
		expect(byLanguage.results.map((result) => result.value)).toEqual([hebrew.job_id]);
		expect((await searchJobs(big.credentials, 'he-IL')).results).toHaveLength(1);

		const both = await searchJobs(big.credentials, 'completed  Hebrew');
		expect(both.results.map((result) => result.value)).toEqual([hebrew.job_id]);
		expect((await searchJobs(big.credentials, 'failed hebrew')).results).toEqual([]);

		const minute = hebrew.created_at.slice(0, 16).replace('T', ' ');
		expect((await searchJobs(big.credentials, minute)).results.map((r) => r.value)).toContain(
			hebrew.job_id,
		);
	});

	test('one search reads at most 500 jobs (5 requests) and hands back where it stopped; a job past them is found on the next page', async () => {
		const oldest = big.jobs[0];
		const first = await searchJobs(big.credentials, oldest.job_id);
		expect(first.results).toEqual([]);
		expect(first.paginationToken).toBe('500');
		expect(listRequests().map((exchange) => exchange.url)).toEqual(
			[0, 100, 200, 300, 400].map((cursor) => `/api/v1/transcriptions?limit=100&cursor=${cursor}`),
		);
		const second = await searchJobs(big.credentials, oldest.job_id, '500');
		expect(second.results).toEqual([{ name: expectedLabel(oldest), value: oldest.job_id }]);
		expect(second.paginationToken).toBeUndefined();
		expect(listRequests()).toHaveLength(7);
	});

	test('a search stops reading once it has a page of matches, and continues from there on scrolling', async () => {
		// The first page has 98 English jobs (one Hebrew, one failed), so the second page is read too.
		const first = await searchJobs(big.credentials, 'english');
		expect(first.results).toHaveLength(198);
		expect(first.paginationToken).toBe('200');
		expect(listRequests()).toHaveLength(2);
	});

	test('an empty account: no jobs, no token', async () => {
		const key = await env.admin.createKey({ mode: 'live' });
		expect(await searchJobs(env.credentials(key.key))).toEqual({ results: [] });
		expect(await searchJobs(env.credentials(key.key), 'anything')).toEqual({ results: [] });
	});

	test("a revoked key: the API's 401 as a NodeApiError, which the editor shows with its code and a link to the credential", async () => {
		const key = await env.admin.createKey({ mode: 'live' });
		await env.admin.revokeKey(key.key);
		const error = await searchJobs(env.credentials(key.key)).then(
			() => undefined,
			(thrown: unknown) => thrown,
		);
		expect(error).toBeInstanceOf(NodeApiError);
		const apiError = error as NodeApiError;
		expect(apiError.httpCode).toBe('401');
		expect(apiError.description).toMatch(/^Error code: invalid_api_key · Request ID: req_/);
		// 401 is never repeated.
		expect(listRequests()).toHaveLength(1);
	});

	test('a key without a known prefix is refused before any request, naming both prefixes', async () => {
		const error = await searchJobs(env.credentials('sk_live_typo')).then(
			() => undefined,
			(thrown: unknown) => thrown,
		);
		expect(error).toBeInstanceOf(NodeOperationError);
		expect((error as NodeOperationError).message).toBe(
			"The credential's API Key has no known prefix",
		);
		expect(listRequests()).toHaveLength(0);
	});

	test('a spent read budget is reported at once (rate_limit_exceeded, with when it resets), not waited out', async () => {
		const key = await env.admin.createKey({ mode: 'test', tier: 'premium' });
		const credentials = env.credentials(key.key);
		await env.admin.setRateLimits({
			windowSeconds: 600,
			perTier: { premium: 1, platinum: 100_000 },
		});
		await startRateLimitWindow(env.admin, 600);
		try {
			// Reads are twice the tier: two lists, then the window is spent for ten minutes.
			await searchJobs(credentials);
			await searchJobs(credentials);
			const started = Date.now();
			const error = await searchJobs(credentials).then(
				() => undefined,
				(thrown: unknown) => thrown,
			);
			expect(Date.now() - started).toBeLessThan(5_000);
			expect(error).toBeInstanceOf(NodeApiError);
			expect((error as NodeApiError).message).toMatch(/rate limit/i);
			expect((error as NodeApiError).description).toMatch(/^Error code: rate_limit_exceeded/);
		} finally {
			await env.admin.setRateLimits({
				windowSeconds: 60,
				perTier: { premium: 100_000, platinum: 100_000 },
			});
		}
	});

	test('a page token it did not hand out is refused', async () => {
		await expect(searchJobs(big.credentials, undefined, '../account')).rejects.toThrow(
			'Unknown page of the job list: "../account"',
		);
		expect(listRequests()).toHaveLength(0);
	});
});
