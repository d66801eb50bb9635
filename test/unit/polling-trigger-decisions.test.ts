// The polling trigger's decisions (nodes/TranscriptionServicePollingTrigger/session.ts), driven against a model of
// GET /transcriptions in every list order: each job that ends is emitted exactly once, while the list changes under
// a poll, across restarts and interruptions, and in random model runs. Beside it, by rule: the first activation, its
// zone, bounded work, answers that are not a usable list, stored state and Fetch Test Event
// (polling-trigger-*.test.ts).
import { OVERLAP_MS } from '../../nodes/TranscriptionServicePollingTrigger/cutoff';
import { type PollState } from '../../nodes/TranscriptionServicePollingTrigger/state';
import { mulberry32 } from '../../sandbox/random';
import { LIST_PAGE_SIZE as PAGE_SIZE } from '../../src/client';
import {
	activatedOverAFullList,
	clone,
	keys,
	MINUTE,
	SIM_ORDERS,
	SimService,
	SimTrigger,
	sorted,
} from '../support/fixtures/polling-sim';

describe.each(SIM_ORDERS)('list order %s', (order) => {
	describe('each job exactly once', () => {
		test('jobs completing in and out of creation order, over several polls', () => {
			const service = new SimService(order);
			for (const job of service.create(220)) service.finish(job, 'completed');
			service.advance(MINUTE);
			const trigger = new SimTrigger(service);
			trigger.activate();
			const jobs = service.create(40);
			const random = mulberry32(7);
			const completionOrder = [...jobs].sort(() => random() - 0.5);
			for (const [index, job] of completionOrder.entries()) {
				service.advance(2_000);
				service.finish(job, 'completed');
				if (index % 7 === 0) trigger.poll();
			}
			service.advance(MINUTE);
			trigger.pollUntilSettled();
			expect(sorted(trigger.emittedKeys())).toEqual(sorted(keys(jobs, 'completed')));
			expect(new Set(trigger.emittedKeys()).size).toBe(trigger.emitted.length);
		});

		test('a job that completes after 100 newer ones were created and completed', () => {
			const service = new SimService(order);
			for (const job of service.create(500)) service.finish(job, 'completed');
			service.advance(MINUTE);
			const trigger = new SimTrigger(service);
			trigger.activate();
			const [longJob] = service.create(1);
			const newer = service.create(100);
			for (const job of newer) {
				service.advance(500);
				service.finish(job, 'completed');
			}
			trigger.poll();
			service.advance(10 * MINUTE);
			service.finish(longJob, 'completed');
			service.advance(MINUTE);

			const [found] = trigger.pollUntilSettled();
			expect(sorted(trigger.emittedKeys())).toEqual(sorted(keys([...newer, longJob], 'completed')));
			// Found within the poll that followed its completion, inside the request bound.
			expect(found.emit.map((job) => job.job_id)).toEqual([longJob.job_id]);
			expect(found.requests).toBeLessThanOrEqual(10);
		});

		test('a job that completes after 5,000 newer ones on a 10,000-job account: found within the bound, over polls', () => {
			const service = new SimService(order);
			for (const job of service.create(5000)) service.finish(job, 'completed');
			const [longJob] = service.create(1);
			for (const job of service.create(5000)) service.finish(job, 'completed');
			service.advance(MINUTE);
			const trigger = new SimTrigger(service);
			trigger.activate();
			service.advance(MINUTE);
			service.finish(longJob, 'completed');

			const runs: number[] = [];
			for (let poll = 0; poll < 20 && trigger.emitted.length === 0; poll++) {
				service.advance(MINUTE);
				runs.push(trigger.poll().requests);
			}
			expect(trigger.emittedKeys()).toEqual([`completed:${longJob.job_id}`]);
			expect(Math.max(...runs)).toBeLessThanOrEqual(10);
			// 101 pages, read from both ends 8 at a time after the two first pages: at most 13 polls.
			expect(runs.length).toBeLessThanOrEqual(Math.ceil(10_001 / PAGE_SIZE / 8) + 1);
			service.advance(MINUTE);
			expect(trigger.poll().requests).toBe(2);
		});

		test('failed and cancelled jobs are emitted only when selected, each with its status', () => {
			const service = new SimService(order);
			for (const job of service.create(120)) service.finish(job, 'failed');
			service.advance(MINUTE);
			const trigger = new SimTrigger(service, { statuses: ['failed', 'cancelled'] });
			trigger.activate();
			const [completed, failed, cancelled] = service.create(3);
			service.advance(MINUTE);
			service.finish(completed, 'completed');
			service.finish(failed, 'failed');
			service.finish(cancelled, 'cancelled');
			service.advance(MINUTE);
			trigger.pollUntilSettled();
			expect(sorted(trigger.emittedKeys())).toEqual(
				sorted([`failed:${failed.job_id}`, `cancelled:${cancelled.job_id}`]),
			);
		});

		test('a status selected later starts from now for that status', () => {
			const service = new SimService(order);
			const trigger = new SimTrigger(service, { statuses: ['completed'] });
			trigger.activate();
			const [failedBefore, failedAfter] = service.create(2);
			service.advance(MINUTE);
			service.finish(failedBefore, 'failed');
			service.advance(MINUTE);
			trigger.poll();
			// The workflow is edited: Transcription Failed added; n8n reactivates it.
			trigger.reconfigure({ statuses: ['completed', 'failed'] });
			trigger.activate();
			service.advance(MINUTE);
			service.finish(failedAfter, 'failed');
			service.advance(MINUTE);
			trigger.pollUntilSettled();
			expect(trigger.emittedKeys()).toEqual([`failed:${failedAfter.job_id}`]);
		});
	});

	describe('the list changes between two page requests of one poll', () => {
		test('jobs finishing while a poll reads pages are emitted once, none lost', () => {
			const service = new SimService(order);
			for (const job of service.create(700)) service.finish(job, 'completed');
			service.advance(MINUTE);
			const trigger = new SimTrigger(service, { maxRequests: 6 });
			trigger.activate();
			const running = service.create(60);
			// A long job finishes first, so the next poll has to search beyond the first page.
			service.advance(MINUTE);
			service.finish(running[0], 'completed');
			let next = 1;
			service.beforeRequest = () => {
				// Between every two page requests, two more jobs move into status=completed.
				for (let count = 0; count < 2 && next < running.length; count++) {
					service.advance(50);
					service.finish(running[next++], 'completed');
				}
			};
			for (let poll = 0; poll < 30 && next < running.length; poll++) {
				service.advance(MINUTE);
				trigger.poll();
			}
			service.beforeRequest = undefined;
			service.advance(MINUTE);
			trigger.pollUntilSettled();
			expect(sorted(trigger.emittedKeys())).toEqual(sorted(keys(running, 'completed')));
			expect(trigger.polls.every((run) => run.requests <= 6)).toBe(true);
		});

		test('a job leaving status=processing for status=completed mid-poll is neither lost nor doubled', () => {
			const service = new SimService(order);
			const [oldest] = service.create(1);
			for (const job of service.create(300)) service.finish(job, 'completed');
			const running = service.create(150);
			service.advance(MINUTE);
			const trigger = new SimTrigger(service);
			trigger.activate();
			service.advance(MINUTE);
			// One at each end of the creation order, so some page beyond the first is read in every order but one.
			service.finish(oldest, 'completed');
			service.finish(running[149], 'completed');
			const finished = [oldest, running[149]];
			service.beforeRequest = (request) => {
				if (request.kind === 'first_page' || finished.length > 2) return;
				service.advance(10);
				service.finish(running[0], 'completed');
				finished.push(running[0]);
			};
			service.advance(MINUTE);
			trigger.poll();
			service.beforeRequest = undefined;
			service.advance(MINUTE);
			trigger.pollUntilSettled();
			expect(sorted(trigger.emittedKeys())).toEqual(sorted(keys(finished, 'completed')));
		});
	});

	describe('restarts and interruptions', () => {
		test('n8n restarts between polls: emitted jobs stay emitted, found ones are not lost', () => {
			const service = new SimService(order);
			for (const job of service.create(250)) service.finish(job, 'completed');
			const trigger = new SimTrigger(service);
			trigger.activate();
			const jobs = service.create(30);
			for (const [index, job] of jobs.entries()) {
				service.advance(20_000);
				service.finish(job, index % 3 === 0 ? 'failed' : 'completed');
				if (index % 4 === 0) trigger.poll();
				if (index % 9 === 0) trigger.restart();
			}
			service.advance(MINUTE);
			trigger.restart();
			trigger.pollUntilSettled();
			const expected = jobs.map(
				(job, index) => `${index % 3 === 0 ? 'failed' : 'completed'}:${job.job_id}`,
			);
			expect(sorted(trigger.emittedKeys())).toEqual(sorted(expected));
		});

		test('a rate limit in the middle of a poll: what was read counts, the rest comes next poll', () => {
			const service = new SimService(order);
			for (const job of service.create(900)) service.finish(job, 'completed');
			const trigger = new SimTrigger(service, { maxRequests: 4 });
			trigger.activate();
			service.advance(MINUTE);
			const [longJob] = service.create(1);
			const newer = service.create(400);
			for (const job of newer) service.finish(job, 'completed');
			service.advance(MINUTE);
			service.finish(longJob, 'completed');
			for (let failAt = 0; failAt < 40 && trigger.emitted.length < 401; failAt++) {
				service.advance(MINUTE);
				trigger.poll({ failAt: failAt % 3 });
				if (failAt % 5 === 4) trigger.restart();
			}
			trigger.pollUntilSettled();
			expect(sorted(trigger.emittedKeys())).toEqual(sorted(keys([longJob, ...newer], 'completed')));
		});

		test('a poll that fails on its first request changes nothing', () => {
			const service = new SimService(order);
			const trigger = new SimTrigger(service);
			trigger.activate();
			const [job] = service.create(1);
			service.advance(MINUTE);
			service.finish(job, 'completed');
			const before = clone(trigger.memory);
			expect(trigger.poll({ failAt: 0 }).emit).toEqual([]);
			expect(trigger.memory).toEqual(before);
			expect(trigger.poll().emit.map((due) => due.job_id)).toEqual([job.job_id]);
		});
	});
});

