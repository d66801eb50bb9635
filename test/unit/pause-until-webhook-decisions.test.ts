// A paused Transcribe and Download without I/O: what each request decides (decision.ts). What it stores in n8n is in
// pause-until-webhook-records.test.ts, what one process remembers in pause-until-webhook-ledger.test.ts, what the
// watcher does in pause-until-webhook-watcher.test.ts, the timing rules together in pause-until-webhook-timing.test.ts.
import type { PublicTranscriptionResponse } from '../../src/api';
import {
	checkResumesFrom,
	hearEvent,
	jobsToRead,
	knownSnapshots,
	learnSnapshot,
	jobsNotKnownEnded,
	verdict,
	type PauseRequest,
} from '../../nodes/TranscriptionService/actions/transcription/transcribeAndDownload/decision';
import type { ledgerOf } from '../../nodes/TranscriptionService/actions/transcription/transcribeAndDownload/ledger';
import type { PauseRecord } from '../../nodes/TranscriptionService/actions/transcription/transcribeAndDownload/pause-record';
import {
	ANSWERER_WAITS_MS,
	MAX_SETTLE_MS,
	SETTLE_MS,
	SETTLE_PER_DOWNLOAD_MS,
} from '../../nodes/TranscriptionService/actions/transcription/transcribeAndDownload/timing';
import { at, freshLedger, record } from '../support/fixtures/pause-records';

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
		expect(jobsNotKnownEnded(records, ledger)).toEqual(['job_a', 'job_d', 'job_e']);
		hearEvent(ledger, event('job_d', 5));
		expect(learnSnapshot(ledger, snapshot('job_a', 'failed', 4))).toBe(true);
		expect(learnSnapshot(ledger, snapshot('job_e', 'processing', 4))).toBe(false);
		expect(jobsNotKnownEnded(records, ledger)).toEqual(['job_e']);
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
		expect(verdict(records, ledger, deadline)).toEqual({ action: 'wait', pendingJobs: 2 });
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
		expect(verdict(records, ledger, event('job_b', 2))).toEqual({ action: 'wait', pendingJobs: 2 });
		expect(verdict(records, ledger, check(2))).toEqual({ action: 'wait', pendingJobs: 2 });
	});

	it('the deadline check resumes whatever the jobs say, once it has read each one', () => {
		const ledger = freshLedger();
		expect(verdict(records, ledger, check(0, true))).toEqual({ action: 'wait', pendingJobs: 3 });
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
