// The decision procedure of a paused Transcribe and Download, without I/O: what a request (a service event or the
// pack's own check) teaches this process, which jobs it must read (older first), and what it answers.
//
// One resume across processes: every event whose "all ended" conclusion rests on a job that ended after the event
// was created defers to that job's own event, created later. The event created last (ties: the later item) never
// defers, so exactly one event resumes; if that one is lost, a check resumes. A check never defers, but it leaves a
// recent end to its event for a while (`checkResumesFrom`; the deadline check too, once every job has ended): that
// event may be resuming the execution in another process, whose collection downloads every artifact, and a check
// resuming meanwhile would download them all again (n8n 2.x then refuses the second resume; n8n 1.x has no such
// guard). Likewise two checks: the watchers of several processes check at the same pace, so a check from a process
// that only answered requests leaves the resume to the pausing process's checks for ANSWERER_WAITS_MS more (its own
// are the net for a pauser that restarted). Two deliveries of one event at two processes at once cannot be told apart
// without a lock the processes share, which a node does not have.
import {
	hasEvent,
	isCompletedStatus,
	isTerminalStatus,
	type PublicTranscriptionResponse,
} from '../../../../../src/api';
import type { Ledger } from './ledger';
import { recordDownloads, type PauseRecord } from './pause-record';
import { ANSWERER_WAITS_MS, settleMs } from './timing';

export type PauseRequest =
	| { kind: 'event'; jobId: string; status: string; createdAt: string }
	/**
	 * `atDeadline`: it is the deadline check (Max Wait has run out); once every job is read (over as many tries as the
	 * rate limit takes) the execution resumes whatever they say. `atMs`: when it arrived (this process's clock).
	 * `fromPauser`: sent by the watcher of the process that paused the execution.
	 */
	| { kind: 'check'; atDeadline: boolean; atMs: number; fromPauser: boolean };

export type Verdict =
	/** A job is still running (or not yet read): nothing can resume. `pendingJobs`: how many, a count. */
	| { action: 'wait'; pendingJobs: number }
	/** Every job has ended, but `laterJobId` ended after this event was created: its own event resumes. */
	| { action: 'defer'; laterJobId: string }
	/** A check found every job ended, the last one recently: its event may be resuming elsewhere until `untilMs`. */
	| { action: 'settle'; untilMs: number }
	| { action: 'resume' };

/** The jobs of the pause this process does not know to have ended, in item order (older first). */
export function jobsNotKnownEnded(records: readonly PauseRecord[], ledger: Ledger): string[] {
	return records
		.filter(
			(record) =>
				record.job_id !== undefined &&
				!isTerminalStatus(record.status ?? '') &&
				!ledger.ended.has(record.job_id),
		)
		.map((record) => record.job_id as string);
}

/**
 * The jobs a request reads, older first: those not known to have ended; a deadline check leaves out those it read
 * still running at Max Wait, so that each of its tries reads on from where the last one stopped.
 */
export function jobsToRead(
	records: readonly PauseRecord[],
	ledger: Ledger,
	request: PauseRequest,
): string[] {
	const notKnownEnded = jobsNotKnownEnded(records, ledger);
	if (request.kind !== 'check' || !request.atDeadline) return notKnownEnded;
	return notKnownEnded.filter((jobId) => !ledger.runningAtDeadline.has(jobId));
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

/**
 * The snapshots a resume outputs without reading again: every ended job's that was read, and the reading at Max Wait
 * of a job still running then, unless its end is known since (a job only its event told of is read for its output).
 */
export function knownSnapshots(ledger: Ledger): Map<string, PublicTranscriptionResponse> {
	const snapshots = new Map<string, PublicTranscriptionResponse>();
	for (const [jobId, job] of ledger.runningAtDeadline) {
		if (!ledger.ended.has(jobId)) snapshots.set(jobId, job);
	}
	for (const [jobId, known] of ledger.ended)
		if (known.snapshot) snapshots.set(jobId, known.snapshot);
	return snapshots;
}

/** What the request leads to, once this process has read what it could. */
export function verdict(
	records: readonly PauseRecord[],
	ledger: Ledger,
	request: PauseRequest,
): Verdict {
	const notKnownEnded = jobsNotKnownEnded(records, ledger);
	if (request.kind === 'check') {
		if (request.atDeadline) {
			const unread = jobsToRead(records, ledger, request).length;
			if (unread > 0) return { action: 'wait', pendingJobs: unread };
			// A job read still running: no event resumes before it ends. Every job ended: as any check.
			if (notKnownEnded.length > 0) return { action: 'resume' };
		} else if (notKnownEnded.length > 0) {
			return { action: 'wait', pendingJobs: notKnownEnded.length };
		}
		const from = checkResumesFrom(records, ledger, request);
		return from !== undefined && request.atMs < from
			? { action: 'settle', untilMs: from }
			: { action: 'resume' };
	}
	if (notKnownEnded.length > 0) return { action: 'wait', pendingJobs: notKnownEnded.length };
	const laterJobId = jobEndedAfter(records, ledger, request);
	return laterJobId === undefined ? { action: 'resume' } : { action: 'defer', laterJobId };
}

/**
 * When a check may resume an execution whose jobs have all ended (ms since the epoch): the settle (timing.ts) after the
 * last job with an event ended, longer with more artifacts to download; undefined when no event can be resuming
 * it — no job with an event ended after the pause (n8n refused their events while the execution ran). A check from a
 * process that only answered requests (not the deadline check) waits ANSWERER_WAITS_MS more after that, or after the
 * last end of any job: the pausing process's watcher resumes first while it runs.
 */
export function checkResumesFrom(
	records: readonly PauseRecord[],
	ledger: Ledger,
	check: Extract<PauseRequest, { kind: 'check' }>,
): number | undefined {
	const pausedAtMs = Date.parse(records[0].paused_at);
	let lastEventEndMs: number | undefined;
	let lastEndMs = pausedAtMs;
	let downloads = 0;
	for (const record of records) {
		const known = record.job_id === undefined ? undefined : ledger.ended.get(record.job_id);
		const status = known?.status ?? record.status ?? '';
		if (isCompletedStatus(status)) downloads += recordDownloads(record);
		if (!known) continue;
		const endedAtMs = Date.parse(known.endedAt);
		lastEndMs = Math.max(lastEndMs, endedAtMs);
		if (!hasEvent(status) || endedAtMs < pausedAtMs) continue;
		lastEventEndMs = Math.max(lastEventEndMs ?? endedAtMs, endedAtMs);
	}
	const settledAtMs =
		lastEventEndMs === undefined ? undefined : lastEventEndMs + settleMs(downloads);
	if (check.fromPauser || check.atDeadline) return settledAtMs;
	return Math.max(settledAtMs ?? lastEndMs, lastEndMs) + ANSWERER_WAITS_MS;
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
		if (!hasEvent(known.status)) continue;
		const endedAt = Date.parse(known.endedAt);
		if (endedAt > eventAt || (endedAt === eventAt && record.item > eventItem)) return record.job_id;
	}
	return undefined;
}
