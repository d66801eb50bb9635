// A paused Transcribe and Download without I/O: what it stores in n8n (pause-record.ts), what one process remembers
// (ledger.ts), what each request decides (decision.ts), and when its watcher checks (watcher.ts, timing.ts).
import type { Logger } from 'n8n-workflow';

import type { PublicTranscriptionResponse } from '../../src/api';
import {
	checkResumesFrom,
	hearEvent,
	jobsToRead,
	knownSnapshots,
	learnSnapshot,
	unknownJobs,
	verdict,
	type PauseRequest,
} from '../../nodes/TranscriptionService/actions/transcription/transcribeAndDownload/decision';
import {
	forgetLedger,
	ledgerOf,
	MAX_LEDGERS,
	serialised,
} from '../../nodes/TranscriptionService/actions/transcription/transcribeAndDownload/ledger';
import {
	readPause,
	storedError,
	storedItem,
	type PauseRecord,
} from '../../nodes/TranscriptionService/actions/transcription/transcribeAndDownload/pause-record';
import {
	ANSWERER_WAITS_MS,
	CHECK_LIFETIME_MS,
	checkTimes,
	DEADLINE_SKEW_MS,
	deadlineTimings,
	MAX_CHECK_INTERVAL_MS,
	MAX_SETTLE_MS,
	SETTLE_MS,
	SETTLE_PER_DOWNLOAD_MS,
} from '../../nodes/TranscriptionService/actions/transcription/transcribeAndDownload/timing';
import {
	MAX_USED_CHECKS,
	useCheck,
} from '../../nodes/TranscriptionService/actions/transcription/transcribeAndDownload/used-checks';
import {
	afterCheck,
	checkOutcome,
	recheckAtMs,
	startWatcher,
	type WatcherSetup,
	type WatchState,
} from '../../nodes/TranscriptionService/actions/transcription/transcribeAndDownload/watcher';

const NODE = 'node-1';
const PAUSE = {
	node_id: NODE,
	resume_url: 'https://n8n.example.com/webhook-waiting/4711?signature=abc',
	deadline_at: '2026-11-25T10:30:00.000Z',
	paused_at: '2026-11-25T10:00:00.000Z',
	check_key: 'c0ffee'.repeat(10) + 'c0de',
};
const record = (item: number, jobId?: string, status = 'queued'): PauseRecord => ({
	...PAUSE,
	item,
	formats: ['srt'],
	...(jobId ? { job_id: jobId, upload_id: `upl_${item}`, status } : {}),
});
const FOREVER = Date.now() + 60 * 60 * 1000;
let executions = 0;
const freshLedger = () => ledgerOf(`execution-${++executions}`, FOREVER);

const at = (second: number) => new Date(Date.UTC(2026, 10, 25, 10, 0, second)).toISOString();
type EventRequest = Extract<PauseRequest, { kind: 'event' }>;
const event = (jobId: string, second: number, status = 'completed'): EventRequest => ({
	kind: 'event',
	jobId,
	status,
	createdAt: at(second),
});
type CheckRequest = Extract<PauseRequest, { kind: 'check' }>;
/**
 * The node's own check, arriving at `second` (the deadline check when `deadline`), from the watcher of the process that
 * paused the execution unless `fromPauser` is false.
 */
const check = (second: number, deadline = false, fromPauser = true): CheckRequest => ({
	kind: 'check',
	atDeadline: deadline,
	atMs: Date.parse(at(second)),
	fromPauser,
});
/** The event, as this process has heard it. */
const heard = (ledger: ReturnType<typeof ledgerOf>, jobId: string, second: number) => {
	const request = event(jobId, second);
	hearEvent(ledger, request);
	return request;
};
const snapshot = (jobId: string, status: string, second: number) =>
	({ job_id: jobId, status, updated_at: at(second) }) as PublicTranscriptionResponse;

