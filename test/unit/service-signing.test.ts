// The service's side of spec section 6 (src/service): canonical JSON, the v1= signature and the signed delivery's
// headers, each against the Python-computed vectors.

import {
	checkEventHeaders,
	parseWebhookEvent,
	verifySignature,
	type WebhookEventBody,
} from '../../src/webhooks';
import { buildSignedDelivery, canonicalJson, signPayload } from '../../src/service';
import {
	completedVector,
	fixture,
	NOW,
	SECRET,
	testDeliveryVector,
} from '../support/fixtures/webhook-vectors';

describe('canonicalJson (section 6: sorted keys, "," and ":" separators, Python escaping)', () => {
	it.each(fixture.vectors.map((vector) => [vector.name, vector] as const))(
		'equals Python for %s',
		(_name, vector) => {
			expect(canonicalJson(vector.body)).toBe(vector.canonical);
		},
	);

	it('orders keys by code point, so an astral key sorts after U+FF01 (a UTF-16 sort would not)', () => {
		expect(canonicalJson({ '😀': 1, '！': 2 })).toBe('{"\\uff01":2,"\\ud83d\\ude00":1}');
	});

	it('drops undefined members and writes undefined array items as null, like JSON.stringify', () => {
		expect(canonicalJson({ b: undefined, a: [undefined, 1] })).toBe('{"a":[null,1]}');
	});

	it('serialises through toJSON (a Date becomes its ISO string)', () => {
		expect(canonicalJson({ at: new Date(Date.UTC(2026, 7, 14, 9, 30, 12)) })).toBe(
			'{"at":"2026-08-14T09:30:12.000Z"}',
		);
	});

	it('writes integral numbers in full, as Python writes an int', () => {
		expect(canonicalJson([1e21, -0, 2 ** 53])).toBe('[1000000000000000000000,0,9007199254740992]');
	});

	it('writes small non-integers in Python float repr (two-digit exponent)', () => {
		expect(canonicalJson([0.0001, 0.00001, 1.5e-7, -2.5e-10, 1.25e-100])).toBe(
			'[0.0001,1e-05,1.5e-07,-2.5e-10,1.25e-100]',
		);
	});

	it('refuses values JSON cannot carry', () => {
		const circular: Record<string, unknown> = {};
		circular.self = circular;
		expect(() => canonicalJson(circular)).toThrow(TypeError);
		expect(() => canonicalJson({ duration: Number.NaN })).toThrow(TypeError);
		expect(() => canonicalJson({ duration: Infinity })).toThrow(TypeError);
		expect(() => canonicalJson(undefined)).toThrow(TypeError);
	});

	it('accepts the same object twice when it is not its own ancestor', () => {
		const shared = { b: 1, a: 2 };
		expect(canonicalJson({ y: shared, x: shared })).toBe('{"x":{"a":2,"b":1},"y":{"a":2,"b":1}}');
	});
});

describe('signPayload (section 6: v1= lowercase hex HMAC-SHA-256 of timestamp "." body)', () => {
	it.each(fixture.vectors.map((vector) => [vector.name, vector] as const))(
		'equals Python for %s',
		(_name, vector) => {
			expect(signPayload(vector.secret, vector.timestamp, vector.body)).toBe(vector.signature);
		},
	);

	it.each(fixture.raw_deliveries.map((delivery) => [delivery.name, delivery] as const))(
		'signs a string body verbatim: %s',
		(_name, delivery) => {
			expect(signPayload(delivery.secret, delivery.timestamp, delivery.raw_body)).toBe(
				delivery.signature,
			);
		},
	);

	it('gives the same signature for a numeric and a string timestamp', () => {
		expect(signPayload(SECRET, String(NOW), completedVector.canonical)).toBe(
			completedVector.signature,
		);
	});

	it('refuses a timestamp that is not whole seconds', () => {
		expect(() => signPayload(SECRET, 1.5, {})).toThrow(RangeError);
		expect(() => signPayload(SECRET, '2026-08-14T09:30:12Z', {})).toThrow(RangeError);
		expect(() => signPayload(SECRET, -1, {})).toThrow(RangeError);
	});
});

describe('buildSignedDelivery (section 6 delivery headers)', () => {
	it('sends the canonical bytes with the four X-Service-* headers', () => {
		const delivery = buildSignedDelivery({
			secret: SECRET,
			timestamp: NOW,
			event: completedVector.body as WebhookEventBody,
		});
		expect(delivery).toEqual({
			body: completedVector.canonical,
			headers: {
				'X-Service-Event': 'transcription.completed',
				'X-Service-Event-ID': 'evt_01J9Z6Q4M7W2XK3B8N5R1T0Y4C',
				'X-Service-Timestamp': String(NOW),
				'X-Service-Signature': completedVector.signature,
			},
		});
	});

	it('announces a test delivery as webhook.test while the body keeps the requested event type', () => {
		const delivery = buildSignedDelivery({
			secret: SECRET,
			timestamp: testDeliveryVector.timestamp,
			event: testDeliveryVector.body as WebhookEventBody,
		});
		expect(delivery.body).toBe(testDeliveryVector.canonical);
		expect(delivery.headers['X-Service-Event']).toBe('webhook.test');
		expect(delivery.headers['X-Service-Signature']).toBe(testDeliveryVector.signature);
	});

	it('produces deliveries that verifySignature and checkEventHeaders accept', () => {
		const delivery = buildSignedDelivery({
			secret: SECRET,
			timestamp: NOW,
			event: completedVector.body as WebhookEventBody,
		});
		expect(
			verifySignature({
				rawBody: delivery.body,
				headers: delivery.headers,
				secrets: [SECRET],
				now: NOW,
			}),
		).toEqual({
			ok: true,
			timestamp: NOW,
			secretIndex: 0,
		});
		const parsed = parseWebhookEvent(delivery.body);
		expect(parsed.ok && checkEventHeaders(delivery.headers, parsed.event)).toEqual({ ok: true });
	});
});
