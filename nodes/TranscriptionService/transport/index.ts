// The one place that talks HTTP to the service: it builds URLs from the credential, applies the retry policy and
// the rate-limit pacer of src/client, and turns the error envelope into NodeApiError.
import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestOptions,
	IN8nHttpFullResponse,
	IWebhookFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep, sleepWithAbort } from 'n8n-workflow';
import { createHash } from 'crypto';

import {
	apiKeyMode,
	buildPath,
	DEFAULT_PATH_PREFIX,
	INVALID_API_KEY_PREFIX_MESSAGE,
	isErrorEnvelope,
	joinPrefix,
	OPERATIONS,
	resolveLink,
	type OperationId,
	type PublicAPIErrorEnvelope,
	type PublicTranscriptionResponse,
	type RateLimitBucket,
} from '../../../src/api';
import {
	decideRetry,
	DEFAULT_RETRY_POLICY,
	RateLimitPacer,
	type AttemptOutcome,
	type RetryPolicy,
} from '../../../src/client';

export const CREDENTIAL_TYPE = 'transcriptionServiceApi';

/** The n8n contexts that call the API: the action node, the trigger's webhook and its activation hooks. */
export type RequestContext = IExecuteFunctions | IWebhookFunctions | IHookFunctions;

export type BinaryStream = Awaited<ReturnType<IExecuteFunctions['helpers']['getBinaryStream']>>;

export interface ApiRequest {
	operation: OperationId;
	pathParams?: Record<string, string>;
	query?: IDataObject;
	/** JSON body. */
	body?: IDataObject;
	/** Raw body, created anew for every attempt so a retried upload never reuses a consumed stream. */
	rawBody?: () => Promise<Buffer | BinaryStream>;
	contentLength?: number;
	headers?: Record<string, string>;
	idempotencyKey?: string;
	/** Statuses other than 2xx that the caller handles itself (e.g. 304). */
	acceptStatuses?: number[];
	/** Per-attempt socket timeout in milliseconds. */
	timeoutMs?: number;
	itemIndex?: number;
}

export interface ApiResponse<T = unknown> {
	status: number;
	headers: Record<string, string>;
	/** Parsed JSON for JSON answers, the raw bytes otherwise (artifacts), undefined for empty bodies. */
	body: T;
	rawBody: Buffer;
	attempts: number;
	/** Earlier attempts of this call that got no answer: the service may have acted on them (e.g. stored the bytes). */
	unansweredAttempts: number;
}

/** The API's error, as n8n users see it in a failed item. */
export interface ApiErrorFields {
	code: string;
	message: string;
	request_id: string | null;
	resolution_url: string | null;
	http_status: number | null;
	details?: IDataObject;
}

interface ServiceSettings {
	baseUrl: string;
	pathPrefix: string;
}

interface CachedJob {
	etag: string;
	job: PublicTranscriptionResponse;
}

/** What all calls of one execution with one account share: the rate-limit pacer and the ETags seen. */
interface AccountState {
	pacer: RateLimitPacer;
	jobs: Map<string, CachedJob>;
}

// Keyed by the execution's cancel signal, so the state lives exactly as long as the execution does.
const executionStates = new WeakMap<AbortSignal, Map<string, AccountState>>();

export class TranscriptionServiceClient {
	private settings: ServiceSettings | undefined;
	private state: AccountState | undefined;

	constructor(
		private readonly context: RequestContext,
		private readonly policy: RetryPolicy = DEFAULT_RETRY_POLICY,
		private readonly ownPacer?: RateLimitPacer,
	) {}

	/** Set by serviceSettings(), which every request awaits first. */
	private get pacer(): RateLimitPacer {
		return (this.state as AccountState).pacer;
	}

