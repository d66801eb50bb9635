// What one process remembers of a paused Transcribe and Download, without I/O: the execution's ledger (ledger.ts:
// one per execution, bounded, its requests one after the other) and the node's checks it has answered
// (used-checks.ts).
import type { Logger } from 'n8n-workflow';

import {
	forgetLedger,
	ledgerOf,
	serialised,
} from '../../nodes/TranscriptionService/actions/transcription/transcribeAndDownload/ledger';
import {
	CHECK_LIFETIME_MS,
	deadlineTimings,
	MAX_LEDGERS,
	MAX_USED_CHECKS,
} from '../../nodes/TranscriptionService/actions/transcription/transcribeAndDownload/timing';
import { useCheck } from '../../nodes/TranscriptionService/actions/transcription/transcribeAndDownload/used-checks';
import {
	startWatcher,
	type WatcherSetup,
} from '../../nodes/TranscriptionService/actions/transcription/transcribeAndDownload/watcher';
import { at, FOREVER, freshLedger, PAUSE, record } from '../support/fixtures/pause-records';

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
