// The receiving side of spec section 6 (src/webhooks): the vectors themselves, verifying a signature over the raw body,
// parsing an event body, and checking the X-Service-Event headers against it.

import {
	checkEventHeaders,
	DEFAULT_TOLERANCE_SECONDS,
	parseWebhookEvent,
	verifySignature,
	SIGNATURE_MISMATCH_MESSAGE,
	WEBHOOK_HEADER_NAMES,
	type VerifySignatureInput,
	type WebhookEventBody,
} from '../../src/webhooks';
import { canonicalJson } from '../../src/service';
import {
	completedVector,
	fixture,
	NOW,
	SECRET,
	testDeliveryVector,
	type SignedVector,
} from '../support/fixtures/webhook-vectors';

function signedHeaders(timestamp: number | string, signature: string): Record<string, string> {
	return { 'x-service-timestamp': String(timestamp), 'x-service-signature': signature };
}

/** A delivery of the realistic completed event, verifiable at NOW with SECRET; `overrides` replaces any input. */
function verifyCompleted(overrides: Partial<VerifySignatureInput> = {}) {
	return verifySignature({
		rawBody: Buffer.from(completedVector.canonical, 'utf8'),
		headers: signedHeaders(completedVector.timestamp, completedVector.signature),
		secrets: [SECRET],
		now: NOW,
		...overrides,
	});
}

describe('fixture', () => {
	it('holds the vectors the tests rely on', () => {
		expect(fixture.vectors.length).toBeGreaterThanOrEqual(12);
		expect(fixture.raw_deliveries.length).toBeGreaterThanOrEqual(4);
		expect(completedVector.timestamp).toBe(NOW);
		expect(completedVector.secret).toBe(SECRET);
		expect(testDeliveryVector.body).toHaveProperty('test_mode', true);
	});
});