describe('a service that lists a job in its state late', () => {
	test('listed up to the overlap after its updated_at: still emitted once', () => {
		const service = new SimService('newest_first');
		const trigger = new SimTrigger(service);
		trigger.activate();
		const [lagging, prompt] = service.create(2);
		service.advance(MINUTE);
		service.finish(lagging, 'completed', 5 * MINUTE);
		service.advance(MINUTE);
		service.finish(prompt, 'completed');
		service.advance(MINUTE);
		trigger.poll();
		expect(trigger.emittedKeys()).toEqual([`completed:${prompt.job_id}`]);
		service.advance(5 * MINUTE);
		trigger.pollUntilSettled();
		expect(trigger.emittedKeys()).toEqual(keys([prompt, lagging], 'completed'));
	});

	test('listed later than the overlap behind newer emitted jobs: counted as accounted for with a note, and the trigger goes on', () => {
		const service = new SimService('newest_first');
		const trigger = new SimTrigger(service);
		trigger.activate();
		const [lagging, prompt, after] = service.create(3);
		service.advance(MINUTE);
		service.finish(lagging, 'completed', OVERLAP_MS + 5 * MINUTE);
		service.advance(OVERLAP_MS + MINUTE);
		service.finish(prompt, 'completed');
		service.advance(MINUTE);
		trigger.poll();
		service.advance(5 * MINUTE);
		const runs = trigger.pollUntilSettled();
		expect(runs.flatMap((run) => run.notes).join('\n')).toMatch(
			/1 job\(s\) counted by the service are dated before what the trigger looks for/,
		);
		service.finish(after, 'completed');
		service.advance(MINUTE);
		trigger.pollUntilSettled();
		expect(trigger.emittedKeys()).toEqual(keys([prompt, after], 'completed'));
	});
});

