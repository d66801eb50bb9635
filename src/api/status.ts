// Spec 2.3/3 name these statuses but say the list is not complete: unknown values are tolerated and count as "still
// running" (docs/api-notes.md, "Job statuses"). A job ends in one of TERMINAL_STATUSES; the service sends an event for
// the ones its event types name (transcription.completed, transcription.failed), none for cancelled.
import { WEBHOOK_EVENT_TYPES } from './types';

export const TRANSCRIPTION_STATUSES = [
	'queued',
	'pending',
	'processing',
	'completed',
	'failed',
	'cancelled',
] as const;

export type TranscriptionStatus = (typeof TRANSCRIPTION_STATUSES)[number];

/** The states a job ends in: it stays there, so each one's list only grows. */
export const TERMINAL_STATUSES = [
	'completed',
	'failed',
	'cancelled',
] as const satisfies readonly TranscriptionStatus[];

export type TerminalStatus = (typeof TERMINAL_STATUSES)[number];

const TERMINAL: ReadonlySet<string> = new Set(TERMINAL_STATUSES);

export function isTerminalStatus(status: string): boolean {
	return TERMINAL.has(status.toLowerCase());
}

/** The one status whose job has artifacts to download. */
export const COMPLETED_STATUS = 'completed' satisfies TerminalStatus;

export function isCompletedStatus(status: string): boolean {
	return status.toLowerCase() === COMPLETED_STATUS;
}

/** Event types are transcription.<the status the job reached>. */
const EVENT_TYPE_PREFIX = 'transcription.';
const WITH_EVENTS: ReadonlySet<string> = new Set(
	WEBHOOK_EVENT_TYPES.map((type) => type.slice(EVENT_TYPE_PREFIX.length)),
);

/** Whether the service sends an event when a job reaches this status. */
export function hasEvent(status: string): boolean {
	return WITH_EVENTS.has(status.toLowerCase());
}