describe('the stored items', () => {
	const timeout = { code: 'max_wait_exceeded', message: 'Max Wait ran out', job_id: 'job_c' };

	it("are an error alone (n8n's error-output rule), the record nested inside it", () => {
		const item = storedItem(record(2, 'job_c'), timeout);
		expect(item).toEqual({
			json: { error: { ...timeout, pause: record(2, 'job_c') } },
			pairedItem: { item: 2 },
		});
		expect(Object.keys(item.json)).toEqual(['error']);
		expect(storedError(item)).toEqual(timeout);
	});

	it('are read back only when every item is a record of this node', () => {
		const items = [record(0, 'job_a'), record(1)].map((entry) =>
			storedItem(entry, { code: 'x', message: 'y' }),
		);
		expect(readPause(items, NODE)).toEqual([record(0, 'job_a'), record(1)]);
		expect(readPause(items, 'another-node')).toBeUndefined();
		expect(readPause([...items, { json: {} }], NODE)).toBeUndefined();
		expect(readPause([], NODE)).toBeUndefined();
		expect(readPause('junk', NODE)).toBeUndefined();
		const broken = (change: Partial<PauseRecord>) =>
			readPause([storedItem({ ...record(0, 'job_a'), ...change }, timeout)], NODE);
		expect(broken({ formats: ['exe' as never] })).toBeUndefined();
		expect(broken({ deadline_at: 'soon' })).toBeUndefined();
		expect(broken({ paused_at: undefined as never })).toBeUndefined();
		expect(broken({ check_key: 'not hex' })).toBeUndefined();
		expect(broken({ resume_url: undefined as never })).toBeUndefined();
	});
});

describe('the jobs a request reads: those not known to have ended, older first', () => {
	it('skips jobs known from events or reads, jobs that ended at creation, and items that failed before the pause', () => {
		const ledger = freshLedger();
		const records = [
			record(0, 'job_a'),
			record(1, 'job_b', 'completed'),
			record(2),
			record(3, 'job_d'),
			record(4, 'job_e'),
		];
		expect(unknownJobs(records, ledger)).toEqual(['job_a', 'job_d', 'job_e']);
		hearEvent(ledger, event('job_d', 5));
		expect(learnSnapshot(ledger, snapshot('job_a', 'failed', 4))).toBe(true);
		expect(learnSnapshot(ledger, snapshot('job_e', 'processing', 4))).toBe(false);
		expect(unknownJobs(records, ledger)).toEqual(['job_e']);
		expect(ledger.ended.get('job_a')).toEqual({
			status: 'failed',
			endedAt: at(4),
			snapshot: snapshot('job_a', 'failed', 4),
		});
	});

	it('an event for a job already read keeps the snapshot, so it is never read again', () => {
		const ledger = freshLedger();
		learnSnapshot(ledger, snapshot('job_a', 'completed', 3));
		hearEvent(ledger, event('job_a', 3));
		expect(ledger.ended.get('job_a')?.snapshot).toEqual(snapshot('job_a', 'completed', 3));
	});
});

describe('the deadline check of a batch the rate limit lets it read only in part', () => {
	const records = [0, 1, 2, 3].map((item) => record(item, `job_${'abcd'[item]}`));

	it('reads on where its last try stopped: a job read still running at Max Wait is not read again', () => {
		const ledger = freshLedger();
		const deadline = check(0, true);
		expect(jobsToRead(records, ledger, deadline)).toEqual(['job_a', 'job_b', 'job_c', 'job_d']);
		// The first try read two jobs, then the rate limit stopped it.
		learnSnapshot(ledger, snapshot('job_a', 'completed', 0));
		ledger.runningAtDeadline.set('job_b', snapshot('job_b', 'processing', 0));
		expect(jobsToRead(records, ledger, deadline)).toEqual(['job_c', 'job_d']);
		expect(verdict(records, ledger, deadline)).toEqual({ action: 'wait', waitingFor: 2 });
		// An event still reads every job not known to have ended, older first.
		expect(jobsToRead(records, ledger, event('job_c', 1))).toEqual(['job_b', 'job_c', 'job_d']);
	});

	it('outputs the reading at Max Wait unless the end is known since; an end only an event told of is read again', () => {
		const ledger = freshLedger();
		learnSnapshot(ledger, snapshot('job_a', 'completed', 0));
		ledger.runningAtDeadline.set('job_b', snapshot('job_b', 'processing', 0));
		ledger.runningAtDeadline.set('job_c', snapshot('job_c', 'processing', 0));
		ledger.runningAtDeadline.set('job_d', snapshot('job_d', 'processing', 0));
		hearEvent(ledger, event('job_c', 2));
		learnSnapshot(ledger, snapshot('job_d', 'failed', 3));
		expect(knownSnapshots(ledger)).toEqual(
			new Map([
				['job_b', snapshot('job_b', 'processing', 0)],
				['job_a', snapshot('job_a', 'completed', 0)],
				['job_d', snapshot('job_d', 'failed', 3)],
			]),
		);
	});
});