describe('verifySignature (section 6: raw body, old timestamps rejected, constant-time compare)', () => {
	it.each(fixture.vectors.map((vector) => [vector.name, vector] as const))(
		'accepts the raw bytes of %s',
		(_name, vector) => {
			expect(
				verifySignature({
					rawBody: Buffer.from(vector.canonical, 'utf8'),
					headers: signedHeaders(vector.timestamp, vector.signature),
					secrets: [vector.secret],
					now: vector.timestamp,
				}),
			).toEqual({ ok: true, timestamp: vector.timestamp, secretIndex: 0 });
		},
	);

	it.each(fixture.raw_deliveries.map((delivery) => [delivery.name, delivery] as const))(
		'verifies bytes signed as sent, never a re-serialisation: %s',
		(_name, delivery) => {
			const input = {
				headers: signedHeaders(delivery.timestamp, delivery.signature),
				secrets: [delivery.secret],
				now: delivery.timestamp,
			};
			expect(
				verifySignature({ ...input, rawBody: Buffer.from(delivery.raw_body, 'utf8') }),
			).toMatchObject({ ok: true });
			expect(verifySignature({ ...input, rawBody: delivery.raw_body })).toMatchObject({ ok: true });
			const reserialised = canonicalJson(JSON.parse(delivery.raw_body));
			expect(reserialised).not.toBe(delivery.raw_body);
			expect(verifySignature({ ...input, rawBody: reserialised })).toMatchObject({
				reason: 'signature_mismatch',
			});
		},
	);

	it('accepts a Uint8Array view into a larger buffer', () => {
		const padded = Buffer.from(`xx${completedVector.canonical}yy`, 'utf8');
		const view = new Uint8Array(padded.buffer, padded.byteOffset + 2, padded.length - 4);
		expect(verifyCompleted({ rawBody: view })).toMatchObject({ ok: true });
	});

	it('rejects a body with one mutated byte: signature_mismatch', () => {
		const mutated = Buffer.from(completedVector.canonical, 'utf8');
		mutated[10] ^= 0x01;
		expect(verifyCompleted({ rawBody: mutated })).toEqual({
			ok: false,
			reason: 'signature_mismatch',
			message: SIGNATURE_MISMATCH_MESSAGE,
		});
	});

	it('rejects a wrong secret: signature_mismatch', () => {
		expect(verifyCompleted({ secrets: ['whsec_someone_else'] })).toMatchObject({
			ok: false,
			reason: 'signature_mismatch',
		});
	});

	it('treats "no secret configured" as signature_mismatch instead of throwing', () => {
		const expected = {
			ok: false,
			reason: 'signature_mismatch',
			message: 'No signing secret is configured',
		};
		expect(verifyCompleted({ secrets: [] })).toEqual(expected);
		expect(verifyCompleted({ secrets: ['', '   '] })).toEqual(expected);
	});

	describe('timestamp tolerance (default ±300 s, both directions)', () => {
		it('is 300 seconds by default', () => {
			expect(DEFAULT_TOLERANCE_SECONDS).toBe(300);
		});

		it.each([
			['exactly 300 s old', NOW + 300],
			['exactly 300 s ahead', NOW - 300],
		])('accepts a timestamp %s', (_name, now) => {
			expect(verifyCompleted({ now })).toEqual({ ok: true, timestamp: NOW, secretIndex: 0 });
		});

		it('rejects a stale timestamp (301 s old): timestamp_out_of_tolerance', () => {
			expect(verifyCompleted({ now: NOW + 301 })).toEqual({
				ok: false,
				reason: 'timestamp_out_of_tolerance',
				message: 'X-Service-Timestamp is 301 s from now; at most 300 s is accepted',
			});
		});

		it('rejects a future timestamp (301 s ahead): timestamp_out_of_tolerance', () => {
			expect(verifyCompleted({ now: NOW - 301 })).toMatchObject({
				ok: false,
				reason: 'timestamp_out_of_tolerance',
			});
		});

		it('honours a custom tolerance', () => {
			expect(verifyCompleted({ now: NOW + 30, toleranceSeconds: 29 })).toMatchObject({
				reason: 'timestamp_out_of_tolerance',
			});
			expect(verifyCompleted({ now: NOW + 30, toleranceSeconds: 30 })).toMatchObject({ ok: true });
		});

		it('fails closed on a NaN tolerance or clock', () => {
			expect(verifyCompleted({ toleranceSeconds: Number.NaN })).toMatchObject({
				reason: 'timestamp_out_of_tolerance',
			});
			expect(verifyCompleted({ now: Number.NaN })).toMatchObject({
				reason: 'timestamp_out_of_tolerance',
			});
		});

		it('checks the timestamp before the signature, so a replayed delivery is reported as stale', () => {
			expect(verifyCompleted({ now: NOW + 3600, secrets: ['whsec_someone_else'] })).toMatchObject({
				reason: 'timestamp_out_of_tolerance',
			});
		});
	});

	describe('headers', () => {
		it.each([
			[
				'timestamp header missing',
				{ 'x-service-signature': completedVector.signature },
				'X-Service-Timestamp',
			],
			['signature header missing', { 'x-service-timestamp': String(NOW) }, 'X-Service-Signature'],
			['signature header empty', signedHeaders(NOW, ''), 'X-Service-Signature'],
			[
				'timestamp header blank',
				signedHeaders('  ', completedVector.signature),
				'X-Service-Timestamp',
			],
			[
				'signature header an empty list',
				{ ...signedHeaders(NOW, ''), 'x-service-signature': [] },
				'X-Service-Signature',
			],
			['no headers at all', {}, 'X-Service-Timestamp'],
		])('%s: missing_header', (_name, headers, headerName) => {
			expect(verifyCompleted({ headers })).toEqual({
				ok: false,
				reason: 'missing_header',
				message: `The ${headerName} header is missing`,
			});
		});

		it.each([
			['no v1= value at all', 'sha256=abc'],
			['only an unknown scheme', `v0=${completedVector.signature.slice(3)}`],
			['a v1 digest that is too short', completedVector.signature.slice(0, -2)],
			['a v1 digest with a non-hex character', `${completedVector.signature.slice(0, -1)}g`],
			['a bare digest without scheme', completedVector.signature.slice(3)],
		])('signature header with %s: malformed_signature', (_name, signature) => {
			expect(verifyCompleted({ headers: signedHeaders(NOW, signature) })).toEqual({
				ok: false,
				reason: 'malformed_signature',
				message: 'X-Service-Signature holds no v1=<64 hex digits> value',
			});
		});

		it.each([
			['an ISO date', '2026-08-14T09:30:12Z'],
			['milliseconds with a fraction', '1723627818.5'],
			['a negative number', '-1723627818'],
			['two values joined by a proxy', `${NOW}, ${NOW}`],
		])('timestamp that is %s: malformed_signature', (_name, timestamp) => {
			expect(
				verifyCompleted({ headers: signedHeaders(timestamp, completedVector.signature) }),
			).toEqual({
				ok: false,
				reason: 'malformed_signature',
				message: 'X-Service-Timestamp must be whole Unix seconds',
			});
		});

		it('accepts any matching v1= value among several, skipping unknown schemes', () => {
			const header = `v0=deadbeef, v1=${'0'.repeat(64)},${completedVector.signature}`;
			expect(verifyCompleted({ headers: signedHeaders(NOW, header) })).toMatchObject({ ok: true });
		});

		it('accepts an upper-case hex digest (the same bytes)', () => {
			const upper = `v1=${completedVector.signature.slice(3).toUpperCase()}`;
			expect(verifyCompleted({ headers: signedHeaders(NOW, upper) })).toMatchObject({ ok: true });
		});

		it('finds headers whatever their case, and reads repeated values as a list', () => {
			const headers = {
				'X-Service-Timestamp': String(NOW),
				'X-SERVICE-SIGNATURE': [`v1=${'f'.repeat(64)}`, completedVector.signature],
			};
			expect(verifyCompleted({ headers })).toMatchObject({ ok: true });
		});

		it('names the four headers as the spec spells them', () => {
			expect(WEBHOOK_HEADER_NAMES).toEqual({
				event: 'X-Service-Event',
				eventId: 'X-Service-Event-ID',
				timestamp: 'X-Service-Timestamp',
				signature: 'X-Service-Signature',
			});
		});
	});

	describe('secret rotation', () => {
		it('accepts the previous secret and reports secretIndex 1', () => {
			expect(verifyCompleted({ secrets: ['whsec_new_secret', SECRET] })).toEqual({
				ok: true,
				timestamp: NOW,
				secretIndex: 1,
			});
		});

		it('keeps positions when a blank current secret is skipped', () => {
			expect(verifyCompleted({ secrets: ['', SECRET] })).toEqual({
				ok: true,
				timestamp: NOW,
				secretIndex: 1,
			});
		});

		it('reports secretIndex 0 when the current secret matches', () => {
			expect(verifyCompleted({ secrets: [SECRET, 'whsec_old_secret'] })).toEqual({
				ok: true,
				timestamp: NOW,
				secretIndex: 0,
			});
		});
	});

	describe('secrets pasted with surrounding whitespace', () => {
		it.each([
			['a trailing newline', `${SECRET}\n`],
			['leading spaces', `  ${SECRET}`],
			['a tab and CRLF', `\t${SECRET}\r\n`],
		])('accepts the current secret with %s', (_label, secret) => {
			expect(verifyCompleted({ secrets: [secret] })).toEqual({
				ok: true,
				timestamp: NOW,
				secretIndex: 0,
			});
		});

		it('accepts the previous secret with a trailing newline', () => {
			expect(verifyCompleted({ secrets: ['whsec_new_secret', `${SECRET}\n`] })).toMatchObject({
				ok: true,
				secretIndex: 1,
			});
		});
	});

	describe('the signature_mismatch message', () => {
		it('names the likely causes: the wrong secret, and a body re-serialised on the way', () => {
			const result = verifyCompleted({ secrets: ['whsec_wrong_secret'] });
			expect(result).toMatchObject({ ok: false, reason: 'signature_mismatch' });
			const { message } = result as { message: string };
			expect(message).toMatch(/signing secret shown in the dashboard/);
			expect(message).toMatch(/previous one while rotating/);
			expect(message).toMatch(/re-serialises or re-encodes the request body/);
			expect(message).toMatch(/exact bytes/);
		});

		it('says no secret is configured when every secret is blank', () => {
			expect(verifyCompleted({ secrets: ['', '  \n'] })).toEqual({
				ok: false,
				reason: 'signature_mismatch',
				message: 'No signing secret is configured',
			});
		});
	});
});

