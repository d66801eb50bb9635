// The trigger's decision for each delivery, against deliveries signed by Python's hmac
// (test/support/fixtures/make_trigger_vectors.py), with the receiver clock each vector names.
import { declaredLengthTooLarge, MAX_BODY_BYTES } from '../../nodes/shared/delivery-verification';
import { eventItemJson } from '../../nodes/shared/event-item';
import {
	artifactProperties,
	DEFAULT_EVENTS,
	readArtifactDownload,
} from '../../nodes/shared/event-properties';
import {
	decideDelivery,
	resolveSettings,
	type DeliveryDecision,
} from '../../nodes/TranscriptionServiceTrigger/delivery-decision';
import { properties as triggerProperties } from '../../nodes/TranscriptionServiceTrigger/description';
import { properties as pollingProperties } from '../../nodes/TranscriptionServicePollingTrigger/description';
import {
	loadTriggerVectors,
	vectorBody,
	type TriggerVector,
	type VectorDelivery,
} from '../support/fixtures/trigger-vectors';
import { canonicalJson, signPayload } from '../../src/service';

const vectors = loadTriggerVectors();

/** Node hands headers over with lower-case names. */
function nodeHeaders(headers: Record<string, string>): Record<string, string> {
	return Object.fromEntries(
		Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]),
	);
}

function decide(
	vector: TriggerVector,
	delivery: VectorDelivery,
	seenEvents: unknown,
): DeliveryDecision {
	return decideDelivery({
		rawBody: vectorBody(delivery),
		headers: nodeHeaders(delivery.headers),
		secrets: [vector.credential.signingSecret, vector.credential.previousSigningSecret],
		settings: resolveSettings(vector.parameters.events, vector.parameters.options ?? {}),
		nowMs: vector.now * 1000,
		seenEvents,
	});
}

describe('decideDelivery with the Python-signed vectors', () => {
	it('covers every case the issue lists', () => {
		const names = vectors.map(({ name }) => name);
		for (const expected of [
			'valid transcription.completed',
			'one byte of the body changed after signing',
			'signed with another secret',
			'signed with the previous secret during rotation',
			'two v1= values, the second one matches',
			'stale timestamp, 301 s old',
			'future timestamp, 301 s ahead',
			'X-Service-Event disagrees with the signed body',
			'the same event_id delivered three times',
			'events out of order',
			'signed body that is not JSON',
			'body one byte over 1 MiB, correctly signed',
			'X-Service-Signature missing',
		]) {
			expect(names).toContain(expected);
		}
	});

	describe.each(vectors.map((vector) => [vector.name, vector] as const))('%s', (_name, vector) => {
		it('answers each delivery with the expected status and body, accepting only what should start the workflow', () => {
			let seenEvents: unknown;
			for (const delivery of vector.deliveries) {
				const decision = decide(vector, delivery, seenEvents);
				expect({
					status: decision.status,
					response: decision.response,
					emitted: decision.action === 'accept',
				}).toEqual(delivery.expect);
				if (decision.action === 'accept') {
					// The event is the signed body as sent, extra fields included.
					expect(decision.event).toEqual(JSON.parse(vectorBody(delivery).toString('utf8')));
					seenEvents = decision.seenEvents ?? seenEvents;
				}
			}
		});
	});
});

describe('decideDelivery beyond the vectors', () => {
	const nowSeconds = 1_800_000_000;
	const event = {
		event: 'transcription.completed',
		event_id: 'evt_unit_1',
		job_id: 'job_unit_1',
		status: 'completed',
		created_at: '2027-01-15T08:00:00Z',
		links: {
			self: 'https://x.example/t/job_unit_1',
			artifact: 'https://x.example/t/job_unit_1/artifact',
		},
	};
	const body = canonicalJson(event);
	const headers = (secret: string) => ({
		'x-service-event': event.event,
		'x-service-event-id': event.event_id,
		'x-service-timestamp': String(nowSeconds),
		'x-service-signature': signPayload(secret, nowSeconds, body),
	});
	const settings = resolveSettings(undefined, {});

	it('refuses everything when the credential has no signing secret, never accepting unsigned events', () => {
		for (const secrets of [[], ['', ''], ['   ', '']]) {
			const decision = decideDelivery({
				rawBody: Buffer.from(body),
				headers: headers(''),
				secrets,
				settings,
				nowMs: nowSeconds * 1000,
				seenEvents: undefined,
			});
			expect(decision).toMatchObject({
				action: 'reject',
				status: 401,
				response: { error: 'signature_mismatch' },
			});
		}
	});

	it('treats stored dedupe state that is not a window as empty instead of failing', () => {
		for (const seenEvents of ['junk', { evt_unit_1: 1 }, [['evt_unit_1']], [[42, 42]], null]) {
			const decision = decideDelivery({
				rawBody: Buffer.from(body),
				headers: headers('whsec_unit'),
				secrets: ['whsec_unit'],
				settings,
				nowMs: nowSeconds * 1000,
				seenEvents,
			});
			expect(decision.action).toBe('accept');
		}
	});

	it('forgets an event_id after 24 hours, so a much later redelivery starts the workflow again', () => {
		const accepted = decideDelivery({
			rawBody: Buffer.from(body),
			headers: headers('whsec_unit'),
			secrets: ['whsec_unit'],
			settings,
			nowMs: nowSeconds * 1000,
			seenEvents: undefined,
		});
		if (accepted.action !== 'accept') throw new Error('expected the first delivery to be accepted');
		const dayLater = nowSeconds + 24 * 60 * 60;
		const redelivery = decideDelivery({
			rawBody: Buffer.from(body),
			headers: {
				...headers('whsec_unit'),
				'x-service-timestamp': String(dayLater),
				'x-service-signature': signPayload('whsec_unit', dayLater, body),
			},
			secrets: ['whsec_unit'],
			settings,
			nowMs: dayLater * 1000,
			seenEvents: accepted.seenEvents,
		});
		expect(redelivery.action).toBe('accept');
	});

	it('refuses a body over the limit before looking at its headers', () => {
		const decision = decideDelivery({
			rawBody: new Uint8Array(MAX_BODY_BYTES + 1),
			headers: {},
			secrets: ['whsec_unit'],
			settings,
			nowMs: nowSeconds * 1000,
			seenEvents: undefined,
		});
		expect(decision).toMatchObject({ status: 413, response: { error: 'payload_too_large' } });
	});
});

