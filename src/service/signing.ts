// Signing webhook deliveries the way the service does (spec section 6); receivers verify with src/webhooks.

import { deliveryEventHeader } from '../webhooks/events';
import { WEBHOOK_HEADER_NAMES } from '../webhooks/headers';
import { UNIX_SECONDS, webhookDigest } from '../webhooks/signature';
import { canonicalJson } from './canonical-json';

/**
 * 'v1=' + lowercase hex HMAC-SHA-256(secret, `${timestamp}.${body}`). A string body is used verbatim (it is the bytes sent);
 * an object body is canonicalJson'ed first. Timestamps are Unix seconds (integer) as a string.
 * Throws a RangeError for a timestamp that is not whole non-negative seconds: no receiver could verify it.
 */
export function signPayload(
	secret: string,
	timestamp: string | number,
	body: string | object,
): string {
	const payload = typeof body === 'string' ? body : canonicalJson(body);
	return `v1=${webhookDigest(secret, timestampText(timestamp), payload).toString('hex')}`;
}

export interface SignedDelivery {
	/** The exact bytes to send (UTF-8); they are the bytes that were signed. */
	body: string;
	/** X-Service-Event, X-Service-Event-ID, X-Service-Timestamp, X-Service-Signature. */
	headers: Record<string, string>;
}

/**
 * Everything a sender needs for one attempt: the exact body bytes (string) and the four X-Service-* headers.
 * A test delivery (`test_mode: true`) is announced as `webhook.test` while its body keeps the requested event type.
 */
export function buildSignedDelivery(args: {
	secret: string;
	timestamp: number;
	event: { event: string; event_id: string } & object;
}): SignedDelivery {
	const body = canonicalJson(args.event);
	return {
		body,
		headers: {
			[WEBHOOK_HEADER_NAMES.event]: deliveryEventHeader(args.event),
			[WEBHOOK_HEADER_NAMES.eventId]: args.event.event_id,
			[WEBHOOK_HEADER_NAMES.timestamp]: timestampText(args.timestamp),
			[WEBHOOK_HEADER_NAMES.signature]: signPayload(args.secret, args.timestamp, body),
		},
	};
}

function timestampText(timestamp: string | number): string {
	const text = String(timestamp);
	if (!UNIX_SECONDS.test(text)) {
		throw new RangeError(`Webhook timestamp must be whole Unix seconds, got "${text}"`);
	}
	return text;
}
