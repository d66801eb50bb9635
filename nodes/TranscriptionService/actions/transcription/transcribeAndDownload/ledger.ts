// What a paused Transcribe and Download remembers, and what it decides when an event arrives — without I/O.
//
// n8n keeps one thing of a paused node: the items on its execution stack entry. They hold, per input item, the
// job to wait for, and they are shaped as Poll mode's max_wait_exceeded error items, because n8n hands exactly these
// items downstream when the wait runs out without running the node again. A webhook() that does not resume saves
// nothing, so what this process heard since the pause lives in a ledger in memory: exact when this process started
// the wait and stayed up (one n8n process); otherwise (a restart, a queue-mode webhook processor) unaccounted jobs
// are asked for once.

import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { isTerminalStatus } from '../../../../../src/api';
import { ARTIFACT_FORMATS, type ArtifactFormat } from '../../../../../src/artifacts';
import type { ItemError } from '../../../../shared/errors';

/** The key of a paused item's own record (beside `error`, the item's output if the wait runs out). */
export const PAUSE_KEY = 'transcription_pause';

/** One input item's part of a pause. */
export interface PauseRecord {
	/** The node that paused: the resume URL reaches whatever node of this execution waits next. */
	node_id: string;
	item: number;
	formats: ArtifactFormat[];
	/** Absent when the item failed before the pause: its `error` is then its final output. */
	job_id?: string;
	upload_id?: string;
	/** Last known status: at creation, or from a status check before the pause. */
	status?: string;
}

export interface PausedItem {
	error: ItemError;
	[PAUSE_KEY]: PauseRecord;
}

export function pausedItem(record: PauseRecord, error: ItemError): INodeExecutionData {
	const json: PausedItem = { error, [PAUSE_KEY]: record };
	return { json: json as unknown as IDataObject, pairedItem: { item: record.item } };
}

/** The records of a pause by `nodeId`, in item order; undefined when these items are not such a pause. */
export function readPause(items: unknown, nodeId: string): PauseRecord[] | undefined {
	if (!Array.isArray(items) || items.length === 0) return undefined;
	const records: PauseRecord[] = [];
	for (const item of items) {
		const record = (item as { json?: Record<string, unknown> })?.json?.[PAUSE_KEY];
		if (!isRecord(record, nodeId)) return undefined;
		records.push(record);
	}
	return records;
}

function isRecord(value: unknown, nodeId: string): value is PauseRecord {
	if (typeof value !== 'object' || value === null) return false;
	const record = value as Partial<PauseRecord>;
	return (
		record.node_id === nodeId &&
		typeof record.item === 'number' &&
		Array.isArray(record.formats) &&
		record.formats.every((format) => (ARTIFACT_FORMATS as readonly string[]).includes(format)) &&
		(record.job_id === undefined || typeof record.job_id === 'string')
	);
}

/** What one process knows of a paused execution beyond its stored items. */
export interface Ledger {
	/** This process paused the execution: every event for it reaches this process (one n8n process). */
	owned: boolean;
	/** Terminal statuses heard (events) or read (status checks), by job_id. */
	terminal: Map<string, string>;
	/** Set once one event decided to resume; later events are acknowledged and change nothing. */
	resuming: boolean;
	/** When the ledger may be forgotten (the wait ran out long ago). */
	forgetAtMs: number;
}

const ledgers = new Map<string, Ledger>();

/** The ledger of a paused execution in this process; created on first use (not owned, unless the pauser says so). */
export function ledgerOf(executionId: string, forgetAtMs: number, owned = false): Ledger {
	const nowMs = Date.now();
	for (const [id, ledger] of ledgers) if (ledger.forgetAtMs < nowMs) ledgers.delete(id);
	let ledger = ledgers.get(executionId);
	if (!ledger) {
		ledger = { owned, terminal: new Map(), resuming: false, forgetAtMs };
		ledgers.set(executionId, ledger);
	}
	return ledger;
}

export function forgetLedger(executionId: string): void {
	ledgers.delete(executionId);
}

/** The jobs of a pause whose end is not yet known. */
export function pendingJobs(records: readonly PauseRecord[], ledger: Ledger): string[] {
	return records
		.filter((record) => record.job_id !== undefined)
		.filter(
			(record) =>
				!ledger.terminal.has(record.job_id as string) && !isTerminalStatus(record.status ?? ''),
		)
		.map((record) => record.job_id as string);
}

export type EventDecision =
	/** The event names no job of this pause: refuse it, change nothing. */
	| { action: 'refuse' }
	/** Another event already resumes the execution. */
	| { action: 'acknowledge' }
	/** Jobs are still running (as far as this process can tell): acknowledge, keep waiting. */
	| { action: 'wait'; pending: string[] }
	/** This process may have missed events: ask the service about these jobs, then decide again. */
	| { action: 'check'; pending: string[] }
	/** Every job has ended: resume. */
	| { action: 'resume' };

/** Records the event's job as ended (`status` as the event says) and decides what the event leads to. */
export function decideOnEvent(
	records: readonly PauseRecord[],
	ledger: Ledger,
	jobId: string,
	status: string,
): EventDecision {
	if (!records.some((record) => record.job_id === jobId)) return { action: 'refuse' };
	if (ledger.resuming) return { action: 'acknowledge' };
	ledger.terminal.set(jobId, status);
	const pending = pendingJobs(records, ledger);
	if (pending.length === 0) return claimResume(ledger);
	return ledger.owned ? { action: 'wait', pending } : { action: 'check', pending };
}

/** After status checks: resume when nothing is pending any more (and no other event got there first). */
export function decideAfterCheck(records: readonly PauseRecord[], ledger: Ledger): EventDecision {
	if (ledger.resuming) return { action: 'acknowledge' };
	const pending = pendingJobs(records, ledger);
	return pending.length === 0 ? claimResume(ledger) : { action: 'wait', pending };
}

function claimResume(ledger: Ledger): EventDecision {
	ledger.resuming = true;
	return { action: 'resume' };
}
