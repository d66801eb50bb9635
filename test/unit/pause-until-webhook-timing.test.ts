// Pause Until Webhook's timing rules (timing.ts) hold only together: a change to one that breaks the rule it shares
// with another fails here at once. Below them, the schedules timing.ts computes: the watcher's check times and the
// deadline timings after Max Wait.
import { DEFAULT_TOLERANCE_SECONDS } from '../../src/webhooks';
import type { PauseRecord } from '../../nodes/TranscriptionService/actions/transcription/transcribeAndDownload/pause-record';
import {
	ANSWERER_WAITS_MS,
	CHECK_LIFETIME_MS,
	CHECK_LIMITS,
	CHECK_READ_POLICY,
	CHECK_TIMEOUT_MS,
	checkTimes,
	COLLECTION_MS,
	DEADLINE_RETRY_MS,
	DEADLINE_SKEW_MS,
	deadlineTimings,
	EVENT_LIMITS,
	EVENT_READ_POLICY,
	FIRST_CHECK_MS,
	LATER_FIRST_CHECK_MS,
	MAX_CHECK_INTERVAL_MS,
	MAX_LEDGERS,
	MAX_SETTLE_MS,
	MAX_SLEEP_MS,
	MAX_USED_CHECKS,
	MIN_BACKSTOP_MS,
	pauseTimes,
	READ_FAILED_RECHECK_MS,
	RESUME_WITHIN_AFTER_RESTART_MS,
	RESUME_WITHIN_MS,
	RETRY_FIRST_MS,
	RETRY_MAX_MS,
	SAVED_WITHIN_MS,
	SERVICE_WAITS_MS,
	SETTLE_RECHECK_MS,
	settleMs,
	SWEEP_EVERY_MS,
	WARN_AFTER_UNANSWERED,
	WATCHER_ROLES,
	worstReadMs,
} from '../../nodes/TranscriptionService/actions/transcription/transcribeAndDownload/timing';
import { record } from '../support/fixtures/pause-records';

const DEADLINE = '2026-11-25T10:30:00.000Z';
/** `items` records with `formats` each, every one with a job. */
const batch = (
	items: number,
	formats: PauseRecord['formats'],
	extra: Partial<PauseRecord> = {},
): PauseRecord[] =>
	Array.from({ length: items }, (_, item) => ({
		node_id: 'node-1',
		item,
		formats,
		...extra,
		resume_url: 'https://n8n.example.com/webhook-waiting/4711',
		deadline_at: DEADLINE,
		paused_at: '2026-11-25T10:00:00.000Z',
		check_key: 'c0ffee'.repeat(10) + 'c0de',
		job_id: `job_${item}`,
		upload_id: `upl_${item}`,
		status: 'queued',
	}));
const BATCHES = [
	batch(1, ['srt']),
	batch(10, ['srt', 'txt']),
	batch(100, ['srt', 'txt', 'pdf', 'docx']),
	batch(1000, ['srt', 'txt', 'pdf', 'docx']),
];

describe('a request claims the resume only while its sender still waits for the answer', () => {
	it("an event: its reads stop, then its answer goes out, before the service's wait ends", () => {
		expect(EVENT_LIMITS.readsMs).toBeLessThan(EVENT_LIMITS.claimMs);
		expect(EVENT_LIMITS.claimMs).toBeLessThan(SERVICE_WAITS_MS);
	});

	it("a check: its reads stop, then its answer goes out, before the watcher's wait ends", () => {
		expect(CHECK_LIMITS.readsMs).toBeLessThan(CHECK_LIMITS.claimMs);
		expect(CHECK_LIMITS.claimMs).toBeLessThan(CHECK_TIMEOUT_MS);
	});

	it('a read begun as the reads stop ends, at its slowest, before the claim must go out', () => {
		expect(EVENT_LIMITS.readsMs + worstReadMs(EVENT_READ_POLICY)).toBeLessThanOrEqual(
			EVENT_LIMITS.claimMs,
		);
		expect(CHECK_LIMITS.readsMs + worstReadMs(CHECK_READ_POLICY)).toBeLessThanOrEqual(
			CHECK_LIMITS.claimMs,
		);
	});

	it("a check verifies for less long than an event's tolerance: a captured check is refused sooner", () => {
		expect(CHECK_LIFETIME_MS).toBeLessThan(DEFAULT_TOLERANCE_SECONDS * 1000);
		// Verified on arrival, so the watcher's wait for the answer does not count against it.
		expect(CHECK_LIFETIME_MS).toBeGreaterThan(SERVICE_WAITS_MS);
	});
});

