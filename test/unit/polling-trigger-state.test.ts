// What the Polling Trigger stores in n8n's static data (nodes/TranscriptionServicePollingTrigger/state.ts, session.ts),
// driven against a model of GET /transcriptions: per account and status, read back from whatever n8n hands it.
import { OVERLAP_MS } from '../../nodes/TranscriptionServicePollingTrigger/cutoff';
import { PollSession } from '../../nodes/TranscriptionServicePollingTrigger/session';
import {
	MAX_ACCOUNTS,
	parseState,
	type PollState,
} from '../../nodes/TranscriptionServicePollingTrigger/state';
import {
	clone,
	keys,
	MINUTE,
	SIM_ORDERS,
	SimService,
	SimTrigger,
	sorted,
} from '../support/fixtures/polling-sim';

describe('stored state', () => {
	test('another account (the credential changed) starts from now', () => {
		const service = new SimService();
		const trigger = new SimTrigger(service, { account: 'first' });
		trigger.activate();
		const [job] = service.create(1);
		service.finish(job, 'completed');
		service.advance(MINUTE);
		const moved = trigger.activate({ account: 'second' });
		expect(moved.emit).toEqual([]);
		expect(moved.notes).toContain(
			'the credential now points at another account: starting from now',
		);
	});

	test.each(SIM_ORDERS)(
		'order %s: the credential points at another account for a while and back: each account goes on where it stopped, every job emitted once',
		(order) => {
			const first = new SimService(order, 'first');
			const second = new SimService(order, 'second');
			for (const service of [first, second]) {
				for (const job of service.create(150)) service.finish(job, 'completed');
			}
			const advance = (ms: number) => [first, second].forEach((service) => service.advance(ms));
			advance(MINUTE);
			const trigger = new SimTrigger(first, { account: 'acct_first', credential: 'key-first' });
			trigger.activate();
			const [before] = first.create(1);
			advance(MINUTE);
			first.finish(before, 'completed');
			advance(MINUTE);
			expect(trigger.poll().emit.map((job) => job.job_id)).toEqual([before.job_id]);
			// One account polled so far: the state is stored as before other accounts were kept.
			expect(trigger.memory).not.toHaveProperty('others');

			trigger.pointAt(second, 'acct_second', 'key-second');
			const [finishedBefore] = second.create(1);
			second.finish(finishedBefore, 'completed');
			advance(MINUTE);
			const moved = trigger.poll();
			expect(moved.emit).toEqual([]);
			expect(moved.notes).toEqual([
				'the credential now points at another account: starting from now',
			]);
			// Meanwhile on the first account: a long job finishes after 150 newer ones (deep in the list).
			const [longJob] = first.create(1);
			const meanwhile = first.create(150);
			for (const job of meanwhile) first.finish(job, 'completed');
			advance(MINUTE);
			first.finish(longJob, 'completed');
			const [onSecond] = second.create(1);
			advance(MINUTE);
			second.finish(onSecond, 'completed');
			advance(MINUTE);
			expect(trigger.poll().emit.map((job) => job.job_id)).toEqual([onSecond.job_id]);
			// Away for longer than the overlap: only the first account's stored count can owe these jobs.
			advance(OVERLAP_MS + MINUTE);

			trigger.pointAt(first, 'acct_first', 'key-first');
			const back = trigger.pollUntilSettled();
			expect(back[0].notes).toEqual([
				'the credential points again at an account polled before: going on from where its polls stopped',
			]);
			expect(sorted(back.flatMap((run) => run.emit).map((job) => job.job_id))).toEqual(
				sorted([...meanwhile, longJob].map((job) => job.job_id)),
			);

			trigger.pointAt(second, 'acct_second', 'key-second');
			const [later] = second.create(1);
			advance(MINUTE);
			second.finish(later, 'completed');
			advance(MINUTE);
			trigger.pollUntilSettled();
			expect(sorted(trigger.emittedKeys())).toEqual(
				sorted(keys([before, onSecond, ...meanwhile, longJob, later], 'completed')),
			);
			expect(new Set(trigger.emittedKeys()).size).toBe(trigger.emitted.length);
		},
	);

	test(`the states of the last ${MAX_ACCOUNTS} accounts polled are kept: a sixth drops the least recently polled, which then starts from now`, () => {
		const services = Array.from(
			{ length: MAX_ACCOUNTS + 1 },
			(_, index) => new SimService('newest_first', `acct${index}`),
		);
		const advance = (ms: number) => services.forEach((service) => service.advance(ms));
		const trigger = new SimTrigger(services[0], { account: 'acct_0', credential: 'key-0' });
		trigger.activate();
		const runs = services.slice(1).map((service, index) => {
			advance(MINUTE);
			trigger.pointAt(service, `acct_${index + 1}`, `key-${index + 1}`);
			return trigger.poll();
		});
		expect(runs.map((run) => run.notes)).toEqual([
			...Array(MAX_ACCOUNTS - 1).fill([
				'the credential now points at another account: starting from now',
			]),
			[
				'the credential now points at another account: starting from now',
				`the state of the least recently polled account was dropped: the last ${MAX_ACCOUNTS} accounts polled are kept`,
			],
		]);
		const stored = trigger.memory as PollState;
		expect(stored.account).toBe('acct_5');
		expect(stored.others?.map((state) => state.account)).toEqual([
			'acct_4',
			'acct_3',
			'acct_2',
			'acct_1',
		]);

		const [kept] = services[1].create(1);
		const [dropped] = services[0].create(1);
		advance(MINUTE);
		services[1].finish(kept, 'completed');
		services[0].finish(dropped, 'completed');
		advance(MINUTE);
		trigger.pointAt(services[1], 'acct_1', 'key-1');
		expect(trigger.poll().emit.map((job) => job.job_id)).toEqual([kept.job_id]);
		trigger.pointAt(services[0], 'acct_0', 'key-0');
		const restarted = trigger.poll();
		expect(restarted.emit).toEqual([]);
		expect(restarted.notes).toContain(
			'the credential now points at another account: starting from now',
		);
		expect(trigger.emittedKeys()).toEqual([`completed:${kept.job_id}`]);
	});

	test('a new credential of the same account (a new API key, the Base URL spelt differently) carries on', () => {
		const service = new SimService();
		const trigger = new SimTrigger(service, { credential: 'key-1' });
		trigger.activate();
		service.advance(MINUTE);
		const [job] = service.create(1);
		service.finish(job, 'completed');
		service.advance(MINUTE);
		trigger.reconfigure({ credential: 'key-2' });
		const carried = trigger.poll();
		expect(carried.emit.map((due) => due.job_id)).toEqual([job.job_id]);
		expect(carried.notes).toEqual([]);
		expect(trigger.memory).toMatchObject({ version: 1, account: 'acct_sim', credential: 'key-2' });
	});

	test.each([
		['not an object', 'junk'],
		['another version', { version: 2 }],
		[
			'a status that is not polled',
			{
				version: 1,
				account: 'a',
				credential: 'c',
				statuses: { queued: { known: 0, since: 0, clear: 0 } },
				latest: 0,
				watermark: 0,
				turn: 0,
				recent: {},
			},
		],
	])('unreadable (%s): starts from now with a note', (_name, stored) => {
		const session = new PollSession(stored, trigger(), Date.now());
		expect(session.hasHistory).toBe(false);
		session.apply(session.next()!, { items: [], total: 3 }, Date.now());
		session.apply(session.next()!, { items: [], total: 0 }, Date.now());
		const outcome = session.finish();
		expect(outcome.notes).toContain('the stored poll state was unreadable: starting from now');
		expect(outcome.state.statuses.completed?.known).toBe(3);
	});

	test('round-trips through JSON unchanged', () => {
		const service = new SimService('scrambled');
		for (const job of service.create(500)) service.finish(job, 'completed');
		const trigger = new SimTrigger(service, { maxRequests: 3 });
		trigger.activate();
		const [longJob] = service.create(1);
		for (const job of service.create(300)) service.finish(job, 'completed');
		service.finish(longJob, 'completed');
		trigger.poll();
		expect(parseState(clone(trigger.memory))).toEqual(trigger.memory);
	});

	test('answers that are not a list are noted and read no further', () => {
		const session = new PollSession(undefined, trigger(), Date.now());
		session.apply(session.next()!, { items: 'nope', total: 1 }, Date.now());
		expect(session.next()?.status).toBe('failed');
	});

	function trigger() {
		return {
			statuses: ['completed', 'failed'] as const,
			maxRequests: 10,
			maxItems: 100,
			account: 'a',
			credential: 'c',
		};
	}
});
