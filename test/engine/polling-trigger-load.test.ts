// The Transcription Service Polling Trigger's real poll() in n8n-core's PollContext against the sandbox, under load:
// more jobs ending than a poll emits (it may slow down, it never drops a job), and a first activation on an account
// where jobs keep ending while a poll reads the list.
import type { INodeExecutionData } from 'n8n-workflow';

import { GENEROUS_LIMITS } from '../support/sandbox/client';
import { PollingTriggerUnderTest, startListGate } from '../support/engine/polling-harness';
import { useEngineSandbox } from '../support/engine/engine-sandbox';

const env = useEngineSandbox({ rateLimits: GENEROUS_LIMITS });
const MINUTE_SECONDS = 60;

function jobIds(items: INodeExecutionData[]): string[] {
	return items.map((item) => String(item.json.job_id));
}

/** Each id once, and none else. */
function expectEachOnce(items: INodeExecutionData[], ended: Iterable<string>): void {
	const emitted = jobIds(items);
	expect(emitted.length).toBe(new Set(emitted).size);
	expect(new Set(emitted)).toEqual(new Set(ended));
}

/** The sandbox's clock moves on by `seconds`, to `phaseMs` into a second of its clock. */
function advanceTo(seconds: number, phaseMs: number): void {
	const clock = env.sandbox.clock;
	clock.advance((seconds * 1000 + 1000 + phaseMs - (clock.now() % 1000)) / 1000);
}

describe('more jobs ending than a poll emits', () => {
	test('a burst of 10,000 within 30 minutes: each emitted once, static data within its bounds all along', async () => {
		const { accountId, credentials } = await env.newAccount();
		await env.admin.seedJobs({ account_id: accountId, count: 250 });
		await env.admin.advanceClock(3600);
		const trigger = await PollingTriggerUnderTest.start({ credentials });
		await trigger.activate();
		await env.admin.advanceClock(5);

		const ended = new Set<string>();
		let largest = 0;
		const poll = async () => {
			await env.admin.advanceClock(MINUTE_SECONDS);
			const items = await trigger.poll();
			largest = Math.max(largest, JSON.stringify(trigger.storedStaticData).length);
			return items;
		};
		for (let minute = 0; minute < 30; minute++) {
			const count = Math.floor((10_000 * (minute + 1)) / 30) - Math.floor((10_000 * minute) / 30);
			for (const [status, share] of [
				['completed', count - Math.floor(count / 4)],
				['failed', Math.floor(count / 4)],
			] as const) {
				const { job_ids } = await env.admin.seedJobs({
					account_id: accountId,
					count: share,
					status,
				});
				for (const jobId of job_ids) ended.add(jobId);
			}
			await poll();
		}
		for (let polls = 0, quiet = 0; polls < 200 && quiet < 2; polls++) {
			const items = await poll();
			quiet = items === null && trigger.items().length >= ended.size ? quiet + 1 : 0;
		}

		expectEachOnce(trigger.items(), ended);
		expect(trigger.errors).toEqual([]);
		// state.ts: at most ~300 KB per account with the sandbox's ids.
		expect(largest).toBeLessThan(300 * 1024);
	});
});

describe('the first activation on a busy account', () => {
	test('a job ends during every poll’s paging: a job that ended just after the activation’s second is emitted, the ones just before and within it are not, every other job once', async () => {
		const { accountId, key } = await env.newAccount();
		// Created first, so deep in the list, beyond the page the activation reads.
		const [before, sameSecond, after] = [
			await env.liveJob(key),
			await env.liveJob(key),
			await env.liveJob(key),
		];
		for (const job of [before, sameSecond, after]) await env.admin.holdJob(job);
		await env.admin.seedJobs({ account_id: accountId, count: 600 });
		const { job_ids: running } = await env.admin.seedJobs({
			account_id: accountId,
			count: 40,
			status: 'processing',
			held: true,
		});
		const ended = [after];
		let endOne = false;
		// Before the first search page of a poll, one more job ends: tens of milliseconds after the first page.
		const gate = await startListGate(env.nodeBaseUrl, async ({ cursor }) => {
			if (!endOne || cursor === 0) return;
			endOne = false;
			const job = running[ended.length - 1];
			await env.admin.completeJob(job);
			ended.push(job);
		});
		try {
			const trigger = await PollingTriggerUnderTest.start({
				parameters: { events: ['transcription.completed'] },
				credentials: { apiKey: key, baseUrl: gate.baseUrl },
			});
			advanceTo(MINUTE_SECONDS, 300);
			await env.admin.completeJob(before);
			await trigger.activate();
			await env.admin.completeJob(sameSecond);
			advanceTo(0, 20);
			await env.admin.completeJob(after);

			for (let poll = 0; poll < 25; poll++) {
				advanceTo(MINUTE_SECONDS, 50);
				endOne = true;
				await trigger.poll();
			}
			endOne = false;
			const emittedAll = () => ended.every((job) => jobIds(trigger.items()).includes(job));
			for (let poll = 0; poll < 20 && !emittedAll(); poll++) {
				await env.admin.advanceClock(MINUTE_SECONDS);
				await trigger.poll();
			}
			for (let poll = 0; poll < 2; poll++) {
				await env.admin.advanceClock(MINUTE_SECONDS);
				expect(await trigger.poll()).toBeNull();
			}

			expectEachOnce(trigger.items(), ended);
			expect(jobIds(trigger.items())).not.toContain(before);
			expect(jobIds(trigger.items())).not.toContain(sameSecond);
			expect(trigger.errors).toEqual([]);
		} finally {
			await gate.close();
		}
	});
});