describe('the verdict', () => {
	const records = [record(0, 'job_a'), record(1, 'job_b'), record(2, 'job_c')];
	const learn = (ledger: ReturnType<typeof freshLedger>, ...jobs: Array<[string, number]>) => {
		for (const [jobId, second] of jobs) learnSnapshot(ledger, snapshot(jobId, 'completed', second));
	};

	it('waits while a job is not known to have ended, naming how many', () => {
		const ledger = freshLedger();
		learn(ledger, ['job_a', 1]);
		expect(verdict(records, ledger, event('job_b', 2))).toEqual({ action: 'wait', waitingFor: 2 });
		expect(verdict(records, ledger, check(2))).toEqual({ action: 'wait', waitingFor: 2 });
	});

	it('the deadline check resumes whatever the jobs say, once it has read each one', () => {
		const ledger = freshLedger();
		expect(verdict(records, ledger, check(0, true))).toEqual({ action: 'wait', waitingFor: 3 });
		learnSnapshot(ledger, snapshot('job_a', 'completed', 1));
		ledger.runningAtDeadline.set('job_b', snapshot('job_b', 'processing', 0));
		ledger.runningAtDeadline.set('job_c', snapshot('job_c', 'queued', 0));
		expect(verdict(records, ledger, check(0, true))).toEqual({ action: 'resume' });
	});

	it('resumes on the event created last', () => {
		const ledger = freshLedger();
		learn(ledger, ['job_a', 1], ['job_c', 2]);
		const last = heard(ledger, 'job_b', 3);
		expect(verdict(records, ledger, last)).toEqual({ action: 'resume' });
	});

	it("defers an event when a job it read ended after the event was created: that job's event resumes", () => {
		const ledger = freshLedger();
		learn(ledger, ['job_a', 1], ['job_c', 7]);
		const early = heard(ledger, 'job_b', 3);
		expect(verdict(records, ledger, early)).toEqual({ action: 'defer', laterJobId: 'job_c' });
		// A check never defers (once the last end is no longer recent: see below).
		expect(verdict(records, ledger, check(30))).toEqual({ action: 'resume' });
	});

	it('equal end times: the later item resumes, the earlier defers', () => {
		const processOne = freshLedger();
		learn(processOne, ['job_a', 1], ['job_c', 5]);
		const eventB = heard(processOne, 'job_b', 5);
		expect(verdict(records, processOne, eventB)).toEqual({ action: 'defer', laterJobId: 'job_c' });

		const processTwo = freshLedger();
		learn(processTwo, ['job_a', 1], ['job_b', 5]);
		const eventC = heard(processTwo, 'job_c', 5);
		expect(verdict(records, processTwo, eventC)).toEqual({ action: 'resume' });
	});

	it('a cancelled job sends no event: one that ended later is no reason to defer', () => {
		const ledger = freshLedger();
		learn(ledger, ['job_a', 1]);
		learnSnapshot(ledger, snapshot('job_c', 'cancelled', 9));
		const eventB = heard(ledger, 'job_b', 3);
		expect(verdict(records, ledger, eventB)).toEqual({ action: 'resume' });
	});

	it('of two processors that each hear one event and read the other job, exactly one resumes', () => {
		const pair = [record(0, 'job_a'), record(1, 'job_b')];
		const [first, second] = [freshLedger(), freshLedger()];
		const eventA = event('job_a', 4);
		const eventB = event('job_b', 6);
		hearEvent(first, eventA);
		learn(first, ['job_b', 6]);
		hearEvent(second, eventB);
		learn(second, ['job_a', 4]);
		const verdicts = [verdict(pair, first, eventA), verdict(pair, second, eventB)];
		expect(verdicts).toEqual([{ action: 'defer', laterJobId: 'job_b' }, { action: 'resume' }]);
	});
});