describe.each(SIM_ORDERS)(
	'a job that leaves completed (docs/api-notes.md says it does not) (order %s)',
	(order) => {
		test('back to processing, and on to failed: nothing throws, the count follows the list, the jobs after are emitted once', () => {
			const {
				service,
				trigger,
				created: [reverted, refailed, later],
			} = activatedOverAFullList(order, 'completed', 3);
			service.finish(reverted, 'completed');
			service.finish(refailed, 'completed');
			service.advance(MINUTE);
			expect(trigger.poll().emit.map((job) => job.job_id)).toEqual([
				reverted.job_id,
				refailed.job_id,
			]);

			service.advance(MINUTE);
			service.finish(reverted, 'processing');
			service.finish(refailed, 'failed');
			service.advance(MINUTE);
			const changed = trigger.poll();
			expect(changed.emit.map((job) => `${job.status}:${job.job_id}`)).toEqual([
				`failed:${refailed.job_id}`,
			]);
			expect(changed.notes).toEqual([
				'status=completed: the service counts 150 jobs, fewer than the 152 accounted for (jobs removed from the list?)',
			]);
			expect((trigger.memory as PollState).statuses.completed?.known).toBe(150);

			service.finish(later, 'completed');
			service.advance(MINUTE);
			const after = trigger.pollUntilSettled();
			expect(after.flatMap((run) => run.notes)).toEqual([]);
			expect(trigger.emittedKeys()).toEqual([
				...keys([reverted, refailed], 'completed'),
				`failed:${refailed.job_id}`,
				`completed:${later.job_id}`,
			]);
		});
	},
);

