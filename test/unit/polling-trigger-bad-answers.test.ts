// The Polling Trigger given answers it cannot use (nodes/TranscriptionServicePollingTrigger/session.ts, list.ts),
// driven against a model of GET /transcriptions in every list order: a garbled page, a list without its items or
// total, a failed request after the search has moved on within the poll. Nothing is emitted twice or dropped; the
// poll says what it could not read.
import { OVERLAP_MS } from '../../nodes/TranscriptionServicePollingTrigger/cutoff';
import { type PollState } from '../../nodes/TranscriptionServicePollingTrigger/state';
import {
	activatedOverAFullList,
	clone,
	keys,
	MINUTE,
	SIM_ORDERS,
	SimService,
	SimTrigger,
	sorted,
	type SimJob,
} from '../support/fixtures/polling-sim';

describe.each(SIM_ORDERS)('answers that are not a usable list (order %s)', (order) => {
	/** A service whose `failed` list has 150 jobs, a trigger on completed and failed, then one job that fails. */
	function failedBehindGarbledList() {
		const {
			service,
			trigger,
			created: [failed],
		} = activatedOverAFullList(order, 'failed', 1);
		service.finish(failed, 'failed');
		return { service, trigger, failed };
	}

	/** Completed jobs keep being emitted, one a minute, for longer than the overlap. */
	function completeOneAMinute(service: SimService, trigger: SimTrigger, minutes: number) {
		const completed: SimJob[] = [];
		const notes: string[] = [];
		for (let minute = 0; minute < minutes; minute++) {
			const [job] = service.create(1);
			service.advance(MINUTE);
			service.finish(job, 'completed');
			completed.push(job);
			const run = trigger.poll();
			expect(run.emit.map((due) => due.job_id)).toEqual([job.job_id]);
			notes.push(...run.notes);
		}
		return { completed, notes };
	}

	/** The list answers truly again: every job is emitted, each once. */
	function expectEachOnceAfterClearing(
		service: SimService,
		trigger: SimTrigger,
		expected: string[],
	) {
		service.replaceAnswer = undefined;
		service.advance(MINUTE);
		trigger.pollUntilSettled();
		expect(sorted(trigger.emittedKeys())).toEqual(sorted(expected));
	}

	test('a 200 without items for longer than the overlap: the status stays unsettled, its job is emitted once after', () => {
		const { service, trigger, failed } = failedBehindGarbledList();
		const before = clone((trigger.memory as PollState).statuses.failed);
		service.replaceAnswer = (request) =>
			request.status === 'failed' ? { total: 151, links: {} } : undefined;
		const garbled = completeOneAMinute(service, trigger, OVERLAP_MS / MINUTE + 5);
		expect(garbled.notes.filter((note) => note.startsWith('status=failed'))).toEqual(
			Array(OVERLAP_MS / MINUTE + 5).fill(
				'status=failed: the answer at cursor 0 is not a list (no items array or no count total); nothing of this status moves until a poll reads a valid answer',
			),
		);
		expect((trigger.memory as PollState).statuses.failed).toEqual(before);

		expectEachOnceAfterClearing(service, trigger, [
			...keys(garbled.completed, 'completed'),
			`failed:${failed.job_id}`,
		]);
	});

	test('a page that contradicts its total (a job listed where the total says none is): treated the same', () => {
		const { service, trigger, failed } = failedBehindGarbledList();
		service.replaceAnswer = (request, page) =>
			request.status === 'failed'
				? {
						items: page.items.filter((job) => (job as SimJob).job_id !== failed.job_id).slice(0, 1),
						total: 0,
					}
				: undefined;
		const garbled = completeOneAMinute(service, trigger, OVERLAP_MS / MINUTE + 5);
		expect(garbled.notes).toContain(
			'status=failed: the answer at cursor 0 is a page of 1 job(s) that contradicts its total of 0; nothing of this status moves until a poll reads a valid answer',
		);
		expect((trigger.memory as PollState).statuses.failed?.known).toBe(150);

		expectEachOnceAfterClearing(service, trigger, [
			...keys(garbled.completed, 'completed'),
			`failed:${failed.job_id}`,
		]);
	});

	test.each([
		['updated_at null', { updated_at: null }, 'updated_at null'],
		['no job_id', { job_id: undefined }, 'job_id undefined'],
		['another status', { status: 'processing' }, 'status "processing"'],
	])(
		'one job listed with %s in one answer: that page settles nothing, the note names the job and field, a later poll emits the job once',
		(_name, change, problem) => {
			const {
				service,
				trigger,
				created: [job],
			} = activatedOverAFullList(order, 'completed', 1);
			service.finish(job, 'completed');
			service.advance(MINUTE);
			const garbledAt: number[] = [];
			service.replaceAnswer = (request, page) => {
				const listed = (item: unknown) => (item as SimJob).job_id === job.job_id;
				if (garbledAt.length > 0 || !page.items.some(listed)) return undefined;
				garbledAt.push(request.cursor);
				return {
					...page,
					items: page.items.map((item) =>
						listed(item) ? { ...(item as object), ...change } : item,
					),
				};
			};

			const garbled = trigger.poll();
			expect(garbledAt).toHaveLength(1);
			expect(garbled.emit).toEqual([]);
			expect(garbled.settled).toBe(false);
			expect(garbled.notes).toEqual([
				`status=completed: the answer at cursor ${garbledAt[0]} lists ${
					'job_id' in change ? 'a job' : `job ${job.job_id}`
				} with ${problem}; nothing of this status moves until a poll reads a valid answer`,
			]);
			expect((trigger.memory as PollState).statuses.completed?.known).toBe(150);

			service.advance(MINUTE);
			trigger.pollUntilSettled();
			expect(trigger.emittedKeys()).toEqual([`completed:${job.job_id}`]);
			service.advance(MINUTE);
			expect(trigger.poll().emit).toEqual([]);
			// The count stayed true: no later poll found fewer jobs than accounted for, or any to write off.
			expect(trigger.polls.slice(2).flatMap((run) => run.notes)).toEqual([]);
		},
	);

	test('a garbled page in the middle of a search: the search goes on from where it was at the next poll', () => {
		const service = new SimService(order);
		for (const job of service.create(900)) service.finish(job, 'completed');
		service.advance(MINUTE);
		const trigger = new SimTrigger(service, { statuses: ['completed'], maxRequests: 4 });
		trigger.activate();
		service.advance(MINUTE);
		const [longJob] = service.create(1);
		const newer = service.create(300);
		for (const job of newer) service.finish(job, 'completed');
		service.advance(MINUTE);
		service.finish(longJob, 'completed');
		let answers = 0;
		service.replaceAnswer = (request) =>
			request.kind !== 'first_page' && ++answers % 3 === 0
				? { items: null, total: null }
				: undefined;
		for (let poll = 0; poll < 30; poll++) {
			service.advance(MINUTE);
			trigger.poll();
		}
		service.replaceAnswer = undefined;
		trigger.pollUntilSettled();
		expect(sorted(trigger.emittedKeys())).toEqual(sorted(keys([longJob, ...newer], 'completed')));
		expect(new Set(trigger.emittedKeys()).size).toBe(trigger.emitted.length);
	});
});

