// Where the first activation starts (nodes/TranscriptionServicePollingTrigger/owed-count.ts): at the end of the second
// its first answer's Date names, or without a Date LOCAL_CLOCK_SKEW_MS after that answer by n8n's clock. A job that
// ended from then on is emitted once, one that ended earlier never — while the service lists jobs up to OVERLAP_MS after
// they end (the listing delay docs/polling-trigger.md assumes), on a quiet or a busy account, across restarts; with
// n8n's clock up to LOCAL_CLOCK_SKEW_MS off when there is no Date. Driven against the model of GET /transcriptions in
// every list order, right at the start and at those bounds.
import { OVERLAP_MS } from '../../nodes/TranscriptionServicePollingTrigger/cutoff';
import {
	DATE_RESOLUTION_MS,
	LOCAL_CLOCK_SKEW_MS,
} from '../../nodes/TranscriptionServicePollingTrigger/owed-count';
import type { PollState } from '../../nodes/TranscriptionServicePollingTrigger/state';
import { mulberry32 } from '../../sandbox/random';
import {
	MINUTE,
	SIM_ORDERS,
	SimService,
	SimTrigger,
	sorted,
	type SimJob,
	type SimOrder,
} from '../support/fixtures/polling-sim';

/** The clocks the trigger may read: the service's Date, or n8n's own at the bounds of the skew assumed without one. */
const CLOCKS = [
	{ name: 'with a Date header', sendsDate: true, n8nClockAheadMs: 0 },
	{
		name: `without a Date, n8n's clock ${LOCAL_CLOCK_SKEW_MS / 1000} s behind`,
		sendsDate: false,
		n8nClockAheadMs: -LOCAL_CLOCK_SKEW_MS,
	},
	{
		name: `without a Date, n8n's clock ${LOCAL_CLOCK_SKEW_MS / 1000} s ahead`,
		sendsDate: false,
		n8nClockAheadMs: LOCAL_CLOCK_SKEW_MS,
	},
] as const;
type Clock = (typeof CLOCKS)[number];

describe('where the first activation starts', () => {
	test('with a Date header: the end of the second the activation was answered in', () => {
		const service = new SimService();
		service.advance(1000 - (service.nowMs % 1000) + 300);
		const answeredAt = service.nowMs;
		const trigger = new SimTrigger(service, { statuses: ['completed'] });
		trigger.activate();
		const state = (trigger.memory as PollState).statuses.completed!;
		expect(state).toEqual({
			known: 0,
			since: answeredAt - 300 + DATE_RESOLUTION_MS,
			clear: 0,
		});
		expect(trigger.startsFrom()).toBe(state.since);
	});

	test.each([0, -LOCAL_CLOCK_SKEW_MS, LOCAL_CLOCK_SKEW_MS])(
		"without a Date header: %i ms off, LOCAL_CLOCK_SKEW_MS after the answer by n8n's clock",
		(n8nClockAheadMs) => {
			const service = new SimService();
			service.sendsDate = false;
			const trigger = new SimTrigger(service, { statuses: ['completed'], n8nClockAheadMs });
			trigger.activate();
			const state = (trigger.memory as PollState).statuses.completed!;
			expect(state.since).toBe(service.nowMs + n8nClockAheadMs + LOCAL_CLOCK_SKEW_MS);
			expect(trigger.startsFrom()).toBe(state.since);
		},
	);

	test("without a Date, n8n's clock further behind than assumed: never before the latest job the answer lists", () => {
		const service = new SimService();
		service.sendsDate = false;
		const [job] = service.create(1);
		service.finish(job, 'completed');
		const trigger = new SimTrigger(service, {
			statuses: ['completed'],
			n8nClockAheadMs: -10 * MINUTE,
		});
		trigger.activate();
		expect((trigger.memory as PollState).statuses.completed!.since).toBe(job.updatedAtMs + 1);
	});
});

