// The one call into n8n's HTTP client, and the answer as this pack reads it.
import type { IDataObject, IHttpRequestOptions, IN8nHttpFullResponse } from 'n8n-workflow';

import { CREDENTIAL_TYPE } from '../credentials';
import type { BinaryStream, RequestContext } from './context';

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
	timeoutMs: number;
	signal?: AbortSignal;
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
		encoding: 'arraybuffer',
		returnFullResponse: true,
		// Statuses are mapped by the caller; without this n8n re-sends after a 401 and a consumed stream body then hangs.
		ignoreHttpStatusErrors: true,
		disableFollowRedirect: true,
		timeout: request.timeoutMs,
		abortSignal: request.signal,
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
	try {
		return (await context.helpers.httpRequestWithAuthentication.call(
			context,
			CREDENTIAL_TYPE,
			options,
		)) as IN8nHttpFullResponse;
	} finally {
		// A stream the service stopped reading (error, reset) would otherwise keep its file open.
		if (raw !== undefined && !Buffer.isBuffer(raw)) raw.destroy();
	}
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