describe('declaredLengthTooLarge', () => {
	it('refuses a Content-Length above 1 MiB before the body is read', () => {
		expect(declaredLengthTooLarge({ 'content-length': String(MAX_BODY_BYTES + 1) })).toBe(true);
		expect(declaredLengthTooLarge({ 'content-length': String(MAX_BODY_BYTES) })).toBe(false);
		expect(declaredLengthTooLarge({})).toBe(false);
		expect(declaredLengthTooLarge({ 'content-length': 'lots' })).toBe(false);
	});
});

describe('resolveSettings', () => {
	it('defaults to completed and failed events, a 300 s tolerance and deduplication on', () => {
		expect(resolveSettings(undefined, {})).toEqual({
			events: DEFAULT_EVENTS,
			toleranceSeconds: 300,
			deduplicate: true,
		});
		expect(DEFAULT_EVENTS).toEqual(['transcription.completed', 'transcription.failed']);
	});

	it('takes the Events parameter and the options as set', () => {
		expect(resolveSettings(['webhook.test'], { toleranceSeconds: 30, deduplicate: false })).toEqual(
			{
				events: ['webhook.test'],
				toleranceSeconds: 30,
				deduplicate: false,
			},
		);
	});
});

describe("the triggers' fields: each default declared once, in its field", () => {
	const field = (properties: typeof triggerProperties, name: string) =>
		properties.find((property) => property.name === name);

	it("both triggers take Events' default and the artifact fields from nodes/shared/event-properties.ts", () => {
		expect(field(triggerProperties, 'events')?.default).toBe(DEFAULT_EVENTS);
		expect(field(pollingProperties, 'events')?.default).toBe(DEFAULT_EVENTS);
		for (const artifactField of artifactProperties) {
			expect(field(triggerProperties, artifactField.name)).toBe(artifactField);
			expect(field(pollingProperties, artifactField.name)).toBe(artifactField);
		}
	});

	it('an unset field is read as its declared default', () => {
		const asked: Array<[string, unknown]> = [];
		const artifact = readArtifactDownload((name, unset) => {
			asked.push([name, unset]);
			return unset;
		});
		expect(artifact).toEqual({
			download: false,
			format: 'srt',
			binaryPropertyName: 'data',
			cues: false,
		});
		expect(asked).toEqual(artifactProperties.map((property) => [property.name, property.default]));
	});

	it('a field set is read as set, Put Output File in Field trimmed', () => {
		const set: Record<string, unknown> = {
			downloadArtifact: true,
			artifactFormat: 'vtt',
			binaryPropertyName: ' transcript ',
			includeCues: true,
		};
		expect(readArtifactDownload((name) => set[name])).toEqual({
			download: true,
			format: 'vtt',
			binaryPropertyName: 'transcript',
			cues: true,
		});
	});
});

describe('eventItemJson', () => {
	it('is the event as sent plus received_at', () => {
		const event = {
			event: 'transcription.failed' as const,
			event_id: 'evt_1',
			job_id: 'job_1',
			status: 'failed' as const,
			created_at: '2027-01-15T08:00:00Z',
			links: { self: 'https://x.example/t/job_1', artifact: null },
			future_field: { kept: true },
		};
		expect(eventItemJson(event, Date.UTC(2027, 0, 15, 8, 0, 3, 250))).toEqual({
			...event,
			received_at: '2027-01-15T08:00:03.250Z',
		});
	});
});
