// What a paused Transcribe and Download's watcher does, without I/O (watcher.ts): what each answer to a check means,
// and what it does after each check. Its check times are timing.ts's (pause-until-webhook-timing.test.ts).
import { checkTimes } from '../../nodes/TranscriptionService/actions/transcription/transcribeAndDownload/timing';
import {
	afterCheck,
	checkOutcome,
	recheckAtMs,
	type WatchState,
} from '../../nodes/TranscriptionService/actions/transcription/transcribeAndDownload/watcher';

describe('the watcher', () => {
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
