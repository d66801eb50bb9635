// The Polling Trigger's bounds (nodes/TranscriptionServicePollingTrigger/session.ts, state.ts), driven against a model
// of GET /transcriptions: the requests and items of one poll, and every stored collection, stay within their limits
// whatever the service answers. A backlog over hours is polling-trigger-backlog.test.ts's.
import { OVERLAP_MS } from '../../nodes/TranscriptionServicePollingTrigger/cutoff';
import {
	MAX_PENDING,
	newScan,
	RECENT_LIMIT,
	type PollState,
} from '../../nodes/TranscriptionServicePollingTrigger/state';
import {
	keys,
	MINUTE,
	SIM_ORDERS,
	SimService,
	SimTrigger,
	sorted,
} from '../support/fixtures/polling-sim';

describe('bounded work', () => {
	test('no poll makes more requests than Max Requests per Poll; the rest is carried, never dropped', () => {
		const service = new SimService('scrambled');
		for (const job of service.create(3000)) service.finish(job, 'completed');
		service.advance(MINUTE);
		const trigger = new SimTrigger(service, { maxRequests: 3 });
		trigger.activate();
		const longJobs = service.create(5);
		for (const job of service.create(2000)) {
			service.advance(100);
			service.finish(job, 'completed');
		}
		for (const job of longJobs) service.finish(job, 'completed');
		const runs = trigger.pollUntilSettled(200);
		expect(runs.every((run) => run.requests <= 3)).toBe(true);
		expect(trigger.emitted.length).toBe(2005);
		expect(new Set(trigger.emittedKeys()).size).toBe(2005);
	});

	test('more jobs due than one poll emits: the oldest first, the rest by the next polls', () => {
		const service = new SimService('newest_first');
		const trigger = new SimTrigger(service, { maxItems: 25 });
		trigger.activate();
		const jobs = service.create(60);
		for (const job of jobs) {
			service.advance(1000);
			service.finish(job, 'completed');
		}
		service.advance(MINUTE);
		const first = trigger.poll();
		expect(first.emit.map((job) => job.job_id)).toEqual(jobs.slice(0, 25).map((job) => job.job_id));
		expect(first.deferred).toBe(35);
		trigger.pollUntilSettled();
		expect(trigger.emittedKeys()).toEqual(keys(jobs, 'completed'));
	});

	test(`more jobs emitted within the overlap than the ${RECENT_LIMIT.toLocaleString('en-US')} remembered: the next wait until the cutoff rises, none dropped`, () => {
		const service = new SimService('newest_first');
		for (const job of service.create(300)) service.finish(job, 'completed');
		service.advance(MINUTE);
		const trigger = new SimTrigger(service, { maxRequests: 400, maxItems: 100_000 });
		trigger.activate();
		service.advance(MINUTE);
		const burst = service.create(RECENT_LIMIT + 2000);
		for (const job of burst) {
			service.advance(1);
			service.finish(job, 'completed');
		}
		service.advance(MINUTE);
		// Rounds of one poll, each carrying what the last found and could not keep (the node's drain.ts).
		const notes: string[] = [];
		for (let round = 0; round < 40; round++) notes.push(...trigger.poll({ carry: true }).notes);
		expect(trigger.emitted).toHaveLength(RECENT_LIMIT);
		expect(notes.join('\n')).toMatch(/newer jobs wait until the cutoff rises/);
		expect(Object.values((trigger.memory as PollState).recent).flat()).toHaveLength(RECENT_LIMIT);
		// Within the overlap the cutoff stays below the burst: nothing more goes out, and nothing is dropped.
		service.advance(5 * MINUTE);
		expect(trigger.poll().emit).toHaveLength(0);
		service.advance(OVERLAP_MS);
		trigger.pollUntilSettled(20);
		expect(sorted(trigger.emittedKeys())).toEqual(sorted(keys(burst, 'completed')));
	});

	test('the stored state stays small on a 10,000-job account with 1,500 recent completions', () => {
		const service = new SimService('oldest_first');
		for (const job of service.create(10_000)) service.finish(job, 'completed');
		service.advance(MINUTE);
		const trigger = new SimTrigger(service, { maxRequests: 20 });
		trigger.activate();
		for (const job of service.create(1500)) {
			service.advance(200);
			service.finish(job, 'completed');
		}
		trigger.pollUntilSettled(100);
		expect(trigger.emitted.length).toBe(1500);
		const state = trigger.memory as PollState;
		// Once nothing is owed, only the jobs within the overlap of the latest are kept.
		expect(state.recent.completed?.length).toBeLessThanOrEqual(RECENT_LIMIT);
		expect(JSON.stringify(state).length).toBeLessThan(64 * 1024);
		service.advance(OVERLAP_MS + MINUTE);
		const [later] = service.create(1);
		service.finish(later, 'completed');
		trigger.poll();
		expect(trigger.emitted.at(-1)?.job_id).toBe(later.job_id);
		expect((trigger.memory as PollState).recent.completed).toHaveLength(1);
	});
});