describe("a check that finds every job ended: it leaves a recent end to that job's event", () => {
	// The event may be resuming the execution in another process, downloading every artifact meanwhile; a check that
	// resumed too would download them all again (seen in R5: 100-item batches collected twice).
	const paused = (pausedAtSecond: number) =>
		[0, 1, 2].map((item) => ({
			...record(item, `job_${'abc'[item]}`),
			formats: ['srt', 'txt'] as PauseRecord['formats'],
			paused_at: at(pausedAtSecond),
		}));
	const ended = (...jobs: Array<[string, string, number]>) => {
		const ledger = freshLedger();
		for (const [jobId, status, second] of jobs)
			learnSnapshot(ledger, snapshot(jobId, status, second));
		return ledger;
	};

	it('settles until 5 s after the last end plus 2 s per artifact to download, then resumes', () => {
		const ledger = ended(
			['job_a', 'completed', 12],
			['job_b', 'completed', 14],
			['job_c', 'completed', 15],
		);
		const until = Date.parse(at(15)) + SETTLE_MS + 3 * 2 * SETTLE_PER_DOWNLOAD_MS;
		expect(until).toBe(Date.parse(at(32)));
		expect(checkResumesFrom(paused(10), ledger, check(0))).toBe(until);
		expect(verdict(paused(10), ledger, check(31))).toEqual({ action: 'settle', untilMs: until });
		expect(verdict(paused(10), ledger, check(32))).toEqual({ action: 'resume' });
	});

	it('the deadline check too, once every job has ended; with a job still running at its reading it resumes at once', () => {
		const ledger = ended(
			['job_a', 'completed', 12],
			['job_b', 'completed', 14],
			['job_c', 'completed', 15],
		);
		const until = Date.parse(at(32));
		expect(verdict(paused(10), ledger, check(31, true))).toEqual({
			action: 'settle',
			untilMs: until,
		});
		expect(verdict(paused(10), ledger, check(32, true))).toEqual({ action: 'resume' });
		const stillRunning = ended(['job_a', 'completed', 12], ['job_b', 'completed', 14]);
		stillRunning.runningAtDeadline.set('job_c', snapshot('job_c', 'processing', 0));
		expect(verdict(paused(10), stillRunning, check(15, true))).toEqual({ action: 'resume' });
	});

	it('a failed job has nothing to download; a cancelled one sends no event, so its end holds nothing back', () => {
		const ledger = ended(
			['job_a', 'completed', 12],
			['job_b', 'failed', 14],
			['job_c', 'cancelled', 40],
		);
		expect(checkResumesFrom(paused(10), ledger, check(0))).toBe(
			Date.parse(at(14)) + SETTLE_MS + 2 * SETTLE_PER_DOWNLOAD_MS,
		);
	});

	it("a check from a process that only answered requests leaves the resume to the pausing process's for 3 minutes more", () => {
		const ledger = ended(
			['job_a', 'completed', 12],
			['job_b', 'completed', 14],
			['job_c', 'cancelled', 40],
		);
		// The pauser's checks: the settle after job_b (the last end with an event), then resume.
		const settled = Date.parse(at(14)) + SETTLE_MS + 2 * 2 * SETTLE_PER_DOWNLOAD_MS;
		expect(verdict(paused(10), ledger, check(41))).toEqual({ action: 'resume' });
		// An answerer's: 3 minutes after the later of that settle and the last end of any job (job_c's, no event).
		const answerer = Date.parse(at(40)) + ANSWERER_WAITS_MS;
		expect(answerer).toBeGreaterThan(settled);
		expect(verdict(paused(10), ledger, check(41, false, false))).toEqual({
			action: 'settle',
			untilMs: answerer,
		});
		expect(verdict(paused(10), ledger, check(220, false, false))).toEqual({ action: 'resume' });
		// At the deadline every watcher's check resumes as the pauser's would.
		expect(verdict(paused(10), ledger, check(41, true, false))).toEqual({ action: 'resume' });
	});

	it('a large batch settles 90 s at most: a lost last event holds it back no longer than that', () => {
		const many = Array.from({ length: 100 }, (_, item) => ({
			...record(item, `job_${item}`),
			formats: ['srt', 'txt', 'pdf', 'docx'] as PauseRecord['formats'],
		}));
		const ledger = freshLedger();
		for (const entry of many) learnSnapshot(ledger, snapshot(entry.job_id!, 'completed', 20));
		expect(checkResumesFrom(many, ledger, check(0))).toBe(Date.parse(at(20)) + MAX_SETTLE_MS);
	});

	it('jobs that all ended before the pause hold nothing back: n8n refused their events while the execution ran', () => {
		const ledger = ended(
			['job_a', 'completed', 3],
			['job_b', 'completed', 5],
			['job_c', 'failed', 9],
		);
		expect(checkResumesFrom(paused(10), ledger, check(0))).toBeUndefined();
		expect(verdict(paused(10), ledger, check(15))).toEqual({ action: 'resume' });
	});
});