	async serviceSettings(): Promise<ServiceSettings> {
		if (!this.settings) {
			const credentials = await this.context.getCredentials(CREDENTIAL_TYPE);
			const baseUrl = String(credentials.baseUrl ?? '')
				.trim()
				.replace(/\/+$/, '');
			if (!/^https?:\/\//i.test(baseUrl)) {
				throw new NodeApiError(this.context.getNode(), {} as JsonObject, {
					message: "The credential's Base URL must start with http:// or https://",
					description: `Got "${baseUrl}". For the local sandbox use http://127.0.0.1:4010.`,
				});
			}
			// Checked here too (the credential's authenticate refuses it as well) so the message is not lost in a request error.
			if (apiKeyMode(String(credentials.apiKey ?? '')) === undefined) {
				throw new NodeOperationError(
					this.context.getNode(),
					"The credential's API Key has no known prefix",
					{
						description: INVALID_API_KEY_PREFIX_MESSAGE,
					},
				);
			}
			const prefix =
				credentials.pathPrefix === undefined ? DEFAULT_PATH_PREFIX : String(credentials.pathPrefix);
			this.settings = { baseUrl, pathPrefix: prefix };
			this.state = this.sharedState(`${baseUrl}|${fingerprint(String(credentials.apiKey ?? ''))}`);
		}
		return this.settings;
	}

	private sharedState(accountKey: string): AccountState {
		const fresh = (): AccountState => ({
			pacer: this.ownPacer ?? new RateLimitPacer(),
			jobs: new Map(),
		});
		const signal = this.cancelSignal();
		if (!signal || this.ownPacer) return fresh();
		let states = executionStates.get(signal);
		if (!states) {
			states = new Map();
			executionStates.set(signal, states);
		}
		let state = states.get(accountKey);
		if (!state) {
			state = fresh();
			states.set(accountKey, state);
		}
		return state;
	}

	cancelSignal(): AbortSignal | undefined {
		return 'getExecutionCancelSignal' in this.context
			? this.context.getExecutionCancelSignal()
			: undefined;
	}

	/**
	 * GET /transcriptions/{job_id} with If-None-Match when this execution has seen the job before: a 304 answers with
	 * the snapshot remembered from the last 200.
	 */
	async getTranscription(jobId: string, itemIndex?: number): Promise<PublicTranscriptionResponse> {
		await this.serviceSettings();
		const jobs = (this.state as AccountState).jobs;
		const cached = jobs.get(jobId);
		const response = await this.request<PublicTranscriptionResponse>({
			operation: 'getTranscription',
			pathParams: { job_id: jobId },
			headers: cached ? { 'If-None-Match': cached.etag } : undefined,
			acceptStatuses: cached ? [304] : undefined,
			itemIndex,
		});
		if (response.status === 304 && cached) return cached.job;
		const etag = response.headers.etag;
		if (etag) jobs.set(jobId, { etag, job: response.body });
		return response.body;
	}

	/** Absolute URL of an API link (relative path from a response, or an absolute URL from a webhook body). */
	async resolve(link: string): Promise<string> {
		return resolveLink((await this.serviceSettings()).baseUrl, link);
	}

	async request<T = unknown>(request: ApiRequest): Promise<ApiResponse<T>> {
		const { baseUrl, pathPrefix } = await this.serviceSettings();
		const definition = OPERATIONS[request.operation];
		const url = `${baseUrl}${joinPrefix(pathPrefix, buildPath(request.operation, request.pathParams))}`;
		const signal = this.cancelSignal();
		let unansweredAttempts = 0;

		for (let attempt = 1; ; attempt++) {
			await this.waitForPacer(definition.bucket, signal, request.itemIndex);
			const rawBody = await this.openRawBody(request, definition.bucket);
			let outcome: AttemptOutcome;
			let response: IN8nHttpFullResponse | undefined;
			try {
				response = await this.send(url, definition.method, request, rawBody, signal);
				const headers = lowerCaseHeaders(response.headers);
				this.pacer.observe(definition.bucket, headers, Date.now());
				outcome = { kind: 'response', status: response.statusCode, headers };
			} catch (error) {
				this.pacer.observe(definition.bucket, undefined, Date.now());
				if (signal?.aborted) throw new NodeApiError(this.context.getNode(), error as JsonObject);
				outcome = { kind: 'network_error', error: networkErrorOf(error) };
			}

			const ok =
				response !== undefined &&
				((response.statusCode >= 200 && response.statusCode < 300) ||
					(request.acceptStatuses ?? []).includes(response.statusCode));
			if (ok && response) return toApiResponse<T>(response, attempt, unansweredAttempts);

			const decision = decideRetry(outcome, attempt, this.policy, Date.now());
			if (decision.retry) {
				if (!response) unansweredAttempts++;
				await pause(decision.delayMs, signal);
				continue;
			}
			if (response) {
				throw apiErrorFromResponse(
					this.context,
					toApiResponse(response, attempt, unansweredAttempts),
					request.itemIndex,
					decision.reason,
				);
			}
			throw unreachableError(this.context, url, outcome, attempt, request.itemIndex);
		}
	}