describe('every stored collection is bounded (static data stays small whatever the service answers)', () => {
	/** 2,500 jobs completing after the activation, on a trigger that may read 30 pages a poll. */
	function backlog(order: (typeof SIM_ORDERS)[number]) {
		const service = new SimService(order);
		for (const job of service.create(400)) service.finish(job, 'completed');
		service.advance(MINUTE);
		const trigger = new SimTrigger(service, { statuses: ['completed'], maxRequests: 30 });
		trigger.activate();
		const jobs = service.create(2500);
		for (const job of jobs) {
			service.advance(50);
			service.finish(job, 'completed');
		}
		service.advance(MINUTE);
		return { service, trigger, jobs };
	}

	test('a first page of 200,000 jobs (a service ignoring limit): the first 100 are read, the state stays small, each real job is emitted once', () => {
		const { service, trigger, jobs } = backlog('oldest_first');
		const date = new Date(service.nowMs).toISOString();
		const padding = Array.from({ length: 199_900 }, (_, index) => ({
			job_id: `job_padding_${index}`,
			status: 'completed',
			updated_at: date,
		}));
		service.replaceAnswer = (request, page) => {
			if (request.kind !== 'first_page') return undefined;
			service.replaceAnswer = undefined;
			return { ...page, items: [...page.items, ...padding] };
		};
		const first = trigger.poll();
		expect(first.notes).toContain(
			'status=completed: the answer at cursor 0 held 200000 jobs for a limit of 100; only the first 100 were read',
		);
		expect(JSON.stringify(trigger.memory).length).toBeLessThan(64 * 1024);
		trigger.pollUntilSettled(100);
		expect(sorted(trigger.emittedKeys())).toEqual(sorted(keys(jobs, 'completed')));
	});

	test.each(SIM_ORDERS)(
		'order %s: a stored state carrying more pending jobs than the bound (as 05a2b4f wrote after such a page) is brought back within it, and every job is still emitted once',
		(order) => {
			const { service, trigger, jobs } = backlog(order);
			const state = trigger.memory as PollState;
			const completed = state.statuses.completed!;
			completed.pending = jobs.map((job) => [job.job_id, new Date(job.updatedAtMs).toISOString()]);
			completed.scan = newScan(0, service.jobs.length);
			expect(trigger.poll().emit).toHaveLength(100);
			const after = (trigger.memory as PollState).statuses.completed!;
			// The poll keeps MAX_PENDING found jobs, the 100 it emitted among them.
			expect(after.pending).toHaveLength(MAX_PENDING - 100);
			trigger.pollUntilSettled(100);
			expect(sorted(trigger.emittedKeys())).toEqual(sorted(keys(jobs, 'completed')));
			expect(new Set(trigger.emittedKeys()).size).toBe(jobs.length);
		},
	);
});
