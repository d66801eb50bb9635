// The trigger's memory of recent event_ids (spec section 6: delivery is at least once, receivers deduplicate).
// It lives in the workflow's static data, which n8n saves last-writer-wins: best effort under concurrent redelivery.

/** An accepted delivery: its event_id and when it was accepted (Unix milliseconds). */
export type SeenEvent = [eventId: string, acceptedAtMs: number];

export interface DedupeWindow {
	maxEvents: number;
	maxAgeMs: number;
}

/** 1,000 ids or 24 hours, whichever is reached first; the service retries for about three hours. */
export const DEFAULT_DEDUPE_WINDOW: DedupeWindow = { maxEvents: 1000, maxAgeMs: 24 * 60 * 60 * 1000 };

/**
 * The usable entries of a stored window, oldest first, without expired ones and at most `maxEvents`.
 * Static data is user-editable JSON, so anything that is not a [string, number] pair is dropped.
 */
export function activeSeenEvents(
	stored: unknown,
	nowMs: number,
	window: DedupeWindow = DEFAULT_DEDUPE_WINDOW,
): SeenEvent[] {
	if (!Array.isArray(stored)) return [];
	const active = stored.filter(
		(entry: unknown): entry is SeenEvent =>
			Array.isArray(entry) &&
			typeof entry[0] === 'string' &&
			typeof entry[1] === 'number' &&
			nowMs - entry[1] < window.maxAgeMs,
	);
	return active.slice(Math.max(0, active.length - window.maxEvents));
}

export function hasSeenEvent(seen: readonly SeenEvent[], eventId: string): boolean {
	return seen.some(([id]) => id === eventId);
}

/** The window after accepting `eventId`: appended as newest, the oldest dropped beyond `maxEvents`. */
export function rememberEvent(
	seen: readonly SeenEvent[],
	eventId: string,
	nowMs: number,
	window: DedupeWindow = DEFAULT_DEDUPE_WINDOW,
): SeenEvent[] {
	const next: SeenEvent[] = [...seen.filter(([id]) => id !== eventId), [eventId, nowMs]];
	return next.slice(Math.max(0, next.length - window.maxEvents));
}
