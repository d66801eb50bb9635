// What a paused Transcribe and Download keeps in n8n. n8n keeps one thing of a paused node: the items on its execution
// stack entry. Per input item they hold the job to wait for and where and until when to check it, and they are shaped
// as the item's output if n8n itself ends the wait (its timeout runs the node's code no more; it hands these items on
// as they are): an `error` alone, which "On Error → Continue (using error output)" sends to the error output. The
// record rides inside that error.
import { randomBytes } from 'crypto';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { isDownloadFormat, type DownloadFormat } from '../../../../../src/artifacts';
import { downloadsFor } from '../../../../../src/artifacts';
import type { ItemError } from '../../../../shared/errors';

/** 32 random bytes, hex. */
const CHECK_KEY = /^[0-9a-f]{64}$/;

/** A new pause's check key. */
export function newCheckKey(): string {
	return randomBytes(32).toString('hex');
}

/** One input item's part of a pause. */
export interface PauseRecord {
	/** The node that paused: the resume URL reaches whatever node of this execution waits next. */
	node_id: string;
	item: number;
	formats: DownloadFormat[];
	/** Options → Include Cues; absent in records written before it existed. */
	include_cues?: boolean;
	/** The resume URL exactly as n8n gave it (n8n 2.15+ signs it): where the pack's checks are sent. */
	resume_url: string;
	/** When Max Wait runs out (ISO): a check from then on is the deadline check. */
	deadline_at: string;
	/** When the execution was put to wait (ISO, n8n's clock). */
	paused_at: string;
	/**
	 * The key the pack's checks of this pause are signed with (hex): drawn at random at the pause, held by n8n alone
	 * (with the paused execution, in its database), the same for every process, kept across restarts.
	 */
	check_key: string;
	/** Absent when the item failed before the pause: its error is then its final output. */
	job_id?: string;
	upload_id?: string;
	/** The status the job was created with (a test key's job is completed at once). */
	status?: string;
}

/** The downloads a completed job of this record costs: SRT and WebVTT share one, the cues may add one. */
export function recordDownloads(record: PauseRecord): number {
	return downloadsFor({ choices: record.formats, cues: record.include_cues === true });
}

/** The pause's Max Wait (the run's, readMaxWaitMs): from the pause to its deadline. */
export function maxWaitMsOf(records: readonly PauseRecord[]): number {
	return Date.parse(records[0].deadline_at) - Date.parse(records[0].paused_at);
}

/** The stored item of one input item: an error alone, the record nested in it. */
export function storedItem(record: PauseRecord, error: ItemError): INodeExecutionData {
	return {
		json: { error: { ...error, pause: record } as unknown as IDataObject },
		pairedItem: { item: record.item },
	};
}

/** The error of a stored item as the user sees it at the resume: without the record. */
export function storedError(item: INodeExecutionData): ItemError {
	const error = { ...(item.json.error as ItemError & { pause?: unknown }) };
	delete error.pause;
	return error;
}

/** The records of a pause by `nodeId`, in item order; undefined when these items are not such a pause. */
export function readPause(items: unknown, nodeId: string): PauseRecord[] | undefined {
	if (!Array.isArray(items) || items.length === 0) return undefined;
	const records: PauseRecord[] = [];
	for (const item of items) {
		const error = (item as { json?: { error?: { pause?: unknown } } })?.json?.error;
		const record = error?.pause;
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
		record.formats.every((format) => isDownloadFormat(format)) &&
		(record.include_cues === undefined || typeof record.include_cues === 'boolean') &&
		typeof record.resume_url === 'string' &&
		typeof record.deadline_at === 'string' &&
		!Number.isNaN(Date.parse(record.deadline_at)) &&
		typeof record.paused_at === 'string' &&
		!Number.isNaN(Date.parse(record.paused_at)) &&
		typeof record.check_key === 'string' &&
		CHECK_KEY.test(record.check_key) &&
		(record.job_id === undefined || typeof record.job_id === 'string')
	);
}