describe('model runs: random completions, orders, page shifts, rate limits and restarts', () => {
	test.each(Array.from({ length: 12 }, (_, index) => index + 1))('seed %i', (seed) => {
		const random = mulberry32(seed);
		const order = SIM_ORDERS[seed % SIM_ORDERS.length];
		const service = new SimService(order);
		const statuses = (['completed', 'failed', 'cancelled'] as const).filter(
			(_status, index) => index === 0 || random() < 0.6,
		);
		const history = service.create(Math.floor(random() * 1500));
		for (const job of history) service.finish(job, random() < 0.8 ? 'completed' : 'failed');
		const early = service.create(Math.floor(random() * 20));
		const trigger = new SimTrigger(service, {
			statuses: [...statuses],
			maxRequests: 4 + Math.floor(random() * 8),
			maxItems: 5 + Math.floor(random() * 100),
		});
		trigger.activate();
		const activatedAt = service.nowMs;

		const running = [...early];
		const outcome = new Map<string, string>();
		const finishSome = (chance: number) => {
			for (const job of [...running]) {
				if (random() >= chance) continue;
				const status = ['completed', 'completed', 'failed', 'cancelled'][Math.floor(random() * 4)];
				service.advance(Math.floor(random() * 1500));
				service.finish(job, status);
				outcome.set(job.job_id, status);
				running.splice(running.indexOf(job), 1);
			}
		};
		for (let step = 0; step < 60; step++) {
			running.push(...service.create(Math.floor(random() * 30)));
			finishSome(0.3);
			service.beforeRequest = random() < 0.3 ? () => finishSome(0.05) : undefined;
			service.advance(MINUTE);
			const roll = random();
			if (roll < 0.1) trigger.restart();
			else trigger.poll({ failAt: roll < 0.3 ? Math.floor(random() * 4) : undefined });
		}
		service.beforeRequest = undefined;
		for (const job of running) service.finish(job, 'completed');
		for (const job of running) outcome.set(job.job_id, 'completed');
		service.advance(MINUTE);
		trigger.pollUntilSettled(500);

		const ended = service.jobs.filter((job) => outcome.has(job.job_id));
		const expected = trigger.due(ended, statuses);
		// Only the jobs that ended within the activation's second are left out: they ended before what it starts from.
		const leftOut = ended.filter(
			(job) =>
				statuses.includes(job.status as never) && !expected.includes(`${job.status}:${job.job_id}`),
		);
		expect(leftOut.every((job) => job.updatedAtMs < trigger.startsFrom())).toBe(true);
		expect(leftOut.every((job) => job.updatedAtMs >= trigger.startsFrom() - 1000)).toBe(true);
		expect(service.nowMs).toBeGreaterThan(activatedAt);
		expect(sorted(trigger.emittedKeys())).toEqual(sorted(expected));
		expect(trigger.polls.every((run) => run.requests <= trigger.settings().maxRequests)).toBe(true);
	});
});
