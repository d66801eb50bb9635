// R2's attack matrix: a deterministic mix of valid events and every kind of bad delivery a trigger can meet.
// Signed here with node:crypto and a sorted-keys serialiser of our own, not with src/webhooks, so a bug
// shared by our signer and our verifier cannot hide. Every bad delivery carries an event_id that is never
// sent validly: if that id ever starts an execution, a forgery was accepted.

import { createHmac } from 'node:crypto';

import { mulberry32 } from '../../../sandbox/random';
import type { PublicTranscriptionWebhookEvent } from '../../../src/api';

export type AttackKind =
	| 'valid'
	| 'valid_reordered_pair'
	| 'duplicate'
	| 'wrong_secret'
	| 'tampered_byte'
	| 'swapped_body'
	| 'stale_timestamp'
	| 'future_timestamp'
	| 'non_json_signed'
	| 'non_json_unsigned'
	| 'oversized'
	| 'missing_header'
	| 'malformed_header'
	| 'header_body_mismatch';

export interface Delivery {
	index: number;
	kind: AttackKind;
	/** The id the body carries (for duplicates, shared by the copies). */
	eventId: string;
	/** True when the event must start exactly one execution (counted once per event_id). */
	mustExecute: boolean;
	/** Deliveries of one group (copies of one event, the two events of one job) keep their order, close together. */
	group?: string;
	/** Builds the bytes and headers at send time, so the timestamp is fresh (or stale/future by design). */
	build(nowSeconds: number): { body: Buffer; headers: Record<string, string> };
}

export interface AttackMatrixOptions {
	total: number;
	secret: string;
	seed: number;
	/** Absolute base URL put in the events' links. */
	linkBaseUrl: string;
	/** Bodies above this are oversized for the trigger; the oversized ones exceed it. */
	bodyLimitBytes: number;
	toleranceSeconds: number;
}

/** Shares of the total, per kind (duplicates count their three copies). */
const MIX: Array<{ kind: AttackKind; share: number }> = [
	{ kind: 'valid', share: 0.16 },
	{ kind: 'valid_reordered_pair', share: 0.1 },
	{ kind: 'duplicate', share: 0.3 },
	{ kind: 'wrong_secret', share: 0.05 },
	{ kind: 'tampered_byte', share: 0.05 },
	{ kind: 'swapped_body', share: 0.05 },
	{ kind: 'stale_timestamp', share: 0.05 },
	{ kind: 'future_timestamp', share: 0.05 },
	{ kind: 'non_json_signed', share: 0.025 },
	{ kind: 'non_json_unsigned', share: 0.025 },
	{ kind: 'oversized', share: 0.02 },
	{ kind: 'missing_header', share: 0.04 },
	{ kind: 'malformed_header', share: 0.04 },
	{ kind: 'header_body_mismatch', share: 0.04 },
];

/** Serialises with keys sorted at every level and no whitespace: section 6's signed form. */
export function sortedJson(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
	if (value !== null && typeof value === 'object') {
		const entries = Object.keys(value as Record<string, unknown>)
			.sort()
			.map(
				(key) => `${JSON.stringify(key)}:${sortedJson((value as Record<string, unknown>)[key])}`,
			);
		return `{${entries.join(',')}}`;
	}
	return JSON.stringify(value);
}

export function hmacSignature(secret: string, timestamp: string, body: Buffer): string {
	return `v1=${createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex')}`;
}

type EventBody = PublicTranscriptionWebhookEvent;

