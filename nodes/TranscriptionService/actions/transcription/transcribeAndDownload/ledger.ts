// What one n8n process knows of a paused execution beyond its stored items. A webhook() that does not resume saves
// nothing, so what a process learned (from events and status reads) lives here, in memory: each process (the one
// that paused, a restarted one, a queue-mode webhook processor) keeps its own. Bounded: a ledger is dropped once the
// execution resumed, once its watcher heard that it no longer waits, or once the wait is surely over; and a process
// keeps at most MAX_LEDGERS, each with at most one watcher.
import type { PublicTranscriptionResponse } from '../../../../../src/api';
import { MAX_LEDGERS, SWEEP_EVERY_MS } from './timing';

/** A job this process knows has ended. */
export interface KnownEnd {
	status: string;
	/** When it ended: its event's created_at, or its snapshot's updated_at (the service makes them equal). */
	endedAt: string;
	/** The snapshot read (absent when only its event told): the output's json, so it is never read again. */
	snapshot?: PublicTranscriptionResponse;
}

export interface Ledger {
	readonly executionId: string;
	/** By job_id; only jobs of the pause are ever entered. */
	readonly ended: Map<string, KnownEnd>;
	/**
	 * Jobs the deadline check read still running (by job_id, with that snapshot): a later try of the check reads on from
	 * where the last one stopped, and the resume outputs them with this status unless their end is known by then.
	 */
	readonly runningAtDeadline: Map<string, PublicTranscriptionResponse>;
	/** Set once a request of this process claimed the resume: later ones are only acknowledged. */
	resuming: boolean;
	/** When the ledger may be forgotten (the wait is over by then, whoever ended it). */
	forgetAtMs: number;
	/** The requests for this execution in this process, one after the other (see `serialised`). */
	queue: Promise<void>;
	/** Stops this process's watcher of the execution, when it has one. */
	watcher?: AbortController;
}

const ledgers = new Map<string, Ledger>();
let sweptAtMs = 0;

/** The ledger of a paused execution in this process, created on first use. */
export function ledgerOf(executionId: string, forgetAtMs: number): Ledger {
	const nowMs = Date.now();
	if (nowMs - sweptAtMs >= SWEEP_EVERY_MS || ledgers.size >= MAX_LEDGERS) {
		for (const [id, ledger] of ledgers) if (ledger.forgetAtMs < nowMs) forgetLedger(id);
		sweptAtMs = nowMs;
	}
	let ledger = ledgers.get(executionId);
	if (ledger && ledger.forgetAtMs >= nowMs) return ledger;
	if (ledger) forgetLedger(executionId);
	if (ledgers.size >= MAX_LEDGERS) {
		const evicted = leastNeeded();
		if (evicted) forgetLedger(evicted.executionId);
	}
	ledger = {
		executionId,
		ended: new Map(),
		runningAtDeadline: new Map(),
		resuming: false,
		forgetAtMs,
		queue: Promise.resolve(),
	};
	ledgers.set(executionId, ledger);
	return ledger;
}

/**
 * The ledger to drop for a new one. Never one that is resuming (a later request would resume again). First one
 * without a watcher (it only saves reads), the one due to be forgotten first; else the watched one whose wait ends
 * last: its events are still to come, and the process that answers one watches it again.
 */
function leastNeeded(): Ledger | undefined {
	let unwatched: Ledger | undefined;
	let watched: Ledger | undefined;
	for (const ledger of ledgers.values()) {
		if (ledger.resuming) continue;
		if (!ledger.watcher) {
			if (!unwatched || ledger.forgetAtMs < unwatched.forgetAtMs) unwatched = ledger;
		} else if (!watched || ledger.forgetAtMs > watched.forgetAtMs) {
			watched = ledger;
		}
	}
	return unwatched ?? watched;
}

/** Whether this ledger is still the one this process keeps for its execution (a watcher runs only for such a one). */
export function isKept(ledger: Ledger): boolean {
	return ledgers.get(ledger.executionId) === ledger;
}

/** Drops the ledger (the execution resumed, or its wait is long over) and stops its watcher. */
export function forgetLedger(executionId: string): void {
	ledgers.get(executionId)?.watcher?.abort();
	ledgers.delete(executionId);
}

/**
 * Runs `step` once every earlier step for this execution in this process has finished, so two requests never read
 * the same job twice nor both claim the resume.
 */
export async function serialised<T>(ledger: Ledger, step: () => Promise<T>): Promise<T> {
	const run = ledger.queue.then(step);
	ledger.queue = run.then(
		() => undefined,
		() => undefined,
	);
	return await run;
}