// Most-recently-updated-first lists the new jobs on the first page: there is no search to interrupt.
describe.each(SIM_ORDERS.filter((order) => order !== 'updated_first'))(
	'a fault after the search has moved on within the poll (order %s)',
	(order) => {
		/** Six jobs finish after 150 newer ones each: found by a search over a list of 906, two pages a poll. */
		function scattered() {
			const service = new SimService(order);
			const long: SimJob[] = [];
			for (let group = 0; group < 6; group++) {
				long.push(...service.create(1));
				for (const job of service.create(150)) service.finish(job, 'completed');
			}
			service.advance(MINUTE);
			const trigger = new SimTrigger(service, { statuses: ['completed'], maxRequests: 5 });
			trigger.activate();
			service.advance(MINUTE);
			for (const job of long) {
				service.advance(1000);
				service.finish(job, 'completed');
			}
			return { service, trigger, long };
		}

		/** The request of each poll that fails or is garbled: after its first page and two search pages. */
		const FAULT_AT = 3;
		test.each([
			['a request failing (5xx past the retries)', undefined],
			['an answer that is not a list', () => ({ items: null, total: null })],
			[
				'a page whose total is 50 more than the list',
				(page: { items: unknown[]; total: number }) => ({ ...page, total: page.total + 50 }),
			],
			[
				'a page whose total is 50 less than the list',
				(page: { items: unknown[]; total: number }) => ({ ...page, total: page.total - 50 }),
			],
		])(
			'%s after two search pages every poll, with restarts: each job emitted once, none written off',
			(_name, garble) => {
				const { service, trigger, long } = scattered();
				let pollStart = 0;
				let garbled = 0;
				if (garble) {
					service.replaceAnswer = (_request, page) => {
						if (service.requests.length - 1 - pollStart !== FAULT_AT) return undefined;
						garbled++;
						return garble(page);
					};
				}
				// Polls whose fault came after two search pages of their own had moved the search's position.
				let faultsAfterSearching = 0;
				for (let poll = 0; poll < 40 && trigger.emitted.length < long.length; poll++) {
					service.advance(MINUTE);
					pollStart = service.requests.length;
					const before = garbled;
					const run = trigger.poll({ failAt: garble ? undefined : FAULT_AT });
					const searched = run.made.slice(1, FAULT_AT);
					const faulted = run.interrupted || garbled > before;
					if (faulted && searched.every((request) => request.kind !== 'first_page')) {
						faultsAfterSearching++;
					}
					if (poll % 4 === 3) {
						pollStart = service.requests.length;
						trigger.restart();
					}
				}
				service.replaceAnswer = undefined;
				service.advance(MINUTE);
				trigger.pollUntilSettled();

				expect(faultsAfterSearching).toBeGreaterThan(1);
				expect(sorted(trigger.emittedKeys())).toEqual(sorted(keys(long, 'completed')));
				expect(trigger.polls.flatMap((run) => run.notes).join('\n')).not.toMatch(
					/could not be found/,
				);
				expect((trigger.memory as PollState).statuses.completed?.known).toBe(906);
			},
		);
	},
);
