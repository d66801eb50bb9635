// The polling trigger's decisions (nodes/TranscriptionServicePollingTrigger/session.ts), driven against a model of
// GET /transcriptions in every list order: what a poll requests, what it emits, and what it stores.

import { OVERLAP_MS } from '../../nodes/TranscriptionServicePollingTrigger/cutoff';
import { PollSession } from '../../nodes/TranscriptionServicePollingTrigger/session';
import { ZONE_MS } from '../../nodes/TranscriptionServicePollingTrigger/status-poll';
import {
	MAX_ACCOUNTS,
	MAX_AMBIGUOUS,
	MAX_PENDING,
	newScan,
	parseState,
	RECENT_LIMIT,
	type PollState,
} from '../../nodes/TranscriptionServicePollingTrigger/state';
import { mulberry32 } from '../../sandbox/random';
import { LIST_PAGE_SIZE as PAGE_SIZE } from '../../src/client';
import {
	clone,
	newestJob,
	SIM_ORDERS,
	SimService,
	SimTrigger,
	type SimJob,
	type SimOrder,
} from '../support/fixtures/polling-sim';

const MINUTE = 60_000;

function keys(jobs: SimJob[], status: string): string[] {
	return jobs.map((job) => `${status}:${job.job_id}`);
}

function sorted(values: string[]): string[] {
	return [...values].sort();
}

/** A trigger activated a minute after 150 jobs ended in `status` (more than a page), then `count` jobs created. */
function activatedOverAFullList(order: SimOrder, status: string, count: number) {
	const service = new SimService(order);
	for (const job of service.create(150)) service.finish(job, status);
	service.advance(MINUTE);
	const trigger = new SimTrigger(service);
	trigger.activate();
	const created = service.create(count);
	service.advance(MINUTE);
	return { service, trigger, created };
}

describe.each(SIM_ORDERS)('list order %s', (order) => {
	describe('first activation', () => {
		test('starts from now: jobs already finished are never emitted, one request per selected status', () => {
			const service = new SimService(order);
			for (const job of service.create(250)) service.finish(job, 'completed');
			for (const job of service.create(30)) service.finish(job, 'failed');
			service.create(5); // still running
			service.advance(MINUTE);
			const trigger = new SimTrigger(service);

			const activation = trigger.activate();
			expect(activation.emit).toEqual([]);
			expect(activation.made.map((request) => [request.status, request.cursor])).toEqual([
				['completed', 0],
				['failed', 0],
			]);
			service.advance(MINUTE);
			const quiet = trigger.poll();
			expect(quiet.emit).toEqual([]);
			expect(quiet.requests).toBe(2);
			expect(trigger.emitted).toEqual([]);
		});

		test('a job that was running at activation is emitted when it completes', () => {
			const service = new SimService(order);
			for (const job of service.create(150)) service.finish(job, 'completed');
			const [running] = service.create(1);
			for (const job of service.create(150)) service.finish(job, 'completed');
			service.advance(MINUTE);
			const trigger = new SimTrigger(service);
			trigger.activate();

			service.advance(MINUTE);
			service.finish(running, 'completed');
			service.advance(MINUTE);
			trigger.pollUntilSettled();
			expect(trigger.emittedKeys()).toEqual([`completed:${running.job_id}`]);
		});

		test('jobs finished within the seconds around activation: the count tells old from new', () => {
			const service = new SimService(order);
			const old = service.create(400);
			for (const job of old) service.finish(job, 'completed');
			const [lateOld, earlyNew, otherNew] = service.create(3);
			service.advance(30 * MINUTE);
			// The oldest-created jobs finish just before activation (deep in a newest-first list) and just after it.
			service.finish(old[0], 'completed');
			service.finish(lateOld, 'completed');
			service.advance(400);
			const trigger = new SimTrigger(service);
			trigger.activate();
			service.advance(300);
			service.finish(earlyNew, 'completed');
			service.advance(5_000);
			service.finish(otherNew, 'completed');
			service.advance(MINUTE);

			trigger.pollUntilSettled();
			expect(sorted(trigger.emittedKeys())).toEqual(
				sorted(keys([earlyNew, otherNew], 'completed')),
			);
		});

		test('without a Date header it starts from its own clock, with a wider zone', () => {
			const service = new SimService(order);
			service.sendsDate = false;
			for (const job of service.create(120)) service.finish(job, 'completed');
			const [running] = service.create(1);
			service.advance(2 * MINUTE);
			const trigger = new SimTrigger(service);
			trigger.activate();
			service.advance(10_000);
			service.finish(running, 'completed');
			service.advance(MINUTE);
			trigger.pollUntilSettled();
			expect(trigger.emittedKeys()).toEqual([`completed:${running.job_id}`]);
		});
	});

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
		'order %s: a stored state carrying more than the bounds (as 05a2b4f wrote after such a page) is brought back within them, and every job is still emitted once',
		(order) => {
			const { service, trigger, jobs } = backlog(order);
			const state = trigger.memory as PollState;
			const completed = state.statuses.completed!;
			completed.pending = jobs.map((job) => [job.job_id, new Date(job.updatedAtMs).toISOString()]);
			const zoneDate = new Date(completed.since + 1).toISOString();
			completed.scan = {
				...newScan(0, service.jobs.length),
				ambiguous: Array.from({ length: 3 * MAX_AMBIGUOUS }, (_, index) => [
					`job_zone_${index}`,
					zoneDate,
				]),
			};
			expect(trigger.poll().emit).toHaveLength(100);
			const after = (trigger.memory as PollState).statuses.completed!;
			// The poll keeps MAX_PENDING found jobs, the 100 it emitted among them.
			expect(after.pending).toHaveLength(MAX_PENDING - 100);
			expect(after.scan?.ambiguous.length ?? 0).toBeLessThanOrEqual(MAX_AMBIGUOUS);
			trigger.pollUntilSettled(100);
			expect(sorted(trigger.emittedKeys())).toEqual(sorted(keys(jobs, 'completed')));
			expect(new Set(trigger.emittedKeys()).size).toBe(jobs.length);
		},
	);
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
			/1 job\(s\) counted by the service could not be found by their updated_at/,
		);
		service.finish(after, 'completed');
		service.advance(MINUTE);
		trigger.pollUntilSettled();
		expect(trigger.emittedKeys()).toEqual(keys([prompt, after], 'completed'));
	});
});

