// The one call into n8n's HTTP client, and the answer as this pack reads it: streamed, so its size is checked before
// and while it is read, and its time is the attempt's deadline's.
import type { IDataObject, IHttpRequestOptions, IN8nHttpFullResponse } from 'n8n-workflow';

import { formatBytes } from '../../../src/client';
import { CREDENTIAL_TYPE } from '../credentials';
import type { BinaryStream, RequestContext } from './context';
import type { AttemptDeadline } from './deadline';

export interface OutgoingRequest {
	url: string;
	method: IHttpRequestOptions['method'];
	query?: IDataObject;
	headers: Record<string, string>;
	/** JSON body. */
	json?: IDataObject;
	/** Raw body (a stream is destroyed once sent, so a file is never left open). */
	raw?: Buffer | BinaryStream;
	contentLength?: number;
	/** How long n8n's client waits on a silent connection before the answer's headers. */
	timeoutMs: number;
	/** The execution's cancel signal, where there is one. */
	signal?: AbortSignal;
	deadline: AttemptDeadline;
	/** The largest answer body accepted with a given HTTP status. */
	maxBodyBytes: (status: number) => number;
}

/** An answer larger than the client accepts: refused from its Content-Length, or cut off once past the limit. */
export class AnswerTooLarge extends Error {
	constructor(
		readonly limitBytes: number,
		readonly declaredBytes: number | undefined,
		readonly status: number,
	) {
		super(
			declaredBytes === undefined
				? `went past ${formatBytes(limitBytes)} without a Content-Length; reading stopped there`
				: `declares ${formatBytes(declaredBytes)} (Content-Length), more than the ${formatBytes(limitBytes)} accepted; nothing was read`,
		);
		this.name = 'AnswerTooLarge';
	}
}

export interface ApiResponse<T = unknown> {
	status: number;
	/** Lower-case names. */
	headers: Record<string, string>;
	/** Parsed JSON for JSON answers, the raw bytes otherwise (artifacts), undefined for empty bodies. */
	body: T;
	rawBody: Buffer;
	attempts: number;
	/** Earlier attempts of this call that got no answer: the service may have acted on them (e.g. stored the bytes). */
	unansweredAttempts: number;
}

export async function sendRequest(
	context: RequestContext,
	request: OutgoingRequest,
): Promise<IN8nHttpFullResponse> {
	const headers: IDataObject = { Accept: 'application/json', ...request.headers };
	const options: IHttpRequestOptions = {
		url: request.url,
		method: request.method,
		qs: request.query,
		headers,
		// A stream, not a buffer: n8n's client would read any size into memory (its maxContentLength is unlimited).
		encoding: 'stream',
		returnFullResponse: true,
		// Statuses are mapped by the caller; without this n8n re-sends after a 401 and a consumed stream body then hangs.
		ignoreHttpStatusErrors: true,
		disableFollowRedirect: true,
		timeout: request.timeoutMs,
		// In an execution n8n uses the execution's cancel signal instead; elsewhere the deadline closes the socket.
		abortSignal: request.signal ?? request.deadline.signal,
	};
	if (request.json !== undefined) {
		headers['Content-Type'] = 'application/json';
		options.body = JSON.stringify(request.json);
	}
	const { raw } = request;
	if (raw !== undefined) {
		headers['Content-Type'] = 'application/octet-stream';
		if (request.contentLength !== undefined)
			headers['Content-Length'] = String(request.contentLength);
		// n8n passes a stream through to axios, which pipes it; the declared type only lacks the stream variant.
		options.body = raw as IHttpRequestOptions['body'];
	}
	const { deadline } = request;
	// The stream is destroyed once sent or when the deadline comes, so a file is never left open.
	const closeRaw = () => {
		if (raw !== undefined && !Buffer.isBuffer(raw)) raw.destroy();
	};
	deadline.signal.addEventListener('abort', closeRaw, { once: true });
	const pending = context.helpers.httpRequestWithAuthentication.call(
		context,
		CREDENTIAL_TYPE,
		options,
	) as Promise<IN8nHttpFullResponse>;
	try {
		const response = await deadline.race(pending);
		return { ...response, body: await readBody(response, request) };
	} finally {
		// An answer that comes after the deadline is closed unread.
		if (deadline.expired)
			void pending.then(
				(late) => discardBody(late.body),
				() => undefined,
			);
		deadline.signal.removeEventListener('abort', closeRaw);
		closeRaw();
	}
}

interface BodyStream extends AsyncIterable<unknown> {
	destroy(error?: Error): void;
}

function isBodyStream(body: unknown): body is BodyStream {
	return (
		typeof body === 'object' &&
		body !== null &&
		Symbol.asyncIterator in body &&
		typeof (body as { destroy?: unknown }).destroy === 'function'
	);
}