	private async waitForPacer(
		bucket: RateLimitBucket,
		signal: AbortSignal | undefined,
		itemIndex?: number,
	) {
		for (;;) {
			const delay = this.pacer.reserve(bucket, Date.now());
			if (delay <= 0) return;
			if (delay > this.policy.maxRateLimitWaitMs) {
				// The same limit a 429 is held to: a window that reopens much later is reported, not waited out.
				throw buildNodeApiError(
					this.context,
					{
						code: 'rate_limit_exceeded',
						message: `The service's ${bucket} rate limit is used up for the next ${Math.ceil(delay / 1000)} s, longer than the ${Math.round(
							this.policy.maxRateLimitWaitMs / 1000,
						)} s this node waits`,
						request_id: null,
						resolution_url: null,
						http_status: null,
					},
					itemIndex,
				);
			}
			await pause(delay, signal);
		}
	}

	/** Opens the raw body for one attempt. A failure here is local (e.g. the input binary is gone), not the network's. */
	private async openRawBody(
		request: ApiRequest,
		bucket: (typeof OPERATIONS)[OperationId]['bucket'],
	): Promise<Buffer | BinaryStream | undefined> {
		if (request.body !== undefined || !request.rawBody) return undefined;
		try {
			return await request.rawBody();
		} catch (error) {
			this.pacer.release(bucket);
			throw inputReadError(this.context, error, request.itemIndex);
		}
	}

	private async send(
		url: string,
		method: IHttpRequestOptions['method'],
		request: ApiRequest,
		rawBody: Buffer | BinaryStream | undefined,
		signal: AbortSignal | undefined,
	): Promise<IN8nHttpFullResponse> {
		const headers: IDataObject = { Accept: 'application/json', ...request.headers };
		const options: IHttpRequestOptions = {
			url,
			method,
			qs: request.query,
			headers,
			encoding: 'arraybuffer',
			returnFullResponse: true,
			// Statuses are mapped here; without this n8n re-sends after a 401 and a consumed stream body then hangs.
			ignoreHttpStatusErrors: true,
			disableFollowRedirect: true,
			timeout: request.timeoutMs ?? 60_000,
			abortSignal: signal,
		};
		if (request.idempotencyKey !== undefined) headers['Idempotency-Key'] = request.idempotencyKey;
		if (request.body !== undefined) {
			headers['Content-Type'] = 'application/json';
			options.body = JSON.stringify(request.body);
		}
		if (rawBody !== undefined) {
			headers['Content-Type'] = 'application/octet-stream';
			if (request.contentLength !== undefined)
				headers['Content-Length'] = String(request.contentLength);
			// n8n passes a stream through to axios, which pipes it; the declared type only lacks the stream variant.
			options.body = rawBody as IHttpRequestOptions['body'];
		}
		try {
			return (await this.context.helpers.httpRequestWithAuthentication.call(
				this.context,
				CREDENTIAL_TYPE,
				options,
			)) as IN8nHttpFullResponse;
		} finally {
			// A stream the service stopped reading (error, reset) would otherwise keep its file open.
			if (rawBody !== undefined && !Buffer.isBuffer(rawBody)) rawBody.destroy();
		}
	}
}

function inputReadError(context: RequestContext, error: unknown, itemIndex: number | undefined) {
	if (error instanceof NodeOperationError || error instanceof NodeApiError) return error;
	return new NodeOperationError(context.getNode(), error as Error, {
		message: `Could not read the input binary to upload: ${(error as Error).message}`,
		itemIndex,
	});
}

function lowerCaseHeaders(raw: IDataObject | undefined): Record<string, string> {
	const headers: Record<string, string> = {};
	for (const [name, value] of Object.entries(raw ?? {})) {
		if (value !== undefined && value !== null) headers[name.toLowerCase()] = String(value);
	}
	return headers;
}