describe.each([
	['an hour ahead of', 60 * MINUTE],
	['an hour behind', -60 * MINUTE],
])("n8n's clock %s the service's (the service sends Date)", (_name, n8nClockAheadMs) => {
	test.each(SIM_ORDERS)(
		'order %s: starts from the service’s now, keeps the overlap on the service’s clock, each job once',
		(order) => {
			const service = new SimService(order);
			for (const job of service.create(300)) service.finish(job, 'completed');
			const [running, lagging, prompt] = service.create(3);
			service.advance(MINUTE);
			const [justBefore] = service.create(1);
			service.finish(justBefore, 'completed');
			service.advance(5_000);
			const trigger = new SimTrigger(service, { n8nClockAheadMs });
			const activatedAt = service.nowMs;
			trigger.activate();
			service.advance(5_000);
			service.finish(running, 'completed');
			service.advance(MINUTE);
			trigger.poll();
			// Listed five minutes after its updated_at, behind a job emitted meanwhile: within the overlap.
			service.finish(lagging, 'completed', 5 * MINUTE);
			service.advance(MINUTE);
			service.finish(prompt, 'failed');
			const newer = service.create(150);
			for (const job of newer) service.finish(job, 'completed');
			for (let minute = 0; minute < 8; minute++) {
				service.advance(MINUTE);
				trigger.poll();
			}
			trigger.pollUntilSettled();

			expect(sorted(trigger.emittedKeys())).toEqual(
				sorted([...keys([running, lagging, ...newer], 'completed'), `failed:${prompt.job_id}`]),
			);
			expect(trigger.polls.flatMap((run) => run.notes)).toEqual([]);
			// The latest emitted job bounds the watermark on the service's clock, whatever n8n's says.
			const state = trigger.memory as PollState;
			expect(state.latest).toBeLessThanOrEqual(service.nowMs + ZONE_MS);
			expect(state.statuses.completed?.since).toBe(Math.floor(activatedAt / 1000) * 1000 - ZONE_MS);
		},
	);
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
		const [job] = service.create(1);
		service.finish(job, 'completed');
		service.advance(MINUTE);
		trigger.reconfigure({ credential: 'key-2' });
		const carried = trigger.poll();
		expect(carried.emit.map((due) => due.job_id)).toEqual([job.job_id]);
		expect(carried.notes).toEqual([]);
		expect(trigger.memory).toMatchObject({ version: 2, account: 'acct_sim', credential: 'key-2' });
	});

	test.each([
		['not an object', 'junk'],
		['another version', { version: 2 }],
		[
			'a status that is not polled',
			{
				version: 2,
				account: 'a',
				credential: 'c',
				statuses: { queued: { known: 0, since: 0, zoneEnd: 0, clear: 0 } },
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

describe('Fetch Test Event (manual): the newest job', () => {
	test.each(SIM_ORDERS)('in order %s, across the selected statuses', (order) => {
		const service = new SimService(order);
		const jobs = service.create(450);
		for (const [index, job] of jobs.entries()) {
			service.advance(1000);
			service.finish(job, index % 5 === 0 ? 'failed' : 'completed');
		}
		// The newest state change belongs to an old job (created first).
		service.advance(1000);
		const [first] = jobs;
		first.status = 'processing';
		service.finish(first, 'completed');
		const { job, requests } = newestJob(service, ['completed', 'failed'], 20);
		expect(job?.job_id).toBe(first.job_id);
		expect(requests).toBeLessThanOrEqual(20);
		expect(newestJob(service, ['failed'], 20).job?.status).toBe('failed');
		expect(newestJob(service, ['cancelled'], 20).job).toBeUndefined();
	});

	test('the budget is shared between the statuses', () => {
		const service = new SimService('newest_first');
		for (const job of service.create(2000)) service.finish(job, 'completed');
		for (const job of service.create(150)) service.finish(job, 'failed');
		const [middle] = service.create(1);
		for (const job of service.create(150)) service.finish(job, 'failed');
		service.advance(1000);
		service.finish(middle, 'failed');
		const { job } = newestJob(service, ['completed', 'failed'], 10);
		expect(job?.job_id).toBe(middle.job_id);
	});

	test('within the budget when the lists are larger than it', () => {
		const service = new SimService('newest_first');
		for (const job of service.create(5000)) service.finish(job, 'completed');
		const { job, requests } = newestJob(service, ['completed'], 4);
		expect(requests).toBe(4);
		expect(job?.job_id).toBe(service.jobs.at(-1)?.job_id);
	});
});

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

		const expected = [...outcome]
			.filter(([, status]) => (statuses as readonly string[]).includes(status))
			.map(([jobId, status]) => `${status}:${jobId}`);
		expect(service.nowMs).toBeGreaterThan(activatedAt);
		expect(sorted(trigger.emittedKeys())).toEqual(sorted(expected));
		expect(trigger.polls.every((run) => run.requests <= trigger.settings().maxRequests)).toBe(true);
	});
});