/**
 * Closes an answer that will not be read. n8n 2.41's client hands a streamed body through a generator that lets go of
 * the connection only once it has been read from: destroyed unread, the connection would stay open. So one chunk
 * (already received, or the next one) is taken first, then the stream is closed.
 */
function discardBody(body: unknown): void {
	if (!isBodyStream(body)) return;
	const chunks = body[Symbol.asyncIterator]();
	void chunks
		.next()
		.then(
			async () => await chunks.return?.(),
			() => undefined,
		)
		.finally(() => body.destroy());
}

/** The whole body, within the size limit for its status and within the attempt's deadline. */
async function readBody(response: IN8nHttpFullResponse, request: OutgoingRequest): Promise<Buffer> {
	const limit = request.maxBodyBytes(response.statusCode);
	const { body } = response;
	if (!isBodyStream(body)) {
		const bytes = toBuffer(body);
		if (bytes.length > limit) throw new AnswerTooLarge(limit, undefined, response.statusCode);
		return bytes;
	}
	const declared = Number(lowerCaseHeaders(response.headers)['content-length']);
	if (Number.isSafeInteger(declared) && declared > limit) {
		discardBody(body);
		throw new AnswerTooLarge(limit, declared, response.statusCode);
	}
	const { deadline } = request;
	const stopAtDeadline = () => body.destroy(deadline.signal.reason as Error);
	if (deadline.expired) stopAtDeadline();
	deadline.signal.addEventListener('abort', stopAtDeadline, { once: true });
	const chunks: Buffer[] = [];
	let received = 0;
	let failure: unknown;
	try {
		for await (const chunk of body) {
			const bytes = toBuffer(chunk);
			received += bytes.length;
			if (received > limit) {
				body.destroy();
				throw new AnswerTooLarge(limit, undefined, response.statusCode);
			}
			deadline.credit(bytes.length);
			chunks.push(bytes);
		}
	} catch (error) {
		failure = error;
	} finally {
		deadline.signal.removeEventListener('abort', stopAtDeadline);
	}
	// A stream stopped by the deadline reports it as the reason it was destroyed, or as a bare "aborted".
	if (failure !== undefined) {
		throw deadline.expired && !(failure instanceof AnswerTooLarge)
			? deadline.signal.reason
			: failure;
	}
	return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received);
}

/** An answer's Date header (whole seconds: the service's clock, which X-RateLimit-Reset is read against). */
export function answerDateMs(headers: Record<string, string> | undefined): number | undefined {
	const date = headers?.date;
	const ms = date ? Date.parse(date) : Number.NaN;
	return Number.isFinite(ms) ? ms : undefined;
}

export function lowerCaseHeaders(raw: IDataObject | undefined): Record<string, string> {
	const headers: Record<string, string> = {};
	for (const [name, value] of Object.entries(raw ?? {})) {
		if (value !== undefined && value !== null) headers[name.toLowerCase()] = String(value);
	}
	return headers;
}

export function toApiResponse<T>(
	response: IN8nHttpFullResponse,
	attempts: number,
	unansweredAttempts: number,
): ApiResponse<T> {
	const headers = lowerCaseHeaders(response.headers);
	const rawBody = toBuffer(response.body);
	const isJson = /\bjson\b/i.test(headers['content-type'] ?? '');
	let body: unknown = rawBody.length === 0 ? undefined : rawBody;
	if (isJson && rawBody.length > 0) {
		try {
			body = JSON.parse(rawBody.toString('utf8'));
		} catch {
			body = rawBody.toString('utf8');
		}
	}
	return {
		status: response.statusCode,
		headers,
		body: body as T,
		rawBody,
		attempts,
		unansweredAttempts,
	};
}

function toBuffer(body: unknown): Buffer {
	if (body === undefined || body === null || body === '') return Buffer.alloc(0);
	if (Buffer.isBuffer(body)) return body;
	if (body instanceof ArrayBuffer) return Buffer.from(body);
	if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
	if (typeof body === 'string') return Buffer.from(body, 'utf8');
	return Buffer.from(JSON.stringify(body), 'utf8');
}

/** n8n wraps network failures in NodeApiError, keeping the socket error's code as `httpCode`. */
export function networkErrorOf(error: unknown): { code?: string; message: string } {
	const candidate = (error ?? {}) as {
		code?: unknown;
		httpCode?: unknown;
		message?: unknown;
		messages?: unknown;
	};
	const code = [candidate.code, candidate.httpCode].find(
		(value): value is string => typeof value === 'string' && /^[A-Z_]+$/.test(value),
	);
	const messages = Array.isArray(candidate.messages) ? candidate.messages.map(String) : [];
	const message = [String(candidate.message ?? 'network error'), ...messages].join('; ');
	return { code, message };
}