describe('the ledger of a paused execution in one process', () => {
	it('is one per execution, and forgetting it stops its watcher', () => {
		const first = ledgerOf('execution-ledger', FOREVER);
		expect(ledgerOf('execution-ledger', FOREVER)).toBe(first);
		const watcher = new AbortController();
		first.watcher = watcher;
		forgetLedger('execution-ledger');
		expect(watcher.signal.aborted).toBe(true);
		expect(ledgerOf('execution-ledger', FOREVER)).not.toBe(first);
	});

	it('is dropped once its time has passed, and at most MAX_LEDGERS are kept', () => {
		const stale = ledgerOf('execution-stale', Date.now() - 1);
		stale.ended.set('job_a', { status: 'completed', endedAt: at(1) });
		ledgerOf('execution-other', FOREVER);
		expect(ledgerOf('execution-stale', FOREVER).ended.size).toBe(0);

		const soonest = ledgerOf('execution-soonest', Date.now() + 1000);
		for (let index = 0; index < MAX_LEDGERS; index++) ledgerOf(`execution-many-${index}`, FOREVER);
		expect(ledgerOf('execution-soonest', FOREVER)).not.toBe(soonest);
		for (let index = 0; index < MAX_LEDGERS; index++) forgetLedger(`execution-many-${index}`);
	});

	describe('at MAX_LEDGERS', () => {
		const HOUR = 60 * 60 * 1000;
		const quiet = { warn: () => undefined } as unknown as Logger;
		/** A paused execution this process watches (its first check an hour away). */
		const watched = (executionId: string, forgetAtMs: number, answer: unknown = {}) => {
			const ledger = ledgerOf(executionId, forgetAtMs);
			startWatcher(watcherOf(ledger, HOUR, async () => answer));
			return ledger;
		};
		const watcherOf = (
			ledger: ReturnType<typeof ledgerOf>,
			firstInMs: number,
			httpRequest: WatcherSetup['httpRequest'],
		): WatcherSetup => ({
			ledger,
			resumeUrl: 'https://n8n.example.com/webhook-waiting/4711',
			deadlineAtMs: Date.now() + 2 * HOUR,
			lastTryAtMs: Date.now() + 3 * HOUR,
			firstInMs,
			seenWaiting: true,
			role: 'answerer',
			checkKey: PAUSE.check_key,
			httpRequest,
			logger: quiet,
		});
		const filled: string[] = [];
		/** MAX_LEDGERS paused executions, each watched, forgotten in the order made (the first soonest). */
		const fill = (count = MAX_LEDGERS) => {
			const made = Array.from({ length: count }, (_, index) => {
				const id = `execution-full-${filled.length}`;
				filled.push(id);
				return watched(id, Date.now() + HOUR + index);
			});
			return made;
		};
		afterEach(() => {
			for (const id of filled.splice(0)) forgetLedger(id);
		});

		it('fit the paused executions of a queue-mode worker at bench P5 three times over', () => {
			// 64 pauses a minute, each kept for Max Wait (30 min by default) + twice n8n's backstop.
			const keptMinutes = 30 + (2 * deadlineTimings([record(0, 'job_a')]).backstopMs) / 60_000;
			expect(MAX_LEDGERS).toBeGreaterThanOrEqual(3 * 64 * keptMinutes);
		});

		it('a new pause gets its watcher, and the one next due for its Max Wait check keeps its own', () => {
			const made = fill();
			const newest = watched('execution-new-pause', Date.now() + 2 * HOUR);
			filled.push('execution-new-pause');
			expect(newest.watcher?.signal.aborted).toBe(false);
			expect(made[0].watcher?.signal.aborted).toBe(false);
			// The one evicted is the watched execution whose wait ends last.
			expect(made.filter((ledger) => ledger.watcher?.signal.aborted !== false)).toEqual([
				made.at(-1),
			]);
		});

		it('drops first a ledger that no longer needs watching, never one that is resuming', () => {
			const resuming = ledgerOf('execution-resuming', Date.now() + HOUR / 2);
			resuming.resuming = true;
			const unwatched = ledgerOf('execution-unwatched', Date.now() + 3 * HOUR);
			filled.push('execution-resuming', 'execution-unwatched');
			const made = fill(MAX_LEDGERS - 2);
			watched('execution-new-pause', Date.now() + 2 * HOUR);
			filled.push('execution-new-pause');
			expect(made.every((ledger) => ledger.watcher?.signal.aborted === false)).toBe(true);
			expect(ledgerOf('execution-resuming', FOREVER)).toBe(resuming);
			expect(ledgerOf('execution-unwatched', FOREVER)).not.toBe(unwatched);
		});

		it('a watcher that hears the execution no longer waits drops its ledger', async () => {
			const ledger = ledgerOf('execution-resumed-elsewhere', FOREVER);
			filled.push('execution-resumed-elsewhere');
			startWatcher(
				watcherOf(ledger, 1, async () => ({
					statusCode: 409,
					body: { code: 409, message: 'The execution "4711 has finished already.' },
				})),
			);
			for (
				let turn = 0;
				turn < 200 && ledgerOf('execution-resumed-elsewhere', FOREVER) === ledger;
				turn++
			) {
				await new Promise((resolve) => setTimeout(resolve, 10));
			}
			expect(ledgerOf('execution-resumed-elsewhere', FOREVER)).not.toBe(ledger);
		});
	});

	it('runs the requests of one execution one after the other', async () => {
		const ledger = freshLedger();
		const order: string[] = [];
		const slow = serialised(ledger, async () => {
			order.push('first starts');
			await new Promise((resolve) => setImmediate(resolve));
			order.push('first ends');
			throw new Error('a failed request does not block the next');
		});
		const next = serialised(ledger, async () => {
			order.push('second');
			return 2;
		});
		await expect(slow).rejects.toThrow('does not block');
		expect(await next).toBe(2);
		expect(order).toEqual(['first starts', 'first ends', 'second']);
	});
});

