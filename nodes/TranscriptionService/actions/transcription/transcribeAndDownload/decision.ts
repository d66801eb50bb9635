// The decision procedure of a paused Transcribe and Download, without I/O: what a request (a service event or the
// pack's own check) teaches this process, which jobs it must read (older first), and what it answers.
//
// One resume across processes: every event whose "all ended" conclusion rests on a job that ended after the event
// was created defers to that job's own event, created later. The event created last (ties: the later item) never
// defers, so exactly one event resumes; if that one is lost, a check resumes (a check never defers).
import { isTerminalStatus, type PublicTranscriptionResponse } from '../../../../../src/api';
import type { Ledger } from './ledger';
import type { PauseRecord } from './pause-record';

export type PauseRequest =
	| { kind: 'event'; jobId: string; status: string; createdAt: string }
	/** `deadline`: Max Wait has run out, every job is read and the execution resumes whatever they say. */
	| { kind: 'check'; deadline: boolean };

export type Verdict =
	/** A job is still running (or not yet read): nothing can resume. */
	| { action: 'wait'; waitingFor: number }
	/** Every job has ended, but `laterJobId` ended after this event was created: its own event resumes. */
	| { action: 'defer'; laterJobId: string }
	| { action: 'resume' };

/** Statuses the service sends an event for; a cancelled job sends none. */
const STATUSES_WITH_EVENTS: ReadonlySet<string> = new Set(['completed', 'failed']);

/** The jobs of the pause this process does not know to have ended, in item order (older first). */
export function unknownJobs(records: readonly PauseRecord[], ledger: Ledger): string[] {
	return records
		.filter(
			(record) =>
				record.job_id !== undefined &&
				!isTerminalStatus(record.status ?? '') &&
				!ledger.ended.has(record.job_id),
		)
		.map((record) => record.job_id as string);
}

/** An event records its job as ended, with the status it says. */
export function hearEvent(ledger: Ledger, request: Extract<PauseRequest, { kind: 'event' }>): void {
	const known = ledger.ended.get(request.jobId);
	ledger.ended.set(request.jobId, {
		status: known?.status ?? request.status,
		endedAt: known?.endedAt ?? request.createdAt,
		snapshot: known?.snapshot,
	});
}

/** A snapshot read: remembered with its status and end when the job has ended. */
export function learnSnapshot(ledger: Ledger, job: PublicTranscriptionResponse): boolean {
	if (!isTerminalStatus(job.status)) return false;
	ledger.ended.set(job.job_id, { status: job.status, endedAt: job.updated_at, snapshot: job });
	return true;
}

/** What the request leads to, once this process has read what it could. */
export function verdict(
	records: readonly PauseRecord[],
	ledger: Ledger,
	request: PauseRequest,
): Verdict {
	const unknown = unknownJobs(records, ledger);
	if (request.kind === 'check') {
		return unknown.length === 0 || request.deadline
			? { action: 'resume' }
			: { action: 'wait', waitingFor: unknown.length };
	}
	if (unknown.length > 0) return { action: 'wait', waitingFor: unknown.length };
	const laterJobId = jobEndedAfter(records, ledger, request);
	return laterJobId === undefined ? { action: 'resume' } : { action: 'defer', laterJobId };
}

/** A job (with an event of its own) that ended after the event was created; equal times: the later item's. */
function jobEndedAfter(
	records: readonly PauseRecord[],
	ledger: Ledger,
	event: Extract<PauseRequest, { kind: 'event' }>,
): string | undefined {
	const eventAt = Date.parse(event.createdAt);
	const eventItem = records.find((record) => record.job_id === event.jobId)?.item ?? -1;
	for (const record of records) {
		const known = record.job_id === undefined ? undefined : ledger.ended.get(record.job_id);
		if (!known || record.job_id === event.jobId) continue;
		if (!STATUSES_WITH_EVENTS.has(known.status.toLowerCase())) continue;
		const endedAt = Date.parse(known.endedAt);
		if (endedAt > eventAt || (endedAt === eventAt && record.item > eventItem)) return record.job_id;
	}
	return undefined;
}