describe('parseWebhookEvent (bodies of 2.5 and 2.6)', () => {
	const completed = completedVector.body as Record<string, unknown>;
	const failed = (
		fixture.vectors.find((vector) => vector.name.includes('transcription.failed')) as SignedVector
	).body;

	it.each([
		['a transcription.completed event', completed],
		['a transcription.failed event with a null artifact link', failed],
		['a webhook.test delivery', testDeliveryVector.body],
		[
			'a test delivery of transcription.failed',
			{ ...testDeliveryVector.body, event: 'transcription.failed' },
		],
		['an event with unknown extra fields', { ...completed, attempt: 2, extra: { nested: true } }],
	])('accepts %s and returns it unchanged', (_name, body) => {
		expect(parseWebhookEvent(Buffer.from(JSON.stringify(body), 'utf8'))).toEqual({
			ok: true,
			event: body,
		});
	});

	it('rejects bytes that are not JSON: invalid_json', () => {
		expect(parseWebhookEvent('{"event":')).toMatchObject({ ok: false, reason: 'invalid_json' });
	});

	it.each([
		['an array', [], 'The body is not a JSON object'],
		['null', null, 'The body is not a JSON object'],
		[
			'a missing event_id',
			{ ...completed, event_id: undefined },
			'"event_id" must be a non-empty string',
		],
		['an empty job_id', { ...completed, job_id: '' }, '"job_id" must be a non-empty string'],
		['no links', { ...completed, links: undefined }, '"links.self" must be a non-empty string'],
		[
			'an unknown event',
			{ ...completed, event: 'transcription.started' },
			'Unknown event "transcription.started"',
		],
		[
			'a status that contradicts the event',
			{ ...completed, status: 'failed' },
			'A transcription.completed event has status "completed", not "failed"',
		],
		[
			'a created_at that is not a date',
			{ ...completed, created_at: 'yesterday' },
			'"created_at" must be a date-time',
		],
		[
			'a completed event without artifact link',
			{ ...completed, links: { self: 'https://api.example.com/x', artifact: null } },
			'"links.artifact" must be the artifact URL of the completed job',
		],
		[
			'a failed event without the artifact key',
			{ ...failed, links: { self: 'https://api.example.com/x' } },
			'"links.artifact" must be null for a failed job',
		],
		[
			'a failed event whose artifact link is a URL',
			{
				...failed,
				links: {
					self: 'https://api.example.com/x',
					artifact: 'https://api.example.com/x/artifact',
				},
			},
			'"links.artifact" must be null for a failed job',
		],
		[
			'a failed event whose artifact link is an empty string',
			{ ...failed, links: { self: 'https://api.example.com/x', artifact: '' } },
			'"links.artifact" must be null for a failed job',
		],
		[
			'a test delivery whose status is not completed',
			{ ...testDeliveryVector.body, status: 'failed' },
			'A test delivery has status "completed", not "failed"',
		],
	])('rejects %s: invalid_event', (_name, body, message) => {
		expect(parseWebhookEvent(JSON.stringify(body))).toEqual({
			ok: false,
			reason: 'invalid_event',
			message,
		});
	});
});

