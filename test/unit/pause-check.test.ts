// The pack's signed pause checks (src/webhooks/pause-check.ts) against vectors computed by Python's hmac
// (test/support/fixtures/make_pause_check_vectors.py), independently of the code under test.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import {
	buildPauseCheck,
	isPauseCheck,
	PAUSE_CHECK_HEADER_NAMES,
	pauseCheckDigest,
	verifyPauseCheck,
	verifySignature,
} from '../../src/webhooks';
import type { PublicTranscriptionWebhookEvent } from '../../src/api';
import { buildSignedDelivery } from '../../src/service';

interface CheckVector {
	name: string;
	key: string;
	timestamp: number;
	execution_id: string;
	check_id: string;
	watcher: 'pauser' | 'answerer';
	body: string;
	signature: string;
}
const fixture = JSON.parse(
	readFileSync(join(__dirname, '../support/fixtures/pause-check-vectors.json'), 'utf8'),
) as { key: string; vectors: CheckVector[] };
const [vector] = fixture.vectors;

const checkHeaders = (timestamp: number | string, signature: string) => ({
	'x-pause-check-timestamp': String(timestamp),
	'x-pause-check-signature': signature,
});

/** The first vector's check, verifiable at its own timestamp; `overrides` replaces any input. */
function verifyVector(overrides: Partial<Parameters<typeof verifyPauseCheck>[0]> = {}) {
	return verifyPauseCheck({
		rawBody: Buffer.from(vector.body, 'utf8'),
		headers: checkHeaders(vector.timestamp, vector.signature),
		executionId: vector.execution_id,
		key: vector.key,
		toleranceSeconds: 60,
		now: vector.timestamp,
		...overrides,
	});
}

describe('buildPauseCheck', () => {
	it.each(fixture.vectors.map((entry) => [entry.name, entry] as const))(
		'signs %s exactly as the independent vector',
		(_name, entry) => {
			const built = buildPauseCheck({
				key: entry.key,
				executionId: entry.execution_id,
				checkId: entry.check_id,
				watcher: entry.watcher,
				timestamp: entry.timestamp,
			});
			expect(built.body).toBe(entry.body);
			expect(built.headers).toEqual({
				'Content-Type': 'application/json',
				[PAUSE_CHECK_HEADER_NAMES.timestamp]: String(entry.timestamp),
				[PAUSE_CHECK_HEADER_NAMES.signature]: entry.signature,
			});
		},
	);

	it('refuses a timestamp that is not whole Unix seconds, and a check id that is not 32 hex digits', () => {
		const checkId = vector.check_id;
		const check = { key: 'k', executionId: '1', watcher: 'pauser' as const };
		expect(() => buildPauseCheck({ ...check, checkId, timestamp: 1.5 })).toThrow(RangeError);
		expect(() => buildPauseCheck({ ...check, checkId: 'same-every-time', timestamp: 1 })).toThrow(
			RangeError,
		);
	});
});

