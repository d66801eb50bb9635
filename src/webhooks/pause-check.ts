// Pause checks: the signed POST the pack sends to its own paused execution's resume URL, asking the node to read the
// jobs it has not heard of (a completion event may have been lost). A check is the node talking to itself, so it is
// signed with a key of the pause that only n8n holds (drawn at the pause and stored with the paused execution), never
// with the service's signing secret: rotating that secret cannot strand a paused execution. The signature is HMAC like
// the service's events, but over another string and under other headers, so a check is never taken for an event, nor
// an event for a check; it binds the execution id, so a check for one execution is refused by every other.
//
//   signed string:  "pause-check." + timestamp + "." + execution id + "." + body
//   body:           {"execution_id": <id>, "check_id": <32 hex digits, new for every check>,
//                    "watcher": "pauser" | "answerer" (which process's watcher sent it)}
//   headers:        X-Pause-Check-Timestamp (Unix seconds), X-Pause-Check-Signature ("v1=" + lowercase hex HMAC-SHA-256)
//
// The check_id lets the receiver answer each check once (the node remembers those it answered); the tolerance is the
// receiver's to choose, much shorter than an event's since a check goes from n8n to n8n.
//
//   answer:         the node's own answers carry "pause_check": <PauseCheckAnswer>, by which the watcher tells them
//                   from n8n's (a 404/409 of an execution that does not wait, a proxy's 502, "starting up")

import { createHmac } from 'crypto';

import { readHeader, WEBHOOK_HEADER_NAMES, type IncomingHeaders } from './headers';
import { UNIX_SECONDS, verifyTimestampedHmac, type VerifyFailureReason } from './signature';

export const PAUSE_CHECK_HEADER_NAMES = {
	timestamp: 'X-Pause-Check-Timestamp',
	signature: 'X-Pause-Check-Signature',
} as const;

/** Keeps a check's signed string apart from an event's (which starts with the timestamp's digits). */
const SIGNED_STRING_PREFIX = 'pause-check.';

/** Whose watcher sent a check: the process that paused the execution, or one that answered a request for it. */
export type PauseCheckWatcher = 'pauser' | 'answerer';

export interface PauseCheckBody {
	execution_id: string;
	check_id: string;
	watcher: PauseCheckWatcher;
}

const WATCHERS: ReadonlySet<string> = new Set<PauseCheckWatcher>(['pauser', 'answerer']);

const CHECK_ID = /^[0-9a-f]{32}$/;

/** HMAC-SHA-256(key, "pause-check.<timestamp>.<executionId>." + body), over the body's bytes as given. */
export function pauseCheckDigest(
	key: string,
	timestamp: string,
	executionId: string,
	body: Uint8Array | string,
): Buffer {
	return createHmac('sha256', key)
		.update(`${SIGNED_STRING_PREFIX}${timestamp}.${executionId}.`)
		.update(body)
		.digest();
}

/**
 * The body and headers of one check of `executionId` from `watcher`, signed with the pause's `key` at `timestamp`
 * (Unix seconds); `checkId` (32 hex digits) is new for every check.
 */
export function buildPauseCheck(args: {
	key: string;
	executionId: string;
	checkId: string;
	watcher: PauseCheckWatcher;
	timestamp: number;
}): {
	body: string;
	headers: Record<string, string>;
} {
	const timestamp = String(args.timestamp);
	if (!UNIX_SECONDS.test(timestamp)) {
		throw new RangeError(
			`A pause check's timestamp must be whole Unix seconds, got "${timestamp}"`,
		);
	}
	if (!CHECK_ID.test(args.checkId)) {
		throw new RangeError(`A pause check's id must be 32 hex digits, got "${args.checkId}"`);
	}
	const body = JSON.stringify({
		execution_id: args.executionId,
		check_id: args.checkId,
		watcher: args.watcher,
	} satisfies PauseCheckBody);
	const digest = pauseCheckDigest(args.key, timestamp, args.executionId, body);
	return {
		body,
		headers: {
			'Content-Type': 'application/json',
			[PAUSE_CHECK_HEADER_NAMES.timestamp]: timestamp,
			[PAUSE_CHECK_HEADER_NAMES.signature]: `v1=${digest.toString('hex')}`,
		},
	};
}

/** The field by which an answer to a check says it comes from the node (and not from n8n or a proxy before it). */
export const PAUSE_CHECK_ANSWER_KEY = 'pause_check';