function fingerprint(secret: string): string {
	return createHash('sha256').update(secret).digest('hex').slice(0, 16);
}

function toApiResponse<T>(
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
function networkErrorOf(error: unknown): { code?: string; message: string } {
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

function apiErrorFromEnvelope(envelope: PublicAPIErrorEnvelope, status: number): ApiErrorFields {
	const { code, message, request_id, details } = envelope.error;
	const resolution = details?.resolution_url;
	return {
		code,
		message,
		request_id: request_id ?? null,
		resolution_url: typeof resolution === 'string' ? resolution : null,
		http_status: status,
		details: details as IDataObject,
	};
}

/** The API error an answer carries, when it is an error envelope. */
export function apiErrorOf(response: ApiResponse): ApiErrorFields | undefined {
	return isErrorEnvelope(response.body)
		? apiErrorFromEnvelope(response.body, response.status)
		: undefined;
}

/** The NodeApiError for an answer the caller accepted (acceptStatuses) but cannot use after all. */
export function apiErrorFromResponse(
	context: Pick<RequestContext, 'getNode'>,
	response: ApiResponse,
	itemIndex?: number,
	retryNote = '',
): NodeApiError {
	const fields: ApiErrorFields = apiErrorOf(response) ?? {
		code: `http_${response.status}`,
		message: `The service answered HTTP ${response.status} without an error envelope`,
		request_id: response.headers['x-request-id'] ?? null,
		resolution_url: null,
		http_status: response.status,
	};
	const attemptsNote =
		response.attempts > 1 && retryNote ? ` (${response.attempts} attempts; ${retryNote})` : '';
	return buildNodeApiError(context, fields, itemIndex, attemptsNote);
}

export function buildNodeApiError(
	context: Pick<RequestContext, 'getNode'>,
	fields: ApiErrorFields,
	itemIndex?: number,
	note = '',
): NodeApiError {
	const description = [
		`Error code: ${fields.code}`,
		fields.request_id ? `Request ID: ${fields.request_id}` : undefined,
		fields.resolution_url ? `How to fix: ${fields.resolution_url}` : undefined,
	]
		.filter(Boolean)
		.join(' · ');
	const error = new NodeApiError(
		context.getNode(),
		{ error: { ...fields } } as unknown as JsonObject,
		{
			message: `${fields.message}${note}`,
			description,
			httpCode: fields.http_status === null ? undefined : String(fields.http_status),
			itemIndex,
		},
	);
	error.context.apiError = fields as unknown as IDataObject;
	return error;
}

function unreachableError(
	context: RequestContext,
	url: string,
	outcome: AttemptOutcome,
	attempts: number,
	itemIndex: number | undefined,
): NodeApiError {
	const detail =
		outcome.kind === 'network_error' ? (outcome.error as { message: string }).message : '';
	return buildNodeApiError(
		context,
		{
			code: 'network_error',
			message: `Could not reach the Transcription Service at ${new URL(url).origin} after ${attempts} attempt${
				attempts === 1 ? '' : 's'
			}${detail ? ` (${detail})` : ''}`,
			request_id: null,
			resolution_url: null,
			http_status: null,
			details: { cause: detail },
		},
		itemIndex,
	);
}

/** The API error carried by an error this transport threw, for "Continue On Fail" items. */
export function apiErrorFieldsOf(error: unknown): ApiErrorFields | undefined {
	const context = (error as { context?: IDataObject } | undefined)?.context;
	const fields = context?.apiError as ApiErrorFields | undefined;
	return fields && typeof fields.code === 'string' ? fields : undefined;
}

/**
 * sleepWithAbort leaves its listener on the signal it is given; a wait of many polls would pile them up on the
 * execution's signal, so each pause listens through a short-lived signal of its own.
 */
export async function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
	if (!signal) return await sleep(ms);
	const local = new AbortController();
	const forward = () => local.abort();
	signal.addEventListener('abort', forward, { once: true });
	try {
		await sleepWithAbort(ms, signal.aborted ? signal : local.signal);
	} finally {
		signal.removeEventListener('abort', forward);
	}
}
