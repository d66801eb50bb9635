// Pause Until Webhook's timing rules (timing.ts) hold only together: a change to one that breaks the rule it shares
// with another fails here at once.
import { DEFAULT_TOLERANCE_SECONDS } from '../../src/webhooks';
import type { PauseRecord } from '../../nodes/TranscriptionService/actions/transcription/transcribeAndDownload/pause-record';
import {
	ANSWERER_WAITS_MS,
	deadlineTimings,
	CHECK_LIFETIME_MS,
	CHECK_LIMITS,
	CHECK_TIMEOUT_MS,
	COLLECTION_MS,
	DEADLINE_RETRY_MS,
	EVENT_LIMITS,
	FIRST_CHECK_MS,
	LATER_FIRST_CHECK_MS,
	MAX_CHECK_INTERVAL_MS,
	MAX_SETTLE_MS,
	MIN_BACKSTOP_MS,
	pauseTimes,
	READ_FAILED_RECHECK_MS,
	RESUME_WITHIN_MS,
	RETRY_FIRST_MS,
	RETRY_MAX_MS,
	SAVED_WITHIN_MS,
	SERVICE_WAITS_MS,
	SETTLE_RECHECK_MS,
	settleMs,
	WATCHER_ROLES,
} from '../../nodes/TranscriptionService/actions/transcription/transcribeAndDownload/timing';

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
	it("an event: its reads stop, then its answer goes out, before the service's 10 s", () => {
		expect(EVENT_LIMITS.readsMs).toBeLessThan(EVENT_LIMITS.claimMs);
		expect(EVENT_LIMITS.claimMs).toBeLessThan(SERVICE_WAITS_MS);
	});

	it("a check: its reads stop, then its answer goes out, before the watcher's 120 s", () => {
		expect(CHECK_LIMITS.readsMs).toBeLessThan(CHECK_LIMITS.claimMs);
		expect(CHECK_LIMITS.claimMs).toBeLessThan(CHECK_TIMEOUT_MS);
	});

	it("a check verifies for a minute either side of its signing, an event's ±300 s: a captured check is refused sooner", () => {
		expect(CHECK_LIFETIME_MS).toBe(60_000);
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
	});

	it('a check left unanswered, or whose reads failed, is tried again sooner than the next scheduled one could come', () => {
		expect(RETRY_FIRST_MS).toBeLessThanOrEqual(RETRY_MAX_MS);
		expect(RETRY_MAX_MS).toBeLessThanOrEqual(MAX_CHECK_INTERVAL_MS);
		expect(READ_FAILED_RECHECK_MS).toBeLessThan(MAX_CHECK_INTERVAL_MS);
	});

	it('a batch whose jobs have all ended resumes within 2 minutes of the last end, whatever became of its events', () => {
		// The next check comes within MAX_CHECK_INTERVAL_MS of the end; one that leaves the end to its event checks again
		// once the settle (at most MAX_SETTLE_MS from the end) is over. Left over: two retries of a check nobody answered
		// (5 s, 10 s) and 10 s for its reads.
		const lastCheckAfterTheEnd = Math.max(MAX_CHECK_INTERVAL_MS, MAX_SETTLE_MS + SETTLE_RECHECK_MS);
		const twoRetries = RETRY_FIRST_MS + 2 * RETRY_FIRST_MS;
		expect(RESUME_WITHIN_MS).toBe(120_000);
		expect(lastCheckAfterTheEnd + twoRetries + 10_000).toBeLessThanOrEqual(RESUME_WITHIN_MS);
		for (const downloads of [0, 1, 10, 400, 4000]) {
			expect(settleMs(downloads)).toBeLessThanOrEqual(MAX_SETTLE_MS);
		}
		// …at a bounded cost: a check reads at most one job still running.
		expect((60 * 60_000) / MAX_CHECK_INTERVAL_MS).toBe(40);
	});

	it("another process's watcher leaves that resume to the pausing process's, and takes it over within 4.5 minutes", () => {
		// The pauser's check has resumed by RESUME_WITHIN_MS; a collection of up to a minute then ends before any other
		// watcher's check may resume.
		expect(ANSWERER_WAITS_MS - RESUME_WITHIN_MS).toBeGreaterThanOrEqual(60_000);
		// A pauser that restarted: the answerer's check comes at most the settle, the wait and a recheck after the end.
		expect(MAX_SETTLE_MS + ANSWERER_WAITS_MS + SETTLE_RECHECK_MS).toBeLessThanOrEqual(
			4.5 * 60_000 + SETTLE_RECHECK_MS,
		);
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