describe('a check is answered once in each process', () => {
	const id = (n: number) => n.toString(16).padStart(32, '0');

	it('refuses a check it answered before, for as long as that check could be verified', () => {
		const signedAtMs = Date.parse(at(0));
		expect(useCheck(id(1), signedAtMs, signedAtMs + 100)).toBe(true);
		expect(useCheck(id(1), signedAtMs, signedAtMs + 200)).toBe(false);
		expect(useCheck(id(2), signedAtMs, signedAtMs + 300)).toBe(true);
		expect(useCheck(id(1), signedAtMs, signedAtMs + CHECK_LIFETIME_MS)).toBe(false);
		// Past its lifetime the signature check refuses it anyway: it is forgotten.
		expect(useCheck(id(3), signedAtMs, signedAtMs + CHECK_LIFETIME_MS + 1)).toBe(true);
		expect(
			useCheck(id(1), signedAtMs + CHECK_LIFETIME_MS, signedAtMs + CHECK_LIFETIME_MS + 2),
		).toBe(true);
	});

	it(`remembers at most MAX_USED_CHECKS, forgetting the oldest first`, () => {
		const signedAtMs = Date.parse(at(0)) + 10 * CHECK_LIFETIME_MS;
		for (let n = 0; n < MAX_USED_CHECKS; n++) useCheck(id(1000 + n), signedAtMs, signedAtMs);
		expect(useCheck(id(1000), signedAtMs, signedAtMs)).toBe(false);
		expect(useCheck(id(999), signedAtMs, signedAtMs)).toBe(true);
		// The oldest went to make room; the newest are still known.
		expect(useCheck(id(1000), signedAtMs, signedAtMs)).toBe(true);
		expect(useCheck(id(1000 + MAX_USED_CHECKS - 1), signedAtMs, signedAtMs)).toBe(false);
	});
});