describe("the watcher's schedule", () => {
	it('the first check may meet the execution still being saved: a "not waiting" then is not final', () => {
		expect(FIRST_CHECK_MS).toBeLessThan(SAVED_WITHIN_MS);
		expect(WATCHER_ROLES.pauser.firstInMs).toBe(FIRST_CHECK_MS);
		expect(WATCHER_ROLES.answerer.firstInMs).toBe(LATER_FIRST_CHECK_MS);
		expect(FIRST_CHECK_MS).toBeLessThan(LATER_FIRST_CHECK_MS);
	});

	it('a check left unanswered, or whose reads failed, is tried again sooner than the next scheduled one could come', () => {
		expect(RETRY_FIRST_MS).toBeLessThanOrEqual(RETRY_MAX_MS);
		expect(RETRY_MAX_MS).toBeLessThanOrEqual(MAX_CHECK_INTERVAL_MS);
		expect(READ_FAILED_RECHECK_MS).toBeLessThan(MAX_CHECK_INTERVAL_MS);
	});

	it('says so in the log once a few checks in a row went unanswered, long before the wait could end', () => {
		// One unanswered check is a blip; the warning comes after the retries of a minute or so.
		expect(WARN_AFTER_UNANSWERED).toBeGreaterThan(1);
		let warnedAfterMs = 0;
		for (let retry = 1; retry < WARN_AFTER_UNANSWERED; retry++) {
			warnedAfterMs += Math.min(RETRY_FIRST_MS * 2 ** (retry - 1), RETRY_MAX_MS);
		}
		expect(warnedAfterMs).toBeLessThan(RESUME_WITHIN_MS);
	});

	it('a batch whose jobs have all ended resumes within RESUME_WITHIN_MS of the last end, whatever became of its events', () => {
		// The next check comes within MAX_CHECK_INTERVAL_MS of the end; one that leaves the end to its event checks again
		// once the settle (at most MAX_SETTLE_MS from the end) is over. Left over: two retries of a check nobody answered
		// and a check's reads at their slowest.
		const lastCheckAfterTheEnd = Math.max(MAX_CHECK_INTERVAL_MS, MAX_SETTLE_MS + SETTLE_RECHECK_MS);
		const twoRetries = RETRY_FIRST_MS + 2 * RETRY_FIRST_MS;
		expect(lastCheckAfterTheEnd + twoRetries + worstReadMs(CHECK_READ_POLICY)).toBeLessThanOrEqual(
			RESUME_WITHIN_MS,
		);
		for (const downloads of [0, 1, 10, 400, 4000]) {
			expect(settleMs(downloads)).toBeLessThanOrEqual(MAX_SETTLE_MS);
		}
	});

	it("another process's watcher leaves that resume to the pausing process's, and takes it over within RESUME_WITHIN_AFTER_RESTART_MS", () => {
		// The pauser's check has resumed by RESUME_WITHIN_MS; a collection of up to a minute then ends before any other
		// watcher's check may resume.
		expect(ANSWERER_WAITS_MS - RESUME_WITHIN_MS).toBeGreaterThanOrEqual(60_000);
		// A pauser that restarted: the answerer's check comes at most the settle and the wait after the end, and checks
		// again just after.
		expect(MAX_SETTLE_MS + ANSWERER_WAITS_MS).toBeLessThanOrEqual(RESUME_WITHIN_AFTER_RESTART_MS);
		expect(RESUME_WITHIN_AFTER_RESTART_MS).toBeLessThan(
			MAX_SETTLE_MS + ANSWERER_WAITS_MS + MAX_CHECK_INTERVAL_MS,
		);
	});

	it("never asks for a timer longer than Node's", () => {
		expect(MAX_SLEEP_MS).toBeLessThanOrEqual(2 ** 31 - 1);
		expect(MAX_SLEEP_MS).toBeGreaterThan(MAX_CHECK_INTERVAL_MS);
	});
});

describe('what a process keeps, bounded', () => {
	it('sweeps the ledgers whose time has passed well within the shortest wait they outlast', () => {
		expect(SWEEP_EVERY_MS).toBeLessThan(MIN_BACKSTOP_MS);
	});

	it('remembers more checks than the watchers of MAX_LEDGERS executions send within two check lifetimes', () => {
		const checksPerWatcher = Math.ceil((2 * CHECK_LIFETIME_MS) / MAX_CHECK_INTERVAL_MS);
		expect(MAX_USED_CHECKS).toBeGreaterThanOrEqual(MAX_LEDGERS * checksPerWatcher);
	});
});

describe('after Max Wait, for batches of 1 to 1,000 items', () => {
	it.each(BATCHES.map((records) => [records.length, records] as const))(
		"%i items: the tries, then the last try's collection, then n8n's own timeout, then the ledger is forgotten",
		(_items, records) => {
			const times = pauseTimes(records);
			expect(times.deadlineAtMs).toBe(Date.parse(DEADLINE));
			// The deadline check is tried a few times at least before its last try.
			expect(times.lastTryAtMs - times.deadlineAtMs).toBeGreaterThanOrEqual(2 * DEADLINE_RETRY_MS);
			expect(times.waitTillMs - times.lastTryAtMs).toBeGreaterThanOrEqual(COLLECTION_MS);
			expect(times.waitTillMs - times.deadlineAtMs).toBeGreaterThanOrEqual(MIN_BACKSTOP_MS);
			// A request may reach a process until n8n's own timeout: it keeps what it knows until then at least.
			expect(times.forgetAtMs).toBeGreaterThan(times.waitTillMs);
		},
	);
});

describe('the downloads a batch is timed for: SRT and WebVTT share one, Include Cues may add one', () => {
	it.each([
		[
			'SRT and WebVTT with cues',
			batch(300, ['srt', 'vtt'], { include_cues: true }),
			batch(300, ['srt']),
		],
		['DOCX with cues', batch(300, ['docx'], { include_cues: true }), batch(300, ['docx', 'txt'])],
	])('%s: as many as the batch with the same downloads', (_case, records, sameDownloads) => {
		expect(deadlineTimings(records)).toEqual(deadlineTimings(sameDownloads));
		expect(deadlineTimings(batch(300, ['docx']))).not.toEqual(
			deadlineTimings(batch(300, ['docx', 'txt'])),
		);
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
});
