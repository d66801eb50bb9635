// The Polling Trigger behind a backlog: more jobs end than it emits (100 a poll, 25 with Download Artifact), for half an
// hour or four hours of the service's clock, polled every minute against the model of GET /transcriptions in every list
// order. Bounded state may slow it down; it never drops a job: each one that ended is emitted exactly once, and every
// stored collection stays within its bound all along.
import {
	MAX_PENDING,
	RECENT_LIMIT,
	type PollState,
} from '../../nodes/TranscriptionServicePollingTrigger/state';
import { SIM_ORDERS, SimService, SimTrigger, type SimOrder } from '../support/fixtures/polling-sim';

const MINUTE = 60_000;
/** What one poll emits without and with Download Artifact (poll.ts). */
const PER_POLL = { 'without Download Artifact': 100, 'with Download Artifact': 25 } as const;
type Download = keyof typeof PER_POLL;

interface Load {
	/** Jobs ending in each minute of the load. */
	perMinute: (minute: number) => number;
	minutes: number;
}

/** `total` jobs ending evenly over `minutes`. */
function burst(total: number, minutes: number): Load {
	return {
		perMinute: (minute) =>
			Math.floor((total * (minute + 1)) / minutes) - Math.floor((total * minute) / minutes),
		minutes,
	};
}

/** `count` jobs ending every minute for `minutes`. */
function sustained(count: number, minutes: number): Load {
	return { perMinute: () => count, minutes };
}

/**
 * An account with history, a trigger activated an hour after it, then `load`: each minute's jobs end spread over the
 * minute (every fourth failed), and the trigger polls at its end. Then polls go on until two in a row emit nothing with
 * nothing owed. Checks the stored state after every poll.
 */
function runLoad(order: SimOrder, load: Load, maxItems: number) {
	const service = new SimService(order);
	for (const job of service.create(250)) service.finish(job, 'completed');
	for (const job of service.create(20)) service.finish(job, 'failed');
	service.advance(60 * MINUTE);
	const trigger = new SimTrigger(service, { maxItems });
	trigger.activate();
	service.advance(5000);
	const ended: string[] = [];
	const outOfBounds: string[] = [];
	const poll = () => {
		service.advance(MINUTE);
		const run = trigger.poll();
		const state = trigger.memory as PollState;
		const recent = Object.values(state.recent).reduce((sum, entries) => sum + entries.length, 0);
		const statuses = Object.values(state.statuses);
		const pending = statuses.reduce((sum, status) => sum + (status.pending?.length ?? 0), 0);
		if (recent > RECENT_LIMIT || pending > MAX_PENDING) {
			outOfBounds.push(`poll ${trigger.polls.length}: ${recent} recent, ${pending} pending`);
		}
		return run;
	};
	for (let minute = 0; minute < load.minutes; minute++) {
		const count = load.perMinute(minute);
		for (const [index, job] of service.create(count).entries()) {
			service.advance(Math.floor(MINUTE / count) - 1);
			service.finish(job, index % 4 === 3 ? 'failed' : 'completed');
			ended.push(`${job.status}:${job.job_id}`);
		}
		poll();
	}
	for (let quiet = 0, polls = 0; quiet < 2 && polls < 1000; polls++) {
		const run = poll();
		quiet = run.emit.length === 0 && run.settled ? quiet + 1 : 0;
	}
	return { trigger, ended, outOfBounds };
}

function expectEachOnce(
	{ trigger, ended, outOfBounds }: ReturnType<typeof runLoad>,
	maxRequests: number,
) {
	const emitted = trigger.emittedKeys();
	expect(emitted.length).toBe(ended.length);
	expect(new Set(emitted)).toEqual(new Set(ended));
	expect(outOfBounds).toEqual([]);
	expect(trigger.polls.every((run) => run.requests <= maxRequests)).toBe(true);
	// Nothing written off: every job the count owed was found.
	expect(trigger.polls.flatMap((run) => run.notes).join('\n')).not.toMatch(/could not be found/);
}

describe.each(Object.keys(PER_POLL) as Download[])(
	'a burst of 10,000 completions within 30 minutes, %s',
	(download) => {
		test.each(SIM_ORDERS)(
			'order %s: each job emitted once, none dropped, the stored state within its bounds',
			(order) => {
				expectEachOnce(runLoad(order, burst(10_000, 30), PER_POLL[download]), 10);
			},
		);
	},
);

describe('completions above what the trigger emits, for 4 hours', () => {
	test.each([
		['newest_first', 40, 'with Download Artifact'],
		['updated_first', 40, 'with Download Artifact'],
		['oldest_first', 110, 'without Download Artifact'],
		['scrambled', 110, 'without Download Artifact'],
	] as Array<[SimOrder, number, Download]>)(
		'order %s: %i a minute %s: each job emitted once, none dropped, the stored state within its bounds',
		(order, perMinute, download) => {
			const run = runLoad(order, sustained(perMinute, 240), PER_POLL[download]);
			expectEachOnce(run, 10);
		},
	);
});
