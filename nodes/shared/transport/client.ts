// The one door to the service: URLs from the credential, the retry policy and rate-limit pacer of src/client,
// and answers turned into ApiResponse or a NodeApiError.
import type { IDataObject, IN8nHttpFullResponse, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import {
	buildPath,
	isErrorEnvelope,
	joinPrefix,
	OPERATIONS,
	type OperationId,
	type PublicTranscriptionResponse,
	type RateLimitBucket,
} from '../../../src/api';
import {
	decideRetry,
	DEFAULT_ATTEMPT_TIMEOUT_MS,
	DEFAULT_RETRY_POLICY,
	maxAnswerBytes,
	type AttemptOutcome,
	type RateLimitPacer,
	type RetryPolicy,
} from '../../../src/client';
import { apiError, type ApiErrorFields } from '../errors';
import { abortableSleep } from '../abortable-sleep';
import { cancelSignalOf, type BinaryStream, type RequestContext } from './context';
import { AttemptDeadline } from './deadline';
import {
	AnswerTooLarge,
	lowerCaseHeaders,
	networkErrorOf,
	sendRequest,
	toApiResponse,
	type ApiResponse,
} from './http';
import { readServiceSettings, type ServiceSettings } from './settings';
import { jobCacheFor, sharedPacer, type JobCache } from './pacers-and-job-caches';

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
	/** How long one attempt may take before its transfer allowance (src/client/retry.ts attemptDeadlineMs). */
	timeoutMs?: number;
	/** Ends the attempt under way when it aborts, with its reason: the raw body's source failed (a media host). */
	abortSignal?: AbortSignal;
	itemIndex?: number;
}

/**
 * Told of every attempt a client sends and of its answer (headers undefined when none came): a caller's own account
 * of what it spends, beside the account's pacer (the Polling Trigger keeps to its share of the rate limits).
 */
export interface RequestWatch {
	sent(bucket: RateLimitBucket): void;
	answered(bucket: RateLimitBucket, headers: Record<string, string> | undefined): void;
}

interface Connection {
	settings: ServiceSettings;
	pacer: RateLimitPacer;
	jobs: JobCache;
}

export class TranscriptionServiceClient {
	private connection: Promise<Connection> | undefined;

	constructor(
		private readonly context: RequestContext,
		private readonly policy: RetryPolicy = DEFAULT_RETRY_POLICY,
		private readonly watch?: RequestWatch,
	) {}

	cancelSignal(): AbortSignal | undefined {
		return cancelSignalOf(this.context);
	}

	private async connect(): Promise<Connection> {
		this.connection ??= (async () => {
			const settings = await readServiceSettings(this.context);
			return {
				settings,
				pacer: sharedPacer(settings.accountKey),
				jobs: jobCacheFor(this.cancelSignal(), settings.accountKey),
			};
		})();
		return await this.connection;
	}

	async serviceSettings(): Promise<ServiceSettings> {
		return (await this.connect()).settings;
	}