/**
 * 600 jobs ended long ago; the jobs of `around` were created first, so they sit beyond the first page in every order,
 * where a search reads them over several polls (Max Requests per Poll 4). The activation is answered 0.3 s into a
 * second, ten minutes on; each job of `around` ends at its offset from where the activation starts (startsFrom),
 * and the service lists it `listedAfterMs` later.
 */
function aroundTheStart(
	order: SimOrder,
	clock: Clock,
	around: Array<{ offsetMs: number; listedAfterMs: number }>,
) {
	const service = new SimService(order);
	service.sendsDate = clock.sendsDate;
	const jobs = service.create(around.length);
	for (const job of service.create(600)) service.finish(job, 'completed');
	const running = service.create(100);
	const activation = service.nowMs + 10 * MINUTE + 1000 - (service.nowMs % 1000) + 300;
	const trigger = new SimTrigger(service, {
		statuses: ['completed'],
		maxRequests: 4,
		n8nClockAheadMs: clock.n8nClockAheadMs,
	});
	const start = clock.sendsDate
		? Math.floor(activation / 1000) * 1000 + DATE_RESOLUTION_MS
		: activation + clock.n8nClockAheadMs + LOCAL_CLOCK_SKEW_MS;
	const timeline = around
		.map((spec, index) => ({ ...spec, job: jobs[index], at: start + spec.offsetMs }))
		.sort((a, b) => a.at - b.at);
	let activated = false;
	for (const { job, at, listedAfterMs } of timeline) {
		if (!activated && at >= activation) {
			service.advance(activation - service.nowMs);
			trigger.activate();
			activated = true;
		}
		service.advance(at - service.nowMs);
		service.finish(job, 'completed', listedAfterMs);
	}
	if (!activated) {
		service.advance(activation - service.nowMs);
		trigger.activate();
	}
	expect(trigger.activatedAtMs).toBe(activation);
	expect(trigger.startsFrom()).toBe(start);
	return { service, trigger, jobs, running };
}

describe.each(SIM_ORDERS)('right at the start (order %s)', (order) => {
	describe.each(CLOCKS)('$name', (clock) => {
		// The documented listing delay: a job may show in its new state up to OVERLAP_MS after its updated_at.
		const around = [
			{ offsetMs: -5 * MINUTE, listedAfterMs: OVERLAP_MS },
			{ offsetMs: -1, listedAfterMs: OVERLAP_MS },
			{ offsetMs: -1, listedAfterMs: 0 },
			{ offsetMs: 0, listedAfterMs: OVERLAP_MS },
			{ offsetMs: 1, listedAfterMs: 0 },
			{ offsetMs: 40, listedAfterMs: OVERLAP_MS - 1 },
		];

		test('a job ended 1 ms before it is never emitted, one ended at it is, each once, listed up to the delay late', () => {
			const { service, trigger, jobs } = aroundTheStart(order, clock, around);
			for (let poll = 0; poll < 30; poll++) {
				service.advance(MINUTE);
				trigger.poll();
			}
			trigger.pollUntilSettled();
			const [, , , atStart, justAfter, listedLate] = jobs;
			expect(sorted(trigger.emittedKeys())).toEqual(
				sorted([atStart, justAfter, listedLate].map((job) => `completed:${job.job_id}`)),
			);
			expect(sorted(trigger.emittedKeys())).toEqual(sorted(trigger.due(jobs)));
			// The ones that ended before it and were listed after the activation are owed by the count: written off.
			expect(trigger.polls.flatMap((run) => run.notes).join('\n')).toMatch(
				/dated before what the trigger looks for/,
			);
		});

		test('a busy account, a job ending during every poll’s paging, each listed up to the delay late', () => {
			const { service, trigger, jobs, running } = aroundTheStart(order, clock, around);
			const random = mulberry32(order.length);
			const ended: SimJob[] = [];
			service.beforeRequest = (request) => {
				if (request.kind === 'first_page' || ended.length >= running.length) return;
				service.advance(50);
				const job = running[ended.length];
				service.finish(job, 'completed', Math.floor(random() * (OVERLAP_MS + 1)));
				ended.push(job);
			};
			for (let poll = 0; poll < 40; poll++) {
				service.advance(MINUTE);
				trigger.poll();
			}
			service.beforeRequest = undefined;
			service.advance(OVERLAP_MS);
			trigger.pollUntilSettled(200);
			expect(ended.length).toBeGreaterThan(0);
			expect(sorted(trigger.emittedKeys())).toEqual(sorted(trigger.due([...jobs, ...ended])));
			expect(new Set(trigger.emittedKeys()).size).toBe(trigger.emitted.length);
		});
	});
});