describe('checkEventHeaders (X-Service-Event and X-Service-Event-ID agree with the body)', () => {
	const completed = completedVector.body as WebhookEventBody;
	const testDelivery = testDeliveryVector.body as WebhookEventBody;

	it('accepts headers that match the body', () => {
		expect(
			checkEventHeaders(
				{ 'x-service-event': 'transcription.completed', 'x-service-event-id': completed.event_id },
				completed,
			),
		).toEqual({ ok: true });
	});

	it('accepts webhook.test in the header of a test delivery whose body names transcription.completed', () => {
		expect(
			checkEventHeaders(
				{ 'X-Service-Event': 'webhook.test', 'X-Service-Event-ID': 'evt_test_0001' },
				testDelivery,
			),
		).toEqual({ ok: true });
	});

	it.each([
		[
			'an event header that differs from the body',
			{
				'x-service-event': 'transcription.failed',
				'x-service-event-id': 'evt_01J9Z6Q4M7W2XK3B8N5R1T0Y4C',
			},
			completed,
			'X-Service-Event is "transcription.failed" but the body says "transcription.completed"',
		],
		[
			'a test delivery announced as a real event',
			{ 'x-service-event': 'transcription.completed', 'x-service-event-id': 'evt_test_0001' },
			testDelivery,
			'X-Service-Event is "transcription.completed" but the body says "webhook.test"',
		],
		[
			'an event id header that differs from the body',
			{ 'x-service-event': 'transcription.completed', 'x-service-event-id': 'evt_other' },
			completed,
			'X-Service-Event-ID is "evt_other" but the body says "evt_01J9Z6Q4M7W2XK3B8N5R1T0Y4C"',
		],
		[
			'a missing event header',
			{ 'x-service-event-id': 'evt_01J9Z6Q4M7W2XK3B8N5R1T0Y4C' },
			completed,
			'The X-Service-Event header is missing',
		],
		[
			'a missing event id header',
			{ 'x-service-event': 'transcription.completed' },
			completed,
			'The X-Service-Event-ID header is missing',
		],
	])('rejects %s', (_name, headers, event, message) => {
		expect(checkEventHeaders(headers, event)).toEqual({ ok: false, message });
	});
});
