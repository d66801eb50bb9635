// The first activation's zone, ±ZONE_MS around the service's Date: jobs dated within it may have ended before the
// activation (not emitted) or after it (emitted), which their dates cannot tell; the count decides, once a search has
// read the whole list. On a busy account, jobs keep ending while a poll reads the list, and a pass's count may not be
// exact: the next passes narrow it, and the activation's Date settles what they leave. Driven against the model of
// GET /transcriptions in every list order.
import type { PollState } from '../../nodes/TranscriptionServicePollingTrigger/state';
import {
	MAX_SEARCH_PASSES,
	ZONE_MS,
} from '../../nodes/TranscriptionServicePollingTrigger/owed-count';
import { mulberry32 } from '../../sandbox/random';
import {
	SIM_ORDERS,
	SimService,
	SimTrigger,
	type SimJob,
	type SimOrder,
} from '../support/fixtures/polling-sim';

const MINUTE = 60_000;

function keys(jobs: SimJob[]): string[] {
	return jobs.map((job) => `completed:${job.job_id}`).sort();
}

/**
 * 600 jobs ended long ago, two more end 0.04 s before and 0.32 s after the activation (created first, so they are not
 * on the first page in any order), 100 are running. The activation happens 0.3 s into a second of the service's
 * clock, each poll 0.1 s into one; Max Requests per Poll 4, so a search reads the list over several polls.
 */
function aroundTheActivation(order: SimOrder) {
	const service = new SimService(order);
	const [before, after] = service.create(2);
	for (const job of service.create(600)) service.finish(job, 'completed');
	const running = service.create(100);
	service.advance(MINUTE + 1260 - (service.nowMs % 1000));
	service.finish(before, 'completed');
	service.advance(40);
	const trigger = new SimTrigger(service, { statuses: ['completed'], maxRequests: 4 });
	trigger.activate();
	service.advance(320);
	service.finish(after, 'completed');
	const nextPoll = () => {
		service.advance(MINUTE + 1100 - (service.nowMs % 1000));
		return trigger.poll();
	};
	return { service, trigger, before, after, running, nextPoll };
}

describe.each(SIM_ORDERS)('jobs ending around the first activation (order %s)', (order) => {
	test('a quiet account: the count alone tells them apart, the one after the activation is emitted', () => {
		const { trigger, before, after, nextPoll } = aroundTheActivation(order);
		for (let poll = 0; poll < 10; poll++) nextPoll();
		expect(trigger.emittedKeys()).toEqual(keys([after]));
		expect(trigger.polls.flatMap((run) => run.notes)).toEqual([]);
		expect(trigger.emittedKeys()).not.toContain(`completed:${before.job_id}`);
	});

	test('a busy account, a job ending during every poll’s paging: the one 0.32 s after the activation is emitted, the one 0.04 s before it is not, every other job once', () => {
		const { service, trigger, after, running, nextPoll } = aroundTheActivation(order);
		const ended = [after];
		let lastPoll = -1;
		// Before the first search page of each poll, one more job ends, 50 ms after the first page was answered.
		service.beforeRequest = (request) => {
			if (request.kind === 'first_page' || lastPoll === trigger.polls.length) return;
			lastPoll = trigger.polls.length;
			service.advance(50);
			const job = running[ended.length - 1];
			service.finish(job, 'completed');
			ended.push(job);
		};
		for (let poll = 0; poll < 30; poll++) nextPoll();
		service.beforeRequest = undefined;
		trigger.pollUntilSettled();

		expect(trigger.emittedKeys().sort()).toEqual(keys(ended));
		// The jobs ending during the paging left every pass's count a job short of certain: the Date decided.
		expect(trigger.polls.flatMap((run) => run.notes)).toEqual([
			`status=completed: ${MAX_SEARCH_PASSES} passes over the list could not count how many of the jobs dated within seconds of the first activation ended after it (jobs kept ending while it read); by the activation's Date, 1 of the 1 left open ended after it: emitted`,
		]);
	});
});

/**
 * Up to 13 jobs end within 2 s either side of the activation, in random order; on a busy run a job ends before half of
 * the requests (10–310 ms before it); n8n restarts now and then. Every job that ended after the activation is emitted
 * once, none that ended before it.
 */
function randomRun(seed: number) {
	const random = mulberry32(seed);
	const order = SIM_ORDERS[seed % SIM_ORDERS.length];
	const service = new SimService(order);
	const zone = service.create(4 + Math.floor(random() * 10));
	for (const job of service.create(100 + Math.floor(random() * 400))) {
		service.finish(job, 'completed');
	}
	const running = service.create(3000);
	service.advance(MINUTE + Math.floor(random() * 1000));
	const trigger = new SimTrigger(service, {
		statuses: ['completed'],
		maxRequests: 4 + Math.floor(random() * 8),
	});
	const activation = service.nowMs + 2000;
	const endsAt = new Map(
		zone.map((job) => {
			const offset = 1 + Math.floor(random() * 1999);
			return [job, random() < 0.5 ? activation - offset : activation + offset];
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
	const ended = zone.filter((job) => endsAt.get(job)! > activation);
	const busy = random() < 0.7;
	service.beforeRequest = () => {
		if (!busy || ended.length >= running.length || random() < 0.5) return;
		service.advance(10 + Math.floor(random() * 300));
		const job = running.find((candidate) => candidate.status === 'processing')!;
		service.finish(job, 'completed');
		ended.push(job);
	};
	for (let poll = 0; poll < 15; poll++) {
		service.advance(MINUTE + Math.floor(random() * 1000));
		if (random() < 0.1) trigger.restart();
		else trigger.poll();
	}
	service.beforeRequest = undefined;
	service.advance(MINUTE);
	trigger.pollUntilSettled(200);
	return { trigger, ended };
}

describe('random runs around the first activation: orders, busy or quiet, restarts', () => {
	test.each(Array.from({ length: 100 }, (_, index) => index + 1))('seed %i', (seed) => {
		const { trigger, ended } = randomRun(seed);
		expect(trigger.emittedKeys().sort()).toEqual(keys(ended));
	});
});

describe('first activation zone', () => {
	test(`the zone is ±${ZONE_MS} ms around the service's Date`, () => {
		const service = new SimService();
		const trigger = new SimTrigger(service, { statuses: ['completed'] });
		trigger.activate();
		const state = (trigger.memory as PollState).statuses.completed!;
		const date = Math.floor(service.nowMs / 1000) * 1000;
		expect(state).toEqual({ known: 0, since: date - ZONE_MS, zoneEnd: date + ZONE_MS, clear: 0 });
	});
});