/**
 * What the node answers a check: it resumed the execution, another request of this process is resuming it, it still
 * waits, its reads failed (or took too long: try again later), the execution holds no pause of this node, or the
 * node's own failure (500).
 */
export type PauseCheckAnswer =
	'resumed' | 'resuming' | 'waiting' | 'read_failed' | 'not_paused' | 'failed';

const PAUSE_CHECK_ANSWERS: ReadonlySet<string> = new Set<PauseCheckAnswer>([
	'resumed',
	'resuming',
	'waiting',
	'read_failed',
	'not_paused',
	'failed',
]);

/** The node's answer in an answer's body, undefined when the body is not the node's (n8n's own, a proxy's). */
export function pauseCheckAnswerOf(body: unknown): PauseCheckAnswer | undefined {
	const answer = (body as Record<string, unknown> | undefined)?.[PAUSE_CHECK_ANSWER_KEY];
	return typeof answer === 'string' && PAUSE_CHECK_ANSWERS.has(answer)
		? (answer as PauseCheckAnswer)
		: undefined;
}

/** A request that carries a check header: it is verified as a check, never as an event. */
export function isPauseCheck(headers: IncomingHeaders): boolean {
	return Object.values(PAUSE_CHECK_HEADER_NAMES).some(
		(name) => readHeader(headers, name) !== undefined,
	);
}

export type PauseCheckFailureReason = VerifyFailureReason | 'not_a_pause_check';

export type VerifyPauseCheckResult =
	| { ok: true; checkId: string; watcher: PauseCheckWatcher; timestamp: number }
	| { ok: false; reason: PauseCheckFailureReason; message: string };

/**
 * Checks a request against the raw bytes received: the check headers only (none of the service's), a signature with
 * the pause's key over this execution's id within the tolerance, and a body naming this execution and the check's id.
 * Whether that check was answered before is the receiver's to know. Never throws.
 */
export function verifyPauseCheck(input: {
	rawBody: Uint8Array | string;
	headers: IncomingHeaders;
	/** The execution whose resume URL received the request. */
	executionId: string;
	/** The key of the pause, as stored with the paused execution. */
	key: string;
	toleranceSeconds: number;
	/** Unix seconds; default current time. */
	now?: number;
}): VerifyPauseCheckResult {
	const serviceHeader = Object.values(WEBHOOK_HEADER_NAMES).find(
		(name) => readHeader(input.headers, name) !== undefined,
	);
	if (serviceHeader !== undefined) {
		return {
			ok: false,
			reason: 'not_a_pause_check',
			message: `A pause check carries no ${serviceHeader} header`,
		};
	}
	const verified = verifyTimestampedHmac({
		names: PAUSE_CHECK_HEADER_NAMES,
		timestampHeader: readHeader(input.headers, PAUSE_CHECK_HEADER_NAMES.timestamp),
		signatureHeader: readHeader(input.headers, PAUSE_CHECK_HEADER_NAMES.signature),
		secrets: [input.key],
		toleranceSeconds: input.toleranceSeconds,
		now: input.now,
		digest: (key, timestamp) => pauseCheckDigest(key, timestamp, input.executionId, input.rawBody),
	});
	if (!verified.ok) {
		return verified.reason === 'signature_mismatch'
			? { ...verified, message: "The check is not signed with this paused execution's key" }
			: verified;
	}
	const body = parsedBody(input.rawBody);
	if (body?.execution_id !== input.executionId) {
		return {
			ok: false,
			reason: 'not_a_pause_check',
			message: 'The body does not name this execution',
		};
	}
	if (typeof body.check_id !== 'string' || !CHECK_ID.test(body.check_id)) {
		return { ok: false, reason: 'not_a_pause_check', message: 'The body carries no check_id' };
	}
	if (typeof body.watcher !== 'string' || !WATCHERS.has(body.watcher)) {
		return { ok: false, reason: 'not_a_pause_check', message: 'The body names no watcher' };
	}
	return {
		ok: true,
		checkId: body.check_id,
		watcher: body.watcher,
		timestamp: verified.timestamp,
	};
}

function parsedBody(rawBody: Uint8Array | string): Partial<PauseCheckBody> | undefined {
	const text = typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8');
	try {
		const parsed = JSON.parse(text) as Partial<PauseCheckBody> | null;
		return parsed ?? undefined;
	} catch {
		return undefined;
	}
}
