// Spec 2.3/3 name these statuses but say the list is not complete: unknown values are tolerated
// and count as "still running" (docs/api-notes.md, "Job statuses").

export const TRANSCRIPTION_STATUSES = [
	'queued',
	'pending',
	'processing',
	'completed',
	'failed',
	'cancelled',
] as const;

export type TranscriptionStatus = (typeof TRANSCRIPTION_STATUSES)[number];

const TERMINAL_STATUSES: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

export function isTerminalStatus(status: string): boolean {
	return TERMINAL_STATUSES.has(status.toLowerCase());
}
