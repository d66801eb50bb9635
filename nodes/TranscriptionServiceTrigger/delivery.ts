// What the trigger does with one webhook delivery, decided without I/O so it can be tested with the
// Python-signed vectors: reject (and why), acknowledge without starting anything, or accept.

import type { IDataObject } from 'n8n-workflow';

import {
	checkEventHeaders,
	deliveryEventHeader,
	parseWebhookEvent,
	readWebhookHeader,
	DEFAULT_TOLERANCE_SECONDS,
	verifySignature,
	WEBHOOK_HEADER_NAMES,
	type IncomingHeaders,
	type VerifyFailureReason,
	type WebhookEventBody,
	type WebhookHeaderKey,
} from '../../src/webhooks';
import { activeSeenEvents, hasSeenEvent, rememberEvent, type SeenEvent } from './dedupe';

/** Real events are a few hundred bytes; anything near this is not from the service. */
export const MAX_BODY_BYTES = 1024 * 1024;

export type RejectReason =
	| VerifyFailureReason
	| 'payload_too_large'
	| 'unreadable_body'
	| 'invalid_json'
	| 'invalid_event'
	| 'event_header_mismatch';

const IGNORED_NOT_SELECTED = 'event not selected';
const IGNORED_DUPLICATE = 'duplicate event_id';

export interface DeliverySettings {
	/** X-Service-Event values to start the workflow for (`webhook.test` for test deliveries). */
	events: readonly string[];
	toleranceSeconds: number;
	deduplicate: boolean;
}

/** The node's Options collection; absent entries take their defaults. */
export interface TriggerOptions {
	deduplicate?: boolean;
	toleranceSeconds?: number;
	verifyOnActivation?: boolean;
}

export const DEFAULT_EVENTS: readonly string[] = [
	'transcription.completed',
	'transcription.failed',
];

export function resolveSettings(
	events: readonly string[] | undefined,
	options: TriggerOptions,
): DeliverySettings {
	return {
		events: events ?? DEFAULT_EVENTS,
		toleranceSeconds: options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS,
		deduplicate: options.deduplicate ?? true,
	};
}

export interface Delivery {
	/** The request body exactly as received. */
	rawBody: Uint8Array;
	headers: IncomingHeaders;
	/** Signing Secret first, then Previous Signing Secret; blank ones are skipped. */
	secrets: readonly string[];
	settings: DeliverySettings;
	nowMs: number;
	/** The dedupe window as stored in static data (any shape; junk is ignored). */
	seenEvents: unknown;
}

export type Rejection = {
	action: 'reject';
	status: 400 | 401 | 413;
	response: { error: RejectReason };
	/** For logs; never sent, so the answer tells a prober nothing beyond the reason code. */
	message: string;
};

export type DeliveryDecision =
	| Rejection
	| {
			action: 'ignore';
			status: 200;
			response: { received: true; ignored: string };
			eventId: string;
	  }
	| {
			action: 'accept';
			status: 200;
			response: { received: true };
			event: WebhookEventBody;
			/** The dedupe window to store, with this event_id added; absent when deduplication is off. */
			seenEvents?: SeenEvent[];
	  };

const REQUIRED_HEADERS: readonly WebhookHeaderKey[] = [
	'event',
	'eventId',
	'timestamp',
	'signature',
];

export function reject(
	status: Rejection['status'],
	error: RejectReason,
	message: string,
): Rejection {
	return { action: 'reject', status, response: { error }, message };
}

/** A Content-Length above the limit is refused before a byte is read. */
export function declaredLengthTooLarge(headers: IncomingHeaders): boolean {
	const declared = headers['content-length'];
	return (
		typeof declared === 'string' &&
		/^\d+$/.test(declared.trim()) &&
		Number(declared) > MAX_BODY_BYTES
	);
}

/**
 * Size, then all four X-Service-* headers, then the signature over the raw bytes (current or previous secret, any
 * `v1=` value, timestamp within the tolerance both ways); only a verified body is parsed. Headers that disagree
 * with the signed body fail verification too (401): the headers themselves are not signed.
 */
export function decideDelivery(delivery: Delivery): DeliveryDecision {
	const { rawBody, headers, settings } = delivery;
	if (rawBody.byteLength > MAX_BODY_BYTES) {
		return reject(
			413,
			'payload_too_large',
			`The body has ${rawBody.byteLength} bytes; at most ${MAX_BODY_BYTES} are accepted`,
		);
	}
	const missing = REQUIRED_HEADERS.find((key) => readWebhookHeader(headers, key) === undefined);
	if (missing !== undefined) {
		return reject(401, 'missing_header', `The ${WEBHOOK_HEADER_NAMES[missing]} header is missing`);
	}
	const verified = verifySignature({
		rawBody,
		headers,
		secrets: delivery.secrets,
		toleranceSeconds: settings.toleranceSeconds,
		now: Math.floor(delivery.nowMs / 1000),
	});
	if (!verified.ok) return reject(401, verified.reason, verified.message);

	const parsed = parseWebhookEvent(rawBody);
	if (!parsed.ok) return reject(400, parsed.reason, parsed.message);
	const { event } = parsed;
	const agreement = checkEventHeaders(headers, event);
	if (!agreement.ok) return reject(401, 'event_header_mismatch', agreement.message);

	if (!settings.events.includes(deliveryEventHeader(event))) {
		return ignore(event.event_id, IGNORED_NOT_SELECTED);
	}
	if (!settings.deduplicate)
		return { action: 'accept', status: 200, response: { received: true }, event };

	const seen = activeSeenEvents(delivery.seenEvents, delivery.nowMs);
	if (hasSeenEvent(seen, event.event_id)) return ignore(event.event_id, IGNORED_DUPLICATE);
	return {
		action: 'accept',
		status: 200,
		response: { received: true },
		event,
		seenEvents: rememberEvent(seen, event.event_id, delivery.nowMs),
	};
}

/** The emitted item: the body as the service sent it, plus when it arrived. */
export function eventItemJson(event: WebhookEventBody, receivedAtMs: number): IDataObject {
	return {
		...(event as unknown as IDataObject),
		received_at: new Date(receivedAtMs).toISOString(),
	};
}

function ignore(eventId: string, why: string): DeliveryDecision {
	return { action: 'ignore', status: 200, response: { received: true, ignored: why }, eventId };
}