	/**
	 * GET /transcriptions/{job_id} with If-None-Match when this execution has seen the job before: a 304 answers with
	 * the snapshot remembered from the last 200.
	 */
	async getTranscription(jobId: string, itemIndex?: number): Promise<PublicTranscriptionResponse> {
		const { jobs } = await this.connect();
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

	async request<T = unknown>(request: ApiRequest): Promise<ApiResponse<T>> {
		const { settings, pacer } = await this.connect();
		const definition = OPERATIONS[request.operation];
		const url = `${settings.baseUrl}${joinPrefix(settings.pathPrefix, buildPath(request.operation, request.pathParams))}`;
		const signal = this.cancelSignal();
		let unansweredAttempts = 0;

		for (let attempt = 1; ; attempt++) {
			await this.waitForPacer(pacer, definition.bucket, signal, request.itemIndex);
			const raw = await this.openRawBody(pacer, request, definition.bucket);
			this.watch?.sent(definition.bucket);
			let outcome: AttemptOutcome;
			let response: IN8nHttpFullResponse | undefined;
			const timeoutMs =
				request.timeoutMs ?? this.policy.attemptTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
			const deadline = new AttemptDeadline(timeoutMs, request.contentLength ?? 0);
			const { abortSignal } = request;
			const abortAttempt = () => deadline.abort(abortSignal?.reason);
			if (abortSignal?.aborted) abortAttempt();
			abortSignal?.addEventListener('abort', abortAttempt, { once: true });
			try {
				response = await sendRequest(this.context, {
					url,
					method: definition.method,
					query: request.query,
					headers: {
						...request.headers,
						...(request.idempotencyKey === undefined
							? {}
							: { 'Idempotency-Key': request.idempotencyKey }),
					},
					json: request.body,
					raw,
					contentLength: request.contentLength,
					timeoutMs,
					signal,
					deadline,
					maxBodyBytes: (status) => maxAnswerBytes(definition.bucket, status),
				});
				const headers = lowerCaseHeaders(response.headers);
				// A 429 is not counted by the service: it tells the pacer the window is spent, not that we spent it.
				pacer.observe(definition.bucket, headers, Date.now(), response.statusCode !== 429);
				this.watch?.answered(definition.bucket, headers);
				outcome = { kind: 'response', status: response.statusCode, headers };
			} catch (error) {
				pacer.observe(definition.bucket, undefined, Date.now());
				this.watch?.answered(definition.bucket, undefined);
				if (signal?.aborted) throw new NodeApiError(this.context.getNode(), error as JsonObject);
				// The raw body's source failed: that is the error, and no attempt can send its bytes.
				if (abortSignal?.aborted) throw abortSignal.reason;
				// The same answer would come again: report it, do not retry it.
				if (error instanceof AnswerTooLarge)
					throw answerTooLargeError(this.context, url, definition.method, error, request.itemIndex);
				outcome = {
					kind: 'network_error',
					error: deadline.expired ? deadline.signal.reason : networkErrorOf(error),
				};
			} finally {
				deadline.stop();
				abortSignal?.removeEventListener('abort', abortAttempt);
			}

			const ok =
				response !== undefined &&
				((response.statusCode >= 200 && response.statusCode < 300) ||
					(request.acceptStatuses ?? []).includes(response.statusCode));
			if (ok && response) return toApiResponse<T>(response, attempt, unansweredAttempts);

			const decision = decideRetry(
				outcome,
				attempt,
				this.policy,
				Date.now(),
				Math.random,
				definition.retry,
			);
			if (decision.retry) {
				if (!response) unansweredAttempts++;
				await abortableSleep(decision.delayMs, signal);
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
			throw unreachableError(
				this.context,
				url,
				outcome,
				attempt,
				decision.reason,
				request.itemIndex,
			);
		}
	}

	private async waitForPacer(
		pacer: RateLimitPacer,
		bucket: RateLimitBucket,
		signal: AbortSignal | undefined,
		itemIndex?: number,
	) {
		// The waits of one attempt add up to maxRateLimitWaitMs at most, however often other requests take the window
		// first: timing.ts's worstReadMs counts on it.
		let waitedMs = 0;
		for (;;) {
			const delay = pacer.reserve(bucket, Date.now());
			if (delay <= 0) return;
			if (waitedMs + delay > this.policy.maxRateLimitWaitMs) {
				// The same limit a 429 is held to: a window that reopens much later is reported, not waited out.
				throw apiError(
					this.context.getNode(),
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
			await abortableSleep(delay, signal);
			waitedMs += delay;
		}
	}

	/** Opens the raw body for one attempt. A failure here is local (e.g. the input binary is gone), not the network's. */
	private async openRawBody(
		pacer: RateLimitPacer,
		request: ApiRequest,
		bucket: RateLimitBucket,
	): Promise<Buffer | BinaryStream | undefined> {
		if (request.body !== undefined || !request.rawBody) return undefined;
		try {
			return await request.rawBody();
		} catch (error) {
			pacer.release(bucket);
			throw inputReadError(this.context, error, request.itemIndex);
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

/** The API error an answer carries, when it is an error envelope. */
export function apiErrorOf(response: ApiResponse): ApiErrorFields | undefined {
	if (!isErrorEnvelope(response.body)) return undefined;
	const { code, message, request_id, details } = response.body.error;
	const resolution = details?.resolution_url;
	return {
		code,
		message,
		request_id: request_id ?? null,
		resolution_url: typeof resolution === 'string' ? resolution : null,
		http_status: response.status,
	};
}

/** The NodeApiError for an answer that is not a success (or that the caller accepted but cannot use after all). */
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
	let note = '';
	if (retryNote && response.attempts > 1) note = ` (${response.attempts} attempts; ${retryNote})`;
	else if (/^not repeated/.test(retryNote)) note = ` (${retryNote})`;
	return apiError(context.getNode(), fields, itemIndex, note);
}

function answerTooLargeError(
	context: RequestContext,
	url: string,
	method: string,
	error: AnswerTooLarge,
	itemIndex: number | undefined,
): NodeApiError {
	const nodeError = apiError(
		context.getNode(),
		{
			code: 'response_too_large',
			message: `The service's answer to ${method} ${new URL(url).pathname} (HTTP ${error.status}) ${error.message}`,
			request_id: null,
			resolution_url: null,
			http_status: null,
		},
		itemIndex,
	);
	nodeError.description = `${nodeError.description} · A transcript of a 10-hour recording takes under 8 MiB and the service's JSON answers far less: an answer this large is not one of them. Check that the credential's Base URL points at the service.`;
	return nodeError;
}

function unreachableError(
	context: RequestContext,
	url: string,
	outcome: AttemptOutcome,
	attempts: number,
	reason: string,
	itemIndex: number | undefined,
): NodeApiError {
	const detail =
		outcome.kind === 'network_error' ? (outcome.error as { message: string }).message : '';
	const given = attempts === 1 && /not repeated/.test(reason) ? `; ${reason}` : '';
	return apiError(
		context.getNode(),
		{
			code: 'network_error',
			message: `Could not reach the Transcription Service at ${new URL(url).origin} after ${attempts} attempt${
				attempts === 1 ? '' : 's'
			}${detail ? ` (${detail})` : ''}${given}`,
			request_id: null,
			resolution_url: null,
			http_status: null,
		},
		itemIndex,
	);
}
