// What one n8n process knows of a paused execution beyond its stored items. A webhook() that does not resume saves
// nothing, so what a process learned (from events and status reads) lives here, in memory: each process (the one
// that paused, a restarted one, a queue-mode webhook processor) keeps its own. Bounded: a ledger is dropped once the
// wait is surely over, and a process keeps at most MAX_LEDGERS.
import type { PublicTranscriptionResponse } from '../../../../../src/api';

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
	/** Set once a request of this process claimed the resume: later ones are only acknowledged. */
	resuming: boolean;
	/** When the ledger may be forgotten (the wait is over by then, whoever ended it). */
	forgetAtMs: number;
	/** The requests for this execution in this process, one after the other (see `serialised`). */
	queue: Promise<void>;
	/** Stops this process's watcher of the execution, when it has one. */
	watcher?: AbortController;
}

export const MAX_LEDGERS = 1000;

const ledgers = new Map<string, Ledger>();

/** The ledger of a paused execution in this process, created on first use. */
export function ledgerOf(executionId: string, forgetAtMs: number): Ledger {
	const nowMs = Date.now();
	for (const [id, ledger] of ledgers) if (ledger.forgetAtMs < nowMs) forgetLedger(id);
	let ledger = ledgers.get(executionId);
	if (ledger) return ledger;
	if (ledgers.size >= MAX_LEDGERS) {
		const [oldest] = [...ledgers.values()].sort((a, b) => a.forgetAtMs - b.forgetAtMs);
		forgetLedger(oldest.executionId);
	}
	ledger = {
		executionId,
		ended: new Map(),
		resuming: false,
		forgetAtMs,
		queue: Promise.resolve(),
	};
	ledgers.set(executionId, ledger);
	return ledger;
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
