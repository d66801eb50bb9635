// Verifying webhook deliveries (spec section 6): 'v1=' + lowercase hex HMAC-SHA-256(secret, timestamp + "." + body).
// Signing is the service's side (src/service/signing.ts); both use webhookDigest. The pack's own signed requests
// (pause-check.ts) are verified by the same steps (verifyTimestampedHmac) over another signed string.

import { createHmac, timingSafeEqual } from 'crypto';

import { readWebhookHeader, WEBHOOK_HEADER_NAMES, type IncomingHeaders } from './headers';

/** The spec leaves the maximum age open; ±300 s is this pack's choice (docs/api-notes.md, "Signature age"). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

const SIGNATURE_VALUE = /^v1=([0-9a-f]{64})$/i;
export const UNIX_SECONDS = /^\d{1,15}$/;

/** HMAC-SHA-256(secret, `${timestamp}.${body}`), over the body's bytes exactly as given. */
export function webhookDigest(
	secret: string,
	timestamp: string,
	body: Uint8Array | string,
): Buffer {
	return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest();
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
	/**
	 * Current secret first, then the previous one during rotation. Surrounding whitespace is ignored (a secret pasted
	 * with a newline would otherwise fail every delivery); blank entries are skipped.
	 */
	secrets: ReadonlyArray<string>;
	toleranceSeconds?: number;
	/** Unix seconds; default current time. */
	now?: number;
}

export type VerifySignatureResult =
	| { ok: true; timestamp: number; secretIndex: number }
	| { ok: false; reason: VerifyFailureReason; message: string };

/** What usually lies behind a valid-looking signature that matches no secret (stripe-node says the same). */
export const SIGNATURE_MISMATCH_MESSAGE =
	'The signature matches none of the signing secrets. Check that the credential holds the signing secret shown in ' +
	'the dashboard for this account (and the previous one while rotating), and that nothing between the service and ' +
	'n8n (a proxy, a gateway, a body parser) re-serialises or re-encodes the request body: the signature is computed ' +
	'over the exact bytes the service sent.';

/** Checks a delivery against the raw bytes received, never a re-serialisation of them. Never throws. */
export function verifySignature(input: VerifySignatureInput): VerifySignatureResult {
	return verifyTimestampedHmac({
		names: WEBHOOK_HEADER_NAMES,
		timestampHeader: readWebhookHeader(input.headers, 'timestamp'),
		signatureHeader: readWebhookHeader(input.headers, 'signature'),
		secrets: input.secrets,
		toleranceSeconds: input.toleranceSeconds,
		now: input.now,
		digest: (secret, timestamp) => webhookDigest(secret, timestamp, input.rawBody),
	});
}

/**
 * The steps every `v1=` HMAC request takes, whatever it signs: both headers present, the timestamp whole Unix seconds
 * within the tolerance either way, then any `v1=` value equal (constant time) to `digest` under any non-blank secret.
 */
export function verifyTimestampedHmac(args: {
	names: { timestamp: string; signature: string };
	timestampHeader: string | undefined;
	signatureHeader: string | undefined;
	secrets: ReadonlyArray<string>;
	toleranceSeconds?: number;
	now?: number;
	digest: (secret: string, timestamp: string) => Buffer;
}): VerifySignatureResult {
	const { names, timestampHeader, signatureHeader } = args;
	if (timestampHeader === undefined) {
		return failure('missing_header', `The ${names.timestamp} header is missing`);
	}
	if (signatureHeader === undefined) {
		return failure('missing_header', `The ${names.signature} header is missing`);
	}
	if (!UNIX_SECONDS.test(timestampHeader)) {
		return failure('malformed_signature', `${names.timestamp} must be whole Unix seconds`);
	}
	const candidates = parseSignatureHeader(signatureHeader);
	if (candidates.length === 0) {
		return failure('malformed_signature', `${names.signature} holds no v1=<64 hex digits> value`);
	}

	const timestamp = Number(timestampHeader);
	const now = args.now ?? Math.floor(Date.now() / 1000);
	const tolerance = args.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
	// Negated so that a NaN clock or tolerance rejects instead of accepting everything.
	if (!(Math.abs(now - timestamp) <= tolerance)) {
		return failure(
			'timestamp_out_of_tolerance',
			`${names.timestamp} is ${now - timestamp} s from now; at most ${tolerance} s is accepted`,
		);
	}

	let secretsTried = 0;
	for (const [secretIndex, rawSecret] of args.secrets.entries()) {
		const secret = typeof rawSecret === 'string' ? rawSecret.trim() : '';
		if (secret === '') continue;
		secretsTried++;
		const expected = args.digest(secret, timestampHeader);
		const matches = candidates.some(
			(candidate) => candidate.length === expected.length && timingSafeEqual(candidate, expected),
		);
		if (matches) return { ok: true, timestamp, secretIndex };
	}
	return failure(
		'signature_mismatch',
		secretsTried === 0 ? 'No signing secret is configured' : SIGNATURE_MISMATCH_MESSAGE,
	);
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
