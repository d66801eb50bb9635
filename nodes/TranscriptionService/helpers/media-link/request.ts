// The one door to media hosts: a GET of the link through n8n's own request helpers (so the proxy, TLS and SSRF
// settings of the user's n8n apply to it as to the HTTP Request node), redirects followed here, a bounded number,
// each hop checked. The Transcription Service credential never goes through this door; a Media Link credential goes
// only to the link's own origin, never after a redirect to another one.
import type { IExecuteFunctions, IHttpRequestOptions, IN8nHttpFullResponse } from 'n8n-workflow';

import {
	decideRetry,
	RETRYABLE_STATUSES,
	type AttemptOutcome,
	type RetryPolicy,
} from '../../../../src/client';
import {
	isSameOrigin,
	MAX_MEDIA_REDIRECTS,
	redactLink,
	redirectTarget,
} from '../../../../src/media';
import { abortableSleep } from '../../../shared/abortable-sleep';
import { cancelSignalOf, type BinaryStream } from '../../../shared/transport';
import { lowerCaseHeaders, networkErrorOf } from '../../../shared/transport/http';
import { MEDIA_LINK_CREDENTIAL_TYPE } from './credential';
import { mediaError, networkFailureInWords, seconds, timeoutAdvice } from './errors';

/** A media host that answers 429, 5xx or not at all is asked again, briefly: the item fails soon after. */
const MEDIA_RETRY_POLICY: RetryPolicy = {
	maxAttempts: 3,
	baseDelayMs: 500,
	maxDelayMs: 4_000,
	maxRateLimitWaitMs: 30_000,
	rateLimitJitterMs: 250,
};

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export interface MediaRequest {
	link: URL;
	/** Send the Media Link credential (to the link's own origin only). */
	authenticate: boolean;
	/** How long the host may stay silent: before the answer's headers and between two bytes of the body. */
	idleTimeoutMs: number;
	/** When the whole transfer must have ended (Date.now() clock). */
	deadlineAtMs: number;
	itemIndex: number;
}

export interface MediaAnswer {
	/** The URL that answered with the media, after redirects. */
	url: URL;
	/** Lower-case names. */
	headers: Record<string, string>;
	body: BinaryStream;
	/** Ends the request, its connection included, whether its body was read or not. */
	abort: () => void;
}

/** One answer of a media host, and the way to end its request. */
interface Exchange {
	response: IN8nHttpFullResponse;
	abort: () => void;
}

/** GET of the link, redirects followed, until a 2xx answer with a body; anything else is the item's error. */
export async function requestMedia(
	context: IExecuteFunctions,
	request: MediaRequest,
): Promise<MediaAnswer> {
	let url = request.link;
	for (let redirects = 0; ; redirects++) {
		const { response, abort } = await getWithRetries(context, request, url);
		const headers = lowerCaseHeaders(response.headers);
		if (REDIRECT_STATUSES.has(response.statusCode)) {
			abort();
			if (redirects >= MAX_MEDIA_REDIRECTS) {
				throw mediaError(context, request, {
					code: 'media_too_many_redirects',
					message: `The media link ${redactLink(request.link)} redirected more than ${MAX_MEDIA_REDIRECTS} times`,
					description:
						'The host sends the request in a loop, or through more hops than a download needs. Open the link in a browser to see where it ends, and use that address.',
				});
			}
			const next = redirectTarget(url, headers.location);
			if (!(next instanceof URL)) {
				throw mediaError(context, request, {
					code: next.code,
					message: next.message,
					description:
						'Only http:// and https:// redirects are followed, never from https:// to http://.',
				});
			}
			url = next;
			continue;
		}
		if (response.statusCode < 200 || response.statusCode >= 300) {
			abort();
			throw statusError(context, request, url, response.statusCode, redirects);
		}
		return { url, headers, body: response.body as BinaryStream, abort };
	}
}

/** What one GET came to: an answer, a request that failed, or a host that stayed silent past the wait. */
type Attempt =
	| { kind: 'answer'; exchange: Exchange }
	| { kind: 'failed'; error: unknown }
	| { kind: 'silent'; waitedMs: number };