describe('the watcher', () => {
	it('checks soon after the pause, then at intervals growing ×3 up to 90 s, then at Max Wait and shortly after until the backstop', () => {
		const startMs = 0;
		const deadlineAtMs = 30 * 60 * 1000;
		const lastTryAtMs = deadlineAtMs + 8 * 60_000;
		const times = checkTimes({ startMs, firstInMs: 5000, deadlineAtMs, lastTryAtMs });
		const beforeDeadline = times.filter((time) => time < deadlineAtMs);
		expect(beforeDeadline.slice(0, 5)).toEqual([5_000, 20_000, 65_000, 155_000, 245_000]);
		const gaps = beforeDeadline.slice(3).map((time, index) => time - beforeDeadline[index + 2]);
		expect(new Set(gaps)).toEqual(new Set([90_000]));
		expect(beforeDeadline.at(-1)).toBeLessThan(deadlineAtMs - DEADLINE_SKEW_MS);
		expect(beforeDeadline.at(-1)).toBeGreaterThanOrEqual(deadlineAtMs - DEADLINE_SKEW_MS - 90_000);
		const fromDeadline = times.filter((time) => time >= deadlineAtMs);
		expect(fromDeadline).toHaveLength(17);
		expect(fromDeadline[0]).toBe(deadlineAtMs);
		expect(fromDeadline[1] - fromDeadline[0]).toBe(30_000);
		expect(fromDeadline.at(-1)).toBe(lastTryAtMs);
	});

	it("after Max Wait: the tries, then the last try's collection, before n8n's own timeout, scaled with items × formats", () => {
		const batch = (items: number, formats: PauseRecord['formats']) =>
			deadlineTimings(
				Array.from({ length: items }, (_, item) => ({ ...record(item, `job_${item}`), formats })),
			);
		const minutes = (ms: number) => ms / 60_000;
		// Small batches: n8n's timeout 10 minutes after Max Wait, the deadline check tried for over 8 of them.
		for (const small of [batch(1, ['srt']), batch(3, ['srt', 'txt'])]) {
			expect(minutes(small.backstopMs)).toBe(10);
			expect(small.lastTryMs).toBeGreaterThanOrEqual(8 * 60_000);
		}
		// 100 items × 4 formats: 100 status reads at the deadline, then 400 downloads, each at the lowest tier's 30
		// requests a minute, twice over; the tries also leave the last end to its event (5 s + 2 s per download).
		const large = batch(100, ['srt', 'txt', 'pdf', 'docx']);
		expect(large.lastTryMs).toBeGreaterThanOrEqual(
			7 * 60_000 + 2 * 100 * 2_000 + 5_000 + 400 * 2_000,
		);
		expect(large.backstopMs - large.lastTryMs).toBeGreaterThanOrEqual(2 * (100 + 400) * 2_000);
		expect(minutes(large.backstopMs)).toBe(62);
		// Items that failed before the pause have nothing to read or download.
		const failedBeforePause = deadlineTimings([
			record(0, 'job_a'),
			...Array.from({ length: 99 }, (_, item) => record(item + 1)),
		]);
		expect(failedBeforePause).toEqual(batch(1, ['srt']));
	});

	it('never waits longer than MAX_CHECK_INTERVAL_MS between two checks', () => {
		const deadlineAtMs = 24 * 3600_000;
		const times = checkTimes({
			startMs: 0,
			firstInMs: 5000,
			deadlineAtMs,
			lastTryAtMs: deadlineAtMs + 8 * 60_000,
		});
		const gaps = times.slice(1).map((time, index) => time - times[index]);
		expect(Math.max(...gaps)).toBe(MAX_CHECK_INTERVAL_MS);
	});

	it("tells this node's answers from n8n's own", () => {
		expect(checkOutcome(200, { received: true, pause_check: 'waiting', waiting_for: 2 })).toBe(
			'waiting',
		);
		expect(checkOutcome(503, { error: 'status_unavailable', pause_check: 'read_failed' })).toBe(
			'read_failed',
		);
		expect(checkOutcome(409, { code: 409, message: 'The execution "7" is running already.' })).toBe(
			'not_waiting',
		);
		expect(checkOutcome(404, { code: 404, message: 'The execution "7" does not exist.' })).toBe(
			'not_waiting',
		);
		expect(checkOutcome(500, { error: 'internal_error', pause_check: 'failed' })).toBe('failed');
		expect(checkOutcome(401, { error: 'signature_mismatch' })).toBe('unreachable');
		expect(checkOutcome(502, undefined)).toBe('unreachable');
		expect(checkOutcome(200, { message: 'n8n is starting up. Please wait' })).toBe('unreachable');
		expect(checkOutcome(500, { code: 0, message: 'Internal error' })).toBe('unreachable');
		expect(checkOutcome(200, { pause_check: 'made up' })).toBe('unreachable');
	});

	describe('after each check: stop only on a final answer, else the next check', () => {
		const deadlineAtMs = 30 * 60 * 1000;
		const times = checkTimes({
			startMs: 0,
			firstInMs: 5000,
			deadlineAtMs,
			lastTryAtMs: deadlineAtMs + 8 * 60_000,
		});
		const watching = (seenWaiting = false): WatchState => ({
			startedAtMs: 0,
			seenWaiting,
			unanswered: 0,
			warned: false,
		});
		const next = (atMs: number, warn = false) => ({ action: 'check', atMs, warn });

		it('no answer from this node (a proxy, n8n starting up, its own failure): tries again 5, 10, 20, 40, 60 s later, never after the next scheduled check, and warns once', () => {
			const state = watching();
			const steps = [
				afterCheck(times, state, 'unreachable', 5_000),
				afterCheck(times, state, 'unreachable', 10_000),
				afterCheck(times, state, 'failed', 20_000),
				afterCheck(times, state, 'unreachable', 40_000),
				afterCheck(times, state, 'unreachable', 65_000),
				afterCheck(times, state, 'unreachable', 125_000),
				afterCheck(times, state, 'unreachable', 155_000),
			];
			expect(steps).toEqual([
				next(10_000),
				next(20_000),
				next(40_000, true),
				next(65_000),
				next(125_000),
				next(155_000),
				next(215_000),
			]);
			// An answer from the node: back on the schedule, and the next failure starts again at 5 s.
			expect(afterCheck(times, state, 'waiting', 215_000)).toEqual(next(245_000));
			expect(afterCheck(times, state, 'unreachable', 245_000)).toEqual(next(250_000));
		});

		it("left to a recent end's event: checks again just after the settle; reads that failed: 30 s later, both never after the schedule", () => {
			const state = watching(true);
			const settling = (untilMs: number) => ({
				received: true,
				settling_until: new Date(untilMs).toISOString(),
				pause_check: 'waiting',
			});
			const sooner = (outcome: 'waiting' | 'read_failed', body: unknown, nowMs: number) =>
				afterCheck(times, state, outcome, nowMs, recheckAtMs(outcome, body, nowMs));
			expect(recheckAtMs('waiting', settling(170_000), 155_000)).toBe(171_000);
			expect(sooner('waiting', settling(170_000), 155_000)).toEqual(next(171_000));
			// A settle longer than the schedule's next check: the schedule comes first.
			expect(sooner('waiting', settling(300_000), 155_000)).toEqual(next(245_000));
			expect(sooner('waiting', { received: true, waiting_for: 2 }, 155_000)).toEqual(next(245_000));
			const failedReads = { error: 'status_unavailable', pause_check: 'read_failed' };
			expect(sooner('read_failed', failedReads, 155_000)).toEqual(next(185_000));
			expect(sooner('read_failed', failedReads, 230_000)).toEqual(next(245_000));
			// Answers: no retry count, no warning.
			expect(state.unanswered).toBe(0);
		});

		it('unanswered to the end: tried again until the last deadline check, then it stops', () => {
			const state = watching(true);
			const last = times.at(-1) as number;
			expect(afterCheck(times, state, 'unreachable', deadlineAtMs)).toEqual(
				next(deadlineAtMs + 5_000),
			);
			Object.assign(state, { unanswered: 10, warned: true });
			expect(afterCheck(times, state, 'unreachable', last - 1_000)).toEqual(next(last));
			expect(afterCheck(times, state, 'unreachable', last)).toEqual({
				action: 'stop',
				over: false,
			});
		});

		it("stops on this node's resumed or not_paused, and on n8n's not-waiting once the execution was seen waiting", () => {
			const over = { action: 'stop', over: true };
			expect(afterCheck(times, watching(), 'resumed', 5_000)).toEqual(over);
			expect(afterCheck(times, watching(), 'not_paused', 5_000)).toEqual(over);
			expect(afterCheck(times, watching(true), 'not_waiting', 5_000)).toEqual(over);
			// Not seen waiting yet: n8n may still be saving it; a minute after the pause its answer is final.
			const state = watching();
			expect(afterCheck(times, state, 'not_waiting', 5_000)).toEqual(next(20_000));
			expect(afterCheck(times, state, 'not_waiting', 20_000)).toEqual(next(65_000));
			expect(afterCheck(times, state, 'not_waiting', 65_000)).toEqual(over);
			// The node's own failure (500 with pause_check) means n8n ran it: the execution was waiting.
			const failedOnce = watching();
			afterCheck(times, failedOnce, 'failed', 5_000);
			expect(afterCheck(times, failedOnce, 'not_waiting', 10_000)).toEqual(over);
			// A proxy's answer proves nothing.
			const proxied = watching();
			afterCheck(times, proxied, 'unreachable', 5_000);
			expect(afterCheck(times, proxied, 'not_waiting', 10_000)).toEqual(next(20_000));
		});
	});
});
