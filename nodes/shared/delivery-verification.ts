// Verifying one signed delivery from the service, decided without I/O: the trigger and the resume webhook of a
// paused execution take the same steps, so neither accepts what the other would refuse.

import {
	checkEventHeaders,
	parseWebhookEvent,
	readWebhookHeader,
	verifySignature,
	WEBHOOK_HEADER_NAMES,
	type IncomingHeaders,
	type VerifyFailureReason,
	type WebhookEventBody,
	type WebhookHeaderKey,
} from '../../src/webhooks';

/** Real events are a few hundred bytes; anything near this is not from the service. */
export const MAX_BODY_BYTES = 1024 * 1024;

export type RejectReason =
	| VerifyFailureReason
	| 'payload_too_large'
	| 'unreadable_body'
	| 'invalid_json'
	| 'invalid_event'
	| 'event_header_mismatch';

export type Rejection = {
	action: 'reject';
	status: 400 | 401 | 413;
	response: { error: RejectReason };
	/** For logs; never sent, so the answer tells a prober nothing beyond the reason code. */
	message: string;
};

export interface ReceivedDelivery {
	/** The request body exactly as received. */
	rawBody: Uint8Array;
	headers: IncomingHeaders;
	/** Signing Secret first, then Previous Signing Secret; blank ones are skipped. */
	secrets: readonly string[];
	toleranceSeconds: number;
	nowMs: number;
}

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
export function verifyDelivery(
	delivery: ReceivedDelivery,
): { action: 'verified'; event: WebhookEventBody } | Rejection {
	const { rawBody, headers } = delivery;
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
		toleranceSeconds: delivery.toleranceSeconds,
		now: Math.floor(delivery.nowMs / 1000),
	});
	if (!verified.ok) return reject(401, verified.reason, verified.message);

	const parsed = parseWebhookEvent(rawBody);
	if (!parsed.ok) return reject(400, parsed.reason, parsed.message);
	const agreement = checkEventHeaders(headers, parsed.event);
	if (!agreement.ok) return reject(401, 'event_header_mismatch', agreement.message);
	return { action: 'verified', event: parsed.event };
}
