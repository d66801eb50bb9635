// The trigger's memory of recent event_ids (spec section 6: delivery is at least once, receivers deduplicate).
// Two windows, merged on every delivery: one in this n8n process, read and updated with no await in between, so a
// redelivery to the same process never starts a second execution; and the workflow's static data, which carries
// the window across restarts and to other processes — saved last-writer-wins by n8n, so between processes it is
// best effort.

/** An accepted delivery: its event_id and when it was accepted (Unix milliseconds). */
export type SeenEvent = [eventId: string, acceptedAtMs: number];

export interface DedupeWindow {
	maxEvents: number;
	maxAgeMs: number;
}

/** 1,000 ids or 24 hours, whichever is reached first; the service retries for about three hours. */
export const DEFAULT_DEDUPE_WINDOW: DedupeWindow = {
	maxEvents: 1000,
	maxAgeMs: 24 * 60 * 60 * 1000,
};

/**
 * The largest Timestamp Tolerance. A delivery is accepted at most `tolerance` after its timestamp and its replays are
 * refused as stale `tolerance` after it, so an event_id must stay remembered for 2 × tolerance after its acceptance:
 * 30 minutes here, well inside the window's 24 hours, and within its 1,000 ids even at the most an account can cause
 * (test/unit/trigger-dedupe.test.ts). A larger value, e.g. from an expression, counts as this one.
 */
export const MAX_TOLERANCE_SECONDS = 900;

export function boundedToleranceSeconds(toleranceSeconds: number): number {
	return Math.min(toleranceSeconds, MAX_TOLERANCE_SECONDS);
}

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

/** Two stored windows as one: each event_id once (its latest acceptance), oldest first, trimmed like one window. */
export function mergeSeenEvents(
	first: unknown,
	second: unknown,
	nowMs: number,
	window: DedupeWindow = DEFAULT_DEDUPE_WINDOW,
): SeenEvent[] {
	const latest = new Map<string, number>();
	for (const [eventId, acceptedAtMs] of [
		...activeSeenEvents(first, nowMs, window),
		...activeSeenEvents(second, nowMs, window),
	]) {
		latest.set(eventId, Math.max(acceptedAtMs, latest.get(eventId) ?? 0));
	}
	const merged = [...latest].sort((a, b) => a[1] - b[1]);
	return merged.slice(Math.max(0, merged.length - window.maxEvents));
}

/**
 * n8n loads a workflow's static data anew for every webhook request and saves it whole, last writer wins: while
 * deliveries of other events are in flight, one request's save drops the id another request remembered. These
 * windows live in the n8n process and are read and written with no await in between, so within one process no id
 * is lost; static data still carries the window across restarts (and is all other main instances share).
 */
const processWindows = new Map<string, SeenEvent[]>();

export function processSeenEvents(key: string): SeenEvent[] {
	return processWindows.get(key) ?? [];
}

export function rememberInProcess(key: string, seen: SeenEvent[]): void {
	processWindows.set(key, seen);
}
