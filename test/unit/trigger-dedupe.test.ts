import {
	activeSeenEvents,
	DEFAULT_DEDUPE_WINDOW,
	hasSeenEvent,
	rememberEvent,
	type SeenEvent,
	mergeSeenEvents,
	processSeenEvents,
	rememberInProcess,
} from '../../nodes/TranscriptionServiceTrigger/dedupe';

const HOUR_MS = 60 * 60 * 1000;
const now = Date.UTC(2027, 0, 15, 12);

describe('the dedupe window', () => {
	it('is 1,000 event_ids within 24 hours by default', () => {
		expect(DEFAULT_DEDUPE_WINDOW).toEqual({ maxEvents: 1000, maxAgeMs: 24 * HOUR_MS });
	});

	it('remembers an accepted event_id as the newest entry', () => {
		const seen = rememberEvent([['evt_a', now - HOUR_MS]], 'evt_b', now);
		expect(seen).toEqual([
			['evt_a', now - HOUR_MS],
			['evt_b', now],
		]);
		expect(hasSeenEvent(seen, 'evt_b')).toBe(true);
		expect(hasSeenEvent(seen, 'evt_c')).toBe(false);
	});

	it('keeps at most 1,000 ids, dropping the oldest', () => {
		let seen: SeenEvent[] = [];
		for (let index = 0; index < 1001; index++)
			seen = rememberEvent(seen, `evt_${index}`, now + index);
		expect(seen).toHaveLength(1000);
		expect(hasSeenEvent(seen, 'evt_0')).toBe(false);
		expect(hasSeenEvent(seen, 'evt_1')).toBe(true);
		expect(hasSeenEvent(seen, 'evt_1000')).toBe(true);
	});

	it('drops ids older than 24 hours when the stored window is read', () => {
		const stored: SeenEvent[] = [
			['evt_old', now - 24 * HOUR_MS],
			['evt_recent', now - 23 * HOUR_MS],
		];
		expect(activeSeenEvents(stored, now)).toEqual([['evt_recent', now - 23 * HOUR_MS]]);
	});

	it('reads a stored window above the cap (e.g. saved by a larger window) down to the newest 1,000', () => {
		const stored: SeenEvent[] = Array.from({ length: 1200 }, (_, index) => [
			`evt_${index}`,
			now - 1200 + index,
		]);
		const active = activeSeenEvents(stored, now);
		expect(active).toHaveLength(1000);
		expect(active[0][0]).toBe('evt_200');
	});

	it('ignores entries that are not [event_id, time] pairs, as hand-edited static data may hold', () => {
		const stored = [
			['evt_ok', now],
			'evt_string',
			['evt_no_time'],
			[7, now],
			null,
			{ id: 'evt_object' },
		];
		expect(activeSeenEvents(stored, now)).toEqual([['evt_ok', now]]);
		expect(activeSeenEvents({ evt_map: now }, now)).toEqual([]);
		expect(activeSeenEvents(undefined, now)).toEqual([]);
	});

	it('moves a re-remembered id to the newest position instead of listing it twice', () => {
		const seen = rememberEvent(
			[
				['evt_a', now - 2],
				['evt_b', now - 1],
			],
			'evt_a',
			now,
		);
		expect(seen).toEqual([
			['evt_b', now - 1],
			['evt_a', now],
		]);
	});
});

describe('merging the static-data window with the process window', () => {
	const NOW = 1_800_000_000_000;
	const HOUR = 60 * 60 * 1000;

	it('keeps each event_id once, at its latest acceptance, oldest first', () => {
		const stored = [
			['evt_a', NOW - 3 * HOUR],
			['evt_b', NOW - 2 * HOUR],
		];
		const inProcess = [
			['evt_b', NOW - HOUR],
			['evt_c', NOW - 30 * 60 * 1000],
		];
		expect(mergeSeenEvents(stored, inProcess, NOW)).toEqual([
			['evt_a', NOW - 3 * HOUR],
			['evt_b', NOW - HOUR],
			['evt_c', NOW - 30 * 60 * 1000],
		]);
	});

	it('drops expired and malformed entries and keeps at most maxEvents, the newest', () => {
		const window = { maxEvents: 2, maxAgeMs: HOUR };
		const stored = [['evt_old', NOW - 2 * HOUR], 'junk', ['evt_a', NOW - 3000]];
		const inProcess = [
			['evt_b', NOW - 2000],
			['evt_c', NOW - 1000],
		];
		expect(mergeSeenEvents(stored, inProcess, NOW, window)).toEqual([
			['evt_b', NOW - 2000],
			['evt_c', NOW - 1000],
		]);
	});

	it('an id remembered in the process survives a static-data save that lost it', () => {
		rememberInProcess('workflow-1:node-1', [['evt_x', NOW]]);
		// Another request's save (last writer wins) left static data without evt_x.
		const staticData = [['evt_y', NOW]];
		const merged = mergeSeenEvents(staticData, processSeenEvents('workflow-1:node-1'), NOW);
		expect(merged.map(([id]) => id).sort()).toEqual(['evt_x', 'evt_y']);
		expect(processSeenEvents('workflow-2:node-1')).toEqual([]);
	});
});
