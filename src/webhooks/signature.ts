// Signing and verifying webhook deliveries (spec section 6): 'v1=' + lowercase hex HMAC-SHA-256(secret, timestamp + "." + body).

import { createHmac, timingSafeEqual } from 'node:crypto';

import { canonicalJson } from './canonical-json';
import { deliveryEventHeader } from './events';
import { readWebhookHeader, WEBHOOK_HEADER_NAMES, type IncomingHeaders } from './headers';

/** The spec leaves the maximum age open; design.md settles on ±300 s. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

const SIGNATURE_VALUE = /^v1=([0-9a-f]{64})$/i;
const UNIX_SECONDS = /^\d{1,15}$/;

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
	return `v1=${hmac(secret, timestampText(timestamp), payload).toString('hex')}`;
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

/**
 * - missing_header: X-Service-Timestamp or X-Service-Signature absent or blank.
 * - malformed_signature: the timestamp is not whole Unix seconds, or the signature header holds no `v1=<64 hex>` value.
 * - timestamp_out_of_tolerance: the timestamp is further than the tolerance from now, in either direction.
 * - signature_mismatch: no `v1=` value matches any configured secret (or no secret is configured).
 */
export type VerifyFailureReason =
	'missing_header' | 'malformed_signature' | 'timestamp_out_of_tolerance' | 'signature_mismatch';

export interface VerifySignatureInput {
	/** The body exactly as received; a string is taken as its UTF-8 bytes. */
	rawBody: Uint8Array | string;
	headers: IncomingHeaders;
	/** Current secret first, then the previous one during rotation; blank entries are skipped. */
	secrets: ReadonlyArray<string>;
	toleranceSeconds?: number;
	/** Unix seconds; default current time. */
	now?: number;
}

export type VerifySignatureResult =
	| { ok: true; timestamp: number; secretIndex: number }
	| { ok: false; reason: VerifyFailureReason; message: string };

/** Checks a delivery against the raw bytes received, never a re-serialisation of them. Never throws. */
export function verifySignature(input: VerifySignatureInput): VerifySignatureResult {
	const timestampHeader = readWebhookHeader(input.headers, 'timestamp');
	if (timestampHeader === undefined) {
		return failure('missing_header', `The ${WEBHOOK_HEADER_NAMES.timestamp} header is missing`);
	}
	const signatureHeader = readWebhookHeader(input.headers, 'signature');
	if (signatureHeader === undefined) {
		return failure('missing_header', `The ${WEBHOOK_HEADER_NAMES.signature} header is missing`);
	}
	if (!UNIX_SECONDS.test(timestampHeader)) {
		return failure(
			'malformed_signature',
			`${WEBHOOK_HEADER_NAMES.timestamp} must be whole Unix seconds`,
		);
	}
	const candidates = parseSignatureHeader(signatureHeader);
	if (candidates.length === 0) {
		return failure(
			'malformed_signature',
			`${WEBHOOK_HEADER_NAMES.signature} holds no v1=<64 hex digits> value`,
		);
	}

	const timestamp = Number(timestampHeader);
	const now = input.now ?? Math.floor(Date.now() / 1000);
	const tolerance = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
	// Negated so that a NaN clock or tolerance rejects instead of accepting everything.
	if (!(Math.abs(now - timestamp) <= tolerance)) {
		return failure(
			'timestamp_out_of_tolerance',
			`${WEBHOOK_HEADER_NAMES.timestamp} is ${now - timestamp} s from now; at most ${tolerance} s is accepted`,
		);
	}

	let secretsTried = 0;
	for (const [secretIndex, secret] of input.secrets.entries()) {
		if (typeof secret !== 'string' || secret.trim() === '') continue;
		secretsTried++;
		const expected = hmac(secret, timestampHeader, input.rawBody);
		const matches = candidates.some(
			(candidate) => candidate.length === expected.length && timingSafeEqual(candidate, expected),
		);
		if (matches) return { ok: true, timestamp, secretIndex };
	}
	return failure(
		'signature_mismatch',
		secretsTried === 0
			? 'No signing secret is configured'
			: 'The signature does not match the signing secret',
	);
}

function hmac(secret: string, timestamp: string, body: Uint8Array | string): Buffer {
	return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest();
}

function timestampText(timestamp: string | number): string {
	const text = String(timestamp);
	if (!UNIX_SECONDS.test(text))
		throw new RangeError(`Webhook timestamp must be whole Unix seconds, got "${text}"`);
	return text;
}

/** Every usable `v1=` digest; other schemes (`v0=` …) and damaged values are skipped. */
function parseSignatureHeader(header: string): Buffer[] {
	return header
		.split(',')
		.map((part) => SIGNATURE_VALUE.exec(part.trim()))
		.filter((match): match is RegExpExecArray => match !== null)
		.map((match) => Buffer.from(match[1], 'hex'));
}

function failure(reason: VerifyFailureReason, message: string): VerifySignatureResult {
	return { ok: false, reason, message };
}
