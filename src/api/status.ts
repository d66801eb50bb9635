// Spec 2.3/3 name these statuses but say the list is not complete: unknown values are tolerated and count as "still
// running" (docs/api-notes.md, "Job statuses"). A job ends in one of TERMINAL_STATUSES (the service sends webhooks for completed and failed only).

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