async function getWithRetries(
	context: IExecuteFunctions,
	request: MediaRequest,
	url: URL,
): Promise<Exchange> {
	for (let attempt = 1; ; attempt++) {
		const result = await getOnce(context, request, url);
		if (result.kind === 'silent') {
			throw mediaError(context, request, {
				code: 'media_timeout',
				message: `The media host at ${redactLink(url)} sent no answer within ${seconds(result.waitedMs)}`,
				description: timeoutAdvice(),
			});
		}
		let outcome: AttemptOutcome;
		if (result.kind === 'answer') {
			const { statusCode, headers } = result.exchange.response;
			if (!RETRYABLE_STATUSES.has(statusCode)) return result.exchange;
			outcome = { kind: 'response', status: statusCode, headers: lowerCaseHeaders(headers) };
		} else if (refusedBySsrfProtection(result.error)) {
			throw mediaError(context, request, {
				code: 'media_link_blocked',
				message: `n8n refused to connect to ${redactLink(url)}: this n8n's SSRF protection blocks its address`,
				description:
					'Your n8n administrator blocks requests to private and internal addresses (N8N_SSRF_PROTECTION_ENABLED, n8n 2.12 and later). Use a public link, or ask them to allow this host (N8N_SSRF_ALLOWED_HOSTNAMES or N8N_SSRF_ALLOWED_IP_RANGES).',
			});
		} else {
			outcome = { kind: 'network_error', error: networkErrorOf(result.error) };
		}
		const decision = decideRetry(outcome, attempt, MEDIA_RETRY_POLICY);
		if (!decision.retry || Date.now() + decision.delayMs >= request.deadlineAtMs) {
			if (result.kind === 'answer') return result.exchange;
			throw unreachableError(context, request, url, outcome, attempt);
		}
		if (result.kind === 'answer') result.exchange.abort();
		await abortableSleep(decision.delayMs, cancelSignalOf(context));
	}
}

/**
 * One GET, its answer's headers awaited at most until the idle timeout or the deadline, whichever comes first. The
 * request has an abort signal of its own, which also follows the execution's: with newer n8n (2.41's HTTP client) a
 * streamed answer whose host has gone silent is closed only through its request's signal, not by destroying the body.
 */
async function getOnce(
	context: IExecuteFunctions,
	request: MediaRequest,
	url: URL,
): Promise<Attempt> {
	const controller = new AbortController();
	const cancel = cancelSignalOf(context);
	const followCancel = () => controller.abort(cancel?.reason);
	cancel?.addEventListener('abort', followCancel, { once: true });
	const abort = () => {
		cancel?.removeEventListener('abort', followCancel);
		if (!controller.signal.aborted) controller.abort();
	};
	const options: IHttpRequestOptions = {
		url: url.href,
		method: 'GET',
		// The exact size is the answer's Content-Length only when the body is sent as stored.
		headers: { Accept: '*/*', 'Accept-Encoding': 'identity' },
		encoding: 'stream',
		returnFullResponse: true,
		// Every status reaches the loop above, and n8n never re-sends the request after a 401.
		ignoreHttpStatusErrors: true,
		// n8n's own redirect handling would copy an Authorization header to another origin.
		disableFollowRedirect: true,
		timeout: request.idleTimeoutMs,
		abortSignal: controller.signal,
	};
	const sendCredential = request.authenticate && isSameOrigin(url, request.link);
	const pending = (
		sendCredential
			? context.helpers.httpRequestWithAuthentication.call(
					withoutExecutionSignal(context),
					MEDIA_LINK_CREDENTIAL_TYPE,
					options,
				)
			: context.helpers.httpRequest(options)
	) as Promise<IN8nHttpFullResponse>;
	const waitedMs = Math.max(0, Math.min(request.idleTimeoutMs, request.deadlineAtMs - Date.now()));
	const stop = new AbortController();
	const silence = abortableSleep(waitedMs, stop.signal).then(
		(): Attempt => ({ kind: 'silent', waitedMs }),
		(): Attempt => ({ kind: 'silent', waitedMs }),
	);
	const result = await Promise.race([
		pending.then(
			(response): Attempt => ({ kind: 'answer', exchange: { response, abort } }),
			(error: unknown): Attempt => ({ kind: 'failed', error }),
		),
		silence,
	]);
	stop.abort();
	if (result.kind !== 'answer') abort();
	return result;
}