export function buildAttackMatrix(options: AttackMatrixOptions): Delivery[] {
	const random = mulberry32(options.seed);
	const { secret } = options;
	let serial = 0;
	const nextId = (prefix: string) => `${prefix}_${String(++serial).padStart(6, '0')}`;

	const event = (
		eventId: string,
		kind: EventBody['event'] = random() < 0.7 ? 'transcription.completed' : 'transcription.failed',
		jobId = nextId('job_r2'),
	): EventBody => ({
		event: kind,
		event_id: eventId,
		job_id: jobId,
		status: kind === 'transcription.completed' ? 'completed' : 'failed',
		created_at: new Date(Date.UTC(2026, 10, 22) + serial * 1000).toISOString(),
		links: {
			self: `${options.linkBaseUrl}/api/v1/transcriptions/${jobId}`,
			artifact:
				kind === 'transcription.completed'
					? `${options.linkBaseUrl}/api/v1/transcriptions/${jobId}/artifact`
					: null,
		},
	});
	const signedHeaders = (
		body: Buffer,
		eventBody: EventBody,
		timestamp: number,
		signingSecret = secret,
	) => ({
		'content-type': 'application/json',
		'x-service-event': eventBody.event,
		'x-service-event-id': eventBody.event_id,
		'x-service-timestamp': String(timestamp),
		'x-service-signature': hmacSignature(signingSecret, String(timestamp), body),
	});
	const bytesOf = (eventBody: EventBody) => Buffer.from(sortedJson(eventBody), 'utf8');

	const deliveries: Array<Omit<Delivery, 'index'>> = [];
	const counts = MIX.map(({ kind, share }) => ({ kind, count: Math.round(share * options.total) }));
	// Rounding drift goes to the plain valid events, so the total is exact.
	counts[0].count += options.total - counts.reduce((sum, entry) => sum + entry.count, 0);

	for (const { kind, count } of counts) {
		switch (kind) {
			case 'valid':
				for (let n = 0; n < count; n++)
					deliveries.push(validDelivery(kind, event(nextId('evt_valid'))));
				break;
			case 'valid_reordered_pair':
				// A job's events delivered newest first: the failed event (created later) before the completed one.
				for (let n = 0; n + 1 < count; n += 2) {
					const jobId = nextId('job_r2_pair');
					const completed = event(nextId('evt_pair'), 'transcription.completed', jobId);
					const failed = event(nextId('evt_pair'), 'transcription.failed', jobId);
					deliveries.push(
						{ ...validDelivery(kind, failed), group: jobId },
						{ ...validDelivery(kind, completed), group: jobId },
					);
				}
				if (count % 2 === 1) deliveries.push(validDelivery(kind, event(nextId('evt_pair'))));
				break;
			case 'duplicate':
				for (let n = 0; n < Math.floor(count / 3); n++) {
					const body = event(nextId('evt_dup'));
					for (let copy = 0; copy < 3; copy++)
						deliveries.push({ ...validDelivery(kind, body), group: body.event_id });
				}
				for (let n = 0; n < count % 3; n++)
					deliveries.push(validDelivery('valid', event(nextId('evt_valid'))));
				break;
			default:
				for (let n = 0; n < count; n++) deliveries.push(badDelivery(kind, n));
		}
	}

	function validDelivery(kind: AttackKind, eventBody: EventBody): Omit<Delivery, 'index'> {
		const body = bytesOf(eventBody);
		return {
			kind,
			eventId: eventBody.event_id,
			mustExecute: true,
			build: (now) => ({ body, headers: signedHeaders(body, eventBody, now) }),
		};
	}

	function badDelivery(kind: AttackKind, variant: number): Omit<Delivery, 'index'> {
		const eventBody = event(nextId(`evt_bad_${kind}`));
		const body = bytesOf(eventBody);
		const bad = (build: Delivery['build']) => ({
			kind,
			eventId: eventBody.event_id,
			mustExecute: false,
			build,
		});
		const tolerance = options.toleranceSeconds;
		switch (kind) {
			case 'wrong_secret':
				return bad((now) => ({
					body,
					headers: signedHeaders(body, eventBody, now, `${secret}_wrong`),
				}));
			case 'tampered_byte': {
				// One byte changed after signing, inside the job id so the body stays valid JSON with the same event_id.
				const at = body.indexOf(eventBody.job_id) + eventBody.job_id.length - 1;
				const tampered = Buffer.from(body);
				tampered[at] = tampered[at] === 0x30 ? 0x31 : 0x30;
				return bad((now) => ({ body: tampered, headers: signedHeaders(body, eventBody, now) }));
			}
			case 'swapped_body': {
				// The headers and signature of one forged-only event with the body of another.
				const other = event(nextId('evt_bad_swapped_other'));
				const otherBody = bytesOf(other);
				return {
					kind,
					eventId: other.event_id,
					mustExecute: false,
					build: (now) => ({
						body: otherBody,
						headers: {
							...signedHeaders(body, eventBody, now),
							'x-service-event-id': other.event_id,
						},
					}),
				};
			}
			case 'stale_timestamp':
				return bad((now) => {
					const timestamp = now - tolerance - 1 - Math.floor(random() * 86_400);
					return { body, headers: signedHeaders(body, eventBody, timestamp) };
				});
			case 'future_timestamp':
				return bad((now) => {
					const timestamp = now + tolerance + 1 + Math.floor(random() * 86_400);
					return { body, headers: signedHeaders(body, eventBody, timestamp) };
				});
			case 'non_json_signed':
			case 'non_json_unsigned': {
				const garbage = Buffer.from(
					variant % 2 === 0
						? `event_id=${eventBody.event_id}&status=completed`
						: `{"event_id":"${eventBody.event_id}",`,
					'utf8',
				);
				return bad((now) => {
					const headers = signedHeaders(garbage, eventBody, now);
					if (kind === 'non_json_unsigned')
						headers['x-service-signature'] = hmacSignature(`${secret}_wrong`, String(now), garbage);
					// Half claim JSON (n8n's own body parser meets them first), half do not (the trigger does).
					if (variant % 4 >= 2) headers['content-type'] = 'text/plain';
					return { body: garbage, headers };
				});
			}
			case 'oversized': {
				// A valid event padded past the limit and correctly signed: size alone must reject it.
				const padded = { ...eventBody, padding: 'x'.repeat(options.bodyLimitBytes + 1024) };
				const paddedBytes = Buffer.from(sortedJson(padded), 'utf8');
				return bad((now) => ({
					body: paddedBytes,
					headers: signedHeaders(paddedBytes, eventBody, now),
				}));
			}
			case 'missing_header': {
				const dropped = [
					'x-service-signature',
					'x-service-timestamp',
					'x-service-event',
					'x-service-event-id',
				][variant % 4];
				return bad((now) => {
					const headers: Record<string, string> = signedHeaders(body, eventBody, now);
					delete headers[dropped];
					return { body, headers };
				});
			}
			case 'malformed_header': {
				const spoil: Array<(headers: Record<string, string>) => void> = [
					(headers) =>
						(headers['x-service-signature'] = headers['x-service-signature'].replace('v1=', 'v2=')),
					(headers) =>
						(headers['x-service-signature'] = `${headers['x-service-signature'].slice(0, -2)}zz`),
					(headers) =>
						(headers['x-service-signature'] = headers['x-service-signature'].slice(0, 40)),
					(headers) => (headers['x-service-timestamp'] = `${headers['x-service-timestamp']}.5`),
					(headers) =>
						(headers['x-service-timestamp'] = new Date(
							Number(headers['x-service-timestamp']) * 1000,
						).toUTCString()),
					(headers) => (headers['x-service-signature'] = ''),
				];
				return bad((now) => {
					const headers: Record<string, string> = signedHeaders(body, eventBody, now);
					spoil[variant % spoil.length](headers);
					return { body, headers };
				});
			}
			case 'header_body_mismatch':
				return bad((now) => {
					const headers: Record<string, string> = signedHeaders(body, eventBody, now);
					if (variant % 2 === 0)
						headers['x-service-event'] =
							eventBody.event === 'transcription.completed'
								? 'transcription.failed'
								: 'transcription.completed';
					else headers['x-service-event-id'] = `${eventBody.event_id}_other`;
					return { body, headers };
				});
			default:
				throw new Error(`no builder for ${kind}`);
		}
	}

	return shuffleKeepingGroups(deliveries, random).map((delivery, index) => ({
		...delivery,
		index,
	}));
}

/**
 * Shuffles the deliveries, then puts each group back in its own order within a short distance, as a sender's
 * retries would arrive (well inside the trigger's dedupe window).
 */
function shuffleKeepingGroups<T extends { group?: string }>(
	deliveries: T[],
	random: () => number,
): T[] {
	const singles = deliveries.filter((delivery) => delivery.group === undefined);
	const groups = new Map<string, T[]>();
	for (const delivery of deliveries) {
		if (delivery.group !== undefined)
			groups.set(delivery.group, [...(groups.get(delivery.group) ?? []), delivery]);
	}
	for (let index = singles.length - 1; index > 0; index--) {
		const swap = Math.floor(random() * (index + 1));
		[singles[index], singles[swap]] = [singles[swap], singles[index]];
	}
	const result: T[] = [...singles];
	for (const copies of groups.values()) {
		let at = Math.floor(random() * (result.length + 1));
		for (const copy of copies) {
			result.splice(at, 0, copy);
			at = Math.min(result.length, at + 1 + Math.floor(random() * 20));
		}
	}
	return result;
}
