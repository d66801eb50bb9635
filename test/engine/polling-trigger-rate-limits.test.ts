// Rate limits reached during a poll of the Transcription Service Polling Trigger (n8n-core's PollContext against
// the sandbox): a short window is waited out within the poll; a longer one ends the poll, and the next poll goes on
// from where it stopped, losing nothing. Its own sandbox, whose clock is never moved: the node's rate-limit pacer
// reads X-RateLimit-Reset against this machine's clock.
import type { INodeExecutionData } from 'n8n-workflow';

import { GENEROUS_LIMITS } from '../support/sandbox/client';
import { startRecordingProxy, type Exchange } from '../support/engine/harness';
import { PollingTriggerUnderTest } from '../support/engine/polling-harness';
import { useEngineSandbox } from '../support/engine/engine-sandbox';

const env = useEngineSandbox({ recordExchanges: true, rateLimits: GENEROUS_LIMITS });

function jobIds(items: INodeExecutionData[]): string[] {
	return items.map((item) => String(item.json.job_id));
}

function isListRequest(url: string): boolean {
	return /^\/api\/v1\/transcriptions\?/.test(url);
}

function listRequests(): number {
	return env.proxy.exchanges.filter((exchange) => isListRequest(exchange.url)).length;
}

/**
 * Activation, then a pause of a few seconds: jobs that finish within a second or two of the first activation are
 * told apart by the count alone (covered in polling-trigger.test.ts and the unit tier).
 */
async function activate(trigger: PollingTriggerUnderTest): Promise<void> {
	await trigger.activate();
	await new Promise((resolve) => setTimeout(resolve, 2500));
}

async function drain(trigger: PollingTriggerUnderTest): Promise<void> {
	for (let poll = 0; poll < 20; poll++) {
		if ((await trigger.poll()) === null) return;
	}
	throw new Error('Still emitting after 20 polls');
}

describe('rate limits during a poll', () => {
	test('a short window: the poll waits for it and finishes', async () => {
		const { accountId, key, credentials } = await env.newAccount();
		await env.admin.seedJobs({ account_id: accountId, count: 500 });
		const trigger = await PollingTriggerUnderTest.start({ credentials });
		await activate(trigger);
		const longJob = await env.liveJob(key);
		await env.admin.holdJob(longJob);
		await env.admin.seedJobs({ account_id: accountId, count: 300 });
		await drain(trigger);
		await env.admin.completeJob(longJob);
		// Two reads per 2-second window: the search of several pages has to wait for new windows.
		await env.admin.setRateLimits({
			windowSeconds: 2,
			perTier: { platinum: 2 },
			readsMultiplier: 1,
		});
		env.proxy.exchanges.length = 0;
		try {
			const items = await trigger.poll();
			expect(jobIds(items ?? [])).toEqual([longJob]);
			// More pages than three windows allow, all answered: the poll waited for the windows to reopen.
			expect(listRequests()).toBeGreaterThan(6);
			expect(env.proxy.exchanges.every((exchange) => exchange.status === 200)).toBe(true);
		} finally {
			await env.admin.setRateLimits({ windowSeconds: 60, ...GENEROUS_LIMITS, readsMultiplier: 2 });
			// The pacer of this process remembers the small window until it ends.
			await new Promise((resolve) => setTimeout(resolve, 2500));
		}
	});

	test('a window longer than a poll waits: the poll stops, the next one goes on, nothing lost', async () => {
		const { accountId, key } = await env.newAccount();
		await env.admin.seedJobs({ account_id: accountId, count: 800 });
		const limiter = await startRateLimitProxy(env.nodeBaseUrl);
		try {
			const trigger = await PollingTriggerUnderTest.start({
				credentials: { apiKey: key, baseUrl: limiter.baseUrl },
			});
			await activate(trigger);
			const longJob = await env.liveJob(key);
			await env.admin.holdJob(longJob);
			const newer = await env.admin.seedJobs({ account_id: accountId, count: 150 });
			await drain(trigger);
			await env.admin.completeJob(longJob);

			// The third list request of the next poll is answered 429 with a minute to wait.
			limiter.refuseListRequest(limiter.listRequests + 3);
			expect(await trigger.poll()).toBeNull();
			expect(limiter.refused).toBe(1);
			expect(trigger.errors).toEqual([]);
			await trigger.poll();

			const emitted = jobIds(trigger.items());
			expect([...emitted].sort()).toEqual([...newer.job_ids, longJob].sort());
		} finally {
			await limiter.close();
		}
	});
});

/** A recording proxy in front of the node's target that answers one chosen list request 429 with a minute to wait. */
async function startRateLimitProxy(targetBaseUrl: string) {
	const requestId = 'req_proxy_429';
	let refuseAt = -1;
	const listRequestsIn = (exchanges: readonly Exchange[]) =>
		exchanges.filter((exchange) => isListRequest(exchange.url)).length;
	const proxy = await startRecordingProxy(targetBaseUrl, (incoming, exchanges) => {
		if (!isListRequest(incoming.url ?? '') || listRequestsIn(exchanges) !== refuseAt)
			return undefined;
		return {
			status: 429,
			// Retry-After says a minute, more than a poll waits; the window itself reopens in a second.
			headers: {
				'content-type': 'application/json',
				'retry-after': '60',
				'x-ratelimit-limit': '120',
				'x-ratelimit-remaining': '0',
				'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 1),
				'x-request-id': requestId,
			},
			body: JSON.stringify({
				error: {
					code: 'rate_limit_exceeded',
					message: 'Request limit exceeded for the current window.',
					request_id: requestId,
					details: {},
				},
			}),
		};
	});
	return {
		baseUrl: proxy.baseUrl,
		get listRequests() {
			return listRequestsIn(proxy.exchanges);
		},
		get refused() {
			return proxy.exchanges.filter(
				(exchange) => exchange.responseHeaders['x-request-id'] === requestId,
			).length;
		},
		refuseListRequest(index: number) {
			refuseAt = index;
		},
		close: () => proxy.close(),
	};
}