/**
 * n8n's httpRequestWithAuthentication puts the execution's cancel signal in place of the request's own whenever the
 * context it is called on has one. The credential is still applied by n8n (the credential type's authenticate), from
 * a context that offers what that function reads (credentials, helpers, logger, node) and no execution signal, so the
 * media request keeps its own (which follows the execution's: getOnce).
 */
function withoutExecutionSignal(context: IExecuteFunctions): IExecuteFunctions {
	return {
		getCredentials: context.getCredentials.bind(context),
		getNode: context.getNode.bind(context),
		helpers: context.helpers,
		logger: context.logger,
	} as unknown as IExecuteFunctions;
}

function statusError(
	context: IExecuteFunctions,
	request: MediaRequest,
	url: URL,
	status: number,
	redirects: number,
) {
	const where = `${redactLink(url)}${redirects > 0 ? ` (after ${redirects} redirect${redirects === 1 ? '' : 's'} from ${redactLink(request.link)})` : ''}`;
	const crossed = redirects > 0 && !isSameOrigin(url, request.link);
	if (status === 401 || status === 403) {
		const credentialNote = !request.authenticate
			? 'If the host needs a token or a password, set "Link Authentication" to a Media Link credential.'
			: crossed
				? "The Media Link credential is sent only to the link's own origin, never after a redirect to another one: link straight to the host that serves the file."
				: 'The Media Link credential was sent: check its value and that it is allowed to read this file.';
		return mediaError(context, request, {
			code: 'media_access_denied',
			message: `The media host refused the download (HTTP ${status}) at ${where}`,
			description: `A pre-signed link (S3, GCS, Azure) refuses once it has expired or when it was signed for another method: create a fresh one. ${credentialNote}`,
		});
	}
	if (status === 404 || status === 410) {
		return mediaError(context, request, {
			code: 'media_not_found',
			message: `The media host has no file at ${where} (HTTP ${status})`,
			description: 'Check the link; a pre-signed or shared link may have been revoked.',
		});
	}
	return mediaError(context, request, {
		code: 'media_http_error',
		message: `The media host answered HTTP ${status} at ${where}`,
		description: 'The download needs a 2xx answer with the file as its body.',
	});
}

function unreachableError(
	context: IExecuteFunctions,
	request: MediaRequest,
	url: URL,
	outcome: AttemptOutcome,
	attempts: number,
) {
	const error =
		outcome.kind === 'network_error'
			? (outcome.error as { code?: string; message: string })
			: undefined;
	return mediaError(context, request, {
		code: 'media_unreachable',
		message: `Could not download from the media host at ${redactLink(url)} after ${attempts} attempt${attempts === 1 ? '' : 's'}${networkFailureInWords(error)}`,
		description: 'Check that the link opens from the machine n8n runs on.',
	});
}

/**
 * n8n's SSRF protection (n8n 2.12 and later, N8N_SSRF_PROTECTION_ENABLED) refuses a blocked address before connecting,
 * with an SsrfBlockedIpError or SsrfBlockedHostnameError, possibly wrapped by n8n's HTTP client.
 */
function refusedBySsrfProtection(error: unknown, depth = 0): boolean {
	if (typeof error !== 'object' || error === null || depth > 3) return false;
	const { name, message, cause } = error as { name?: unknown; message?: unknown; cause?: unknown };
	if (typeof name === 'string' && /^Ssrf/.test(name)) return true;
	if (
		typeof message === 'string' &&
		/request was blocked because|Server-Side Request Forgery/i.test(message)
	)
		return true;
	return refusedBySsrfProtection(cause, depth + 1);
}