/**
 * Seeded runs, the model: up to 13 jobs end within 2 s either side of the activation in random order and a
 * busy account ends a job before half of the requests; every job that ends is listed up to the documented delay
 * (OVERLAP_MS) late; n8n restarts now and then; with a Date header, or without one and n8n's clock up to the assumed
 * skew off. Every job that ended from the start on is emitted once, none before it.
 */
function seededRun(seed: number, sendsDate: boolean) {
	const random = mulberry32(seed);
	const order = SIM_ORDERS[seed % SIM_ORDERS.length];
	const service = new SimService(order);
	service.sendsDate = sendsDate;
	service.listingDelay = () => Math.floor(random() * (OVERLAP_MS + 1));
	const zone = service.create(4 + Math.floor(random() * 10));
	for (const job of service.create(100 + Math.floor(random() * 400))) {
		service.finish(job, 'completed', 0);
	}
	const running = service.create(3000);
	service.advance(MINUTE + Math.floor(random() * 1000));
	const trigger = new SimTrigger(service, {
		statuses: ['completed'],
		maxRequests: 4 + Math.floor(random() * 8),
		n8nClockAheadMs: sendsDate ? 0 : Math.round((2 * random() - 1) * LOCAL_CLOCK_SKEW_MS),
	});
	const activation = service.nowMs + 2000;
	// Without a Date the start is up to a minute after the activation: the zone's jobs end around that instead.
	const around = sendsDate ? activation : activation + LOCAL_CLOCK_SKEW_MS;
	const endsAt = new Map(
		zone.map((job) => {
			const offset = 1 + Math.floor(random() * 1999);
			return [job, random() < 0.5 ? around - offset : around + offset];
		}),
	);
	let activated = false;
	for (const [job, at] of [...endsAt].sort((a, b) => a[1] - b[1])) {
		if (!activated && at > activation) {
			service.advance(activation - service.nowMs);
			trigger.activate();
			activated = true;
		}
		service.advance(at - service.nowMs);
		service.finish(job, 'completed');
	}
	if (!activated) {
		service.advance(activation - service.nowMs);
		trigger.activate();
	}
	const ended = [...zone];
	const busy = random() < 0.7;
	service.beforeRequest = () => {
		if (!busy || ended.length >= zone.length + running.length || random() < 0.5) return;
		service.advance(10 + Math.floor(random() * 300));
		const job = running[ended.length - zone.length];
		service.finish(job, 'completed');
		ended.push(job);
	};
	for (let poll = 0; poll < 15; poll++) {
		service.advance(MINUTE + Math.floor(random() * 1000));
		if (random() < 0.1) trigger.restart();
		else trigger.poll();
	}
	service.beforeRequest = undefined;
	// Past the listing delay: every job that ended is listed.
	service.advance(OVERLAP_MS);
	trigger.pollUntilSettled(200);
	return { trigger, ended };
}

describe.each([
	['with a Date header', true],
	['without a Date header', false],
])(
	'seeded runs around the first activation, every job listed up to 10 minutes late, %s',
	(_name, sendsDate) => {
		test.each(Array.from({ length: 40 }, (_, index) => index + 1))('seed %i', (seed) => {
			const { trigger, ended } = seededRun(seed, sendsDate);
			expect(sorted(trigger.emittedKeys())).toEqual(sorted(trigger.due(ended)));
			expect(new Set(trigger.emittedKeys()).size).toBe(trigger.emitted.length);
			const start = trigger.startsFrom();
			expect(trigger.emitted.every((job) => job.updatedAtMs >= start)).toBe(true);
		});
	},
);
