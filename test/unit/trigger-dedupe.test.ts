import type { INodeProperties } from 'n8n-workflow';

import {
	activeSeenEvents,
	DEFAULT_DEDUPE_WINDOW,
	hasSeenEvent,
	MAX_TOLERANCE_SECONDS,
	rememberEvent,
	type SeenEvent,
	mergeSeenEvents,
	processSeenEvents,
	rememberInProcess,
} from '../../nodes/TranscriptionServiceTrigger/dedupe';
import {
	decideDelivery,
	resolveSettings,
} from '../../nodes/TranscriptionServiceTrigger/delivery-decision';
import { properties } from '../../nodes/TranscriptionServiceTrigger/description';
import { canonicalJson, signPayload } from '../../src/service';

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

describe('Timestamp Tolerance is bounded by what the window remembers', () => {
	const event = {
		event: 'transcription.completed',
		event_id: 'evt_replayed',
		job_id: 'job_replayed',
		status: 'completed',
		created_at: '2027-01-15T12:00:00Z',
		links: {
			self: 'https://x.example/t/job_replayed',
			artifact: 'https://x.example/t/job_replayed/artifact',
		},
	};
	const body = Buffer.from(canonicalJson(event));
	const signedAt = Math.floor(now / 1000);
	const headers = {
		'x-service-event': event.event,
		'x-service-event-id': event.event_id,
		'x-service-timestamp': String(signedAt),
		'x-service-signature': signPayload('whsec_replay', signedAt, body.toString('utf8')),
	};
	const deliverAt = (nowMs: number, toleranceSeconds: number, seenEvents: unknown) =>
		decideDelivery({
			rawBody: body,
			headers,
			secrets: ['whsec_replay'],
			settings: resolveSettings(undefined, { toleranceSeconds }),
			nowMs,
			seenEvents,
		});

	it('a delivery replayed 25 hours later, with a 7-day tolerance set, is refused as stale, not accepted again', () => {
		const first = deliverAt(now, 7 * 24 * 3600, undefined);
		expect(first.action).toBe('accept');
		const remembered = first.action === 'accept' ? first.seenEvents : undefined;

		const replay = deliverAt(now + 25 * HOUR_MS, 7 * 24 * 3600, remembered);
		expect(replay).toMatchObject({
			action: 'reject',
			status: 401,
			response: { error: 'timestamp_out_of_tolerance' },
		});
	});

	it('a tolerance above the bound counts as the bound; the UI offers no more', () => {
		expect(MAX_TOLERANCE_SECONDS).toBe(900);
		expect(resolveSettings(undefined, { toleranceSeconds: 7 * 24 * 3600 }).toleranceSeconds).toBe(
			900,
		);
		expect(resolveSettings(undefined, { toleranceSeconds: 60 }).toleranceSeconds).toBe(60);
		const option = (
			properties.find((property) => property.name === 'options')?.options as INodeProperties[]
		).find((property) => property.name === 'toleranceSeconds');
		expect(option?.typeOptions).toEqual({ minValue: 1, maxValue: MAX_TOLERANCE_SECONDS });
	});

	it('an event_id outlives every replay the bound lets through: 2 × the bound in time and in ids', () => {
		// A delivery is accepted up to the tolerance after its timestamp and refused as stale the tolerance after it.
		const replayableMs = 2 * MAX_TOLERANCE_SECONDS * 1000;
		expect(replayableMs).toBeLessThanOrEqual(DEFAULT_DEDUPE_WINDOW.maxAgeMs);
		// The most events one account causes a minute: a job per 3 writes at platinum's 60 writes a minute (spec 8),
		// plus the sandbox's 10 webhook tests a minute (the spec gives no number).
		const eventsPerMinute = 60 / 3 + 10;
		expect(eventsPerMinute * (replayableMs / 60_000)).toBeLessThanOrEqual(
			DEFAULT_DEDUPE_WINDOW.maxEvents,
		);
	});
});