describe('verifyPauseCheck', () => {
	it.each(fixture.vectors.map((entry) => [entry.name, entry] as const))(
		'accepts the vector "%s" with its key, and with no other',
		(_name, entry) => {
			const input = {
				rawBody: entry.body,
				headers: checkHeaders(entry.timestamp, entry.signature),
				executionId: entry.execution_id,
				toleranceSeconds: 60,
				now: entry.timestamp,
			};
			expect(verifyPauseCheck({ ...input, key: entry.key })).toEqual({
				ok: true,
				checkId: entry.check_id,
				watcher: entry.watcher,
				timestamp: entry.timestamp,
			});
			expect(verifyPauseCheck({ ...input, key: `${entry.key.slice(1)}0` })).toEqual({
				ok: false,
				reason: 'signature_mismatch',
				message: "The check is not signed with this paused execution's key",
			});
		},
	);

	it('binds the execution: the same signed bytes are refused at another execution', () => {
		expect(verifyVector({ executionId: `${vector.execution_id}0` })).toMatchObject({
			ok: false,
			reason: 'signature_mismatch',
		});
	});

	it('refuses a body that names another execution, even when signed for this one', () => {
		const signed = buildPauseCheck({
			key: vector.key,
			executionId: 'another',
			checkId: vector.check_id,
			watcher: 'pauser',
			timestamp: 1,
		});
		const forThisExecution = verifyPauseCheck({
			rawBody: signed.body,
			headers: {
				'x-pause-check-timestamp': '1',
				'x-pause-check-signature': signed.headers[PAUSE_CHECK_HEADER_NAMES.signature],
			},
			executionId: 'this-one',
			key: vector.key,
			toleranceSeconds: 60,
			now: 1,
		});
		expect(forThisExecution).toMatchObject({ ok: false, reason: 'signature_mismatch' });
	});

	it("refuses a tampered body, another pause's key, and a timestamp beyond the tolerance either way", () => {
		expect(verifyVector({ rawBody: vector.body.replace('}', ' }') })).toMatchObject({
			reason: 'signature_mismatch',
		});
		expect(verifyVector({ key: fixture.vectors[2].key })).toMatchObject({
			reason: 'signature_mismatch',
		});
		expect(verifyVector({ now: vector.timestamp + 60 })).toMatchObject({ ok: true });
		expect(verifyVector({ now: vector.timestamp + 61 })).toMatchObject({
			reason: 'timestamp_out_of_tolerance',
		});
		expect(verifyVector({ now: vector.timestamp - 61 })).toMatchObject({
			reason: 'timestamp_out_of_tolerance',
		});
	});

	it('refuses a body without its check id, even when signed', () => {
		const body = JSON.stringify({ execution_id: vector.execution_id });
		const digest = pauseCheckDigest(
			vector.key,
			String(vector.timestamp),
			vector.execution_id,
			body,
		);
		expect(
			verifyVector({
				rawBody: body,
				headers: checkHeaders(vector.timestamp, `v1=${digest.toString('hex')}`),
			}),
		).toEqual({ ok: false, reason: 'not_a_pause_check', message: 'The body carries no check_id' });
	});

	it('names a missing or malformed header', () => {
		expect(verifyVector({ headers: { 'x-pause-check-signature': vector.signature } })).toEqual({
			ok: false,
			reason: 'missing_header',
			message: 'The X-Pause-Check-Timestamp header is missing',
		});
		expect(verifyVector({ headers: checkHeaders(vector.timestamp, 'v0=abc') })).toMatchObject({
			reason: 'malformed_signature',
		});
		expect(verifyVector({ headers: checkHeaders('soon', vector.signature) })).toMatchObject({
			reason: 'malformed_signature',
		});
	});
});

describe('a check is never taken for an event, nor an event for a check', () => {
	const completed: PublicTranscriptionWebhookEvent = {
		event: 'transcription.completed',
		event_id: 'evt_1',
		job_id: 'job_1',
		status: 'completed',
		created_at: '2026-08-14T09:30:12Z',
		links: { self: 'https://x.example/j', artifact: 'https://x.example/j/artifact' },
	};
	// The service's event signed with the very same string as key: still no check.
	const event = buildSignedDelivery({
		secret: vector.key,
		timestamp: vector.timestamp,
		event: completed,
	});

	it('a check carrying any of the service headers is refused as a check', () => {
		const result = verifyVector({
			headers: {
				...checkHeaders(vector.timestamp, vector.signature),
				'X-Service-Event-ID': 'evt_1',
			},
		});
		expect(result).toEqual({
			ok: false,
			reason: 'not_a_pause_check',
			message: 'A pause check carries no X-Service-Event-ID header',
		});
	});

	it("an event's signature does not verify as a check, and a check's does not verify as an event", () => {
		const eventSignature = event.headers['X-Service-Signature'];
		expect(
			verifyVector({
				rawBody: event.body,
				headers: checkHeaders(vector.timestamp, eventSignature),
			}),
		).toMatchObject({ ok: false, reason: 'signature_mismatch' });
		expect(
			verifySignature({
				rawBody: vector.body,
				headers: {
					'X-Service-Timestamp': String(vector.timestamp),
					'X-Service-Signature': vector.signature,
				},
				secrets: [vector.key],
				now: vector.timestamp,
			}),
		).toMatchObject({ ok: false, reason: 'signature_mismatch' });
	});

	it('isPauseCheck tells the requests apart by their headers, whatever their case', () => {
		expect(isPauseCheck(checkHeaders(1, 'v1=00'))).toBe(true);
		expect(isPauseCheck({ 'X-PAUSE-CHECK-SIGNATURE': 'v1=00' })).toBe(true);
		expect(isPauseCheck(event.headers)).toBe(false);
	});
});
