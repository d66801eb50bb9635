// The nine operations of spec section 4. Each goes through the same gate — authentication, scope,
// rate limit, injected faults, validation against the OpenAPI document — before its handler runs.

import { createHash } from 'node:crypto';
import path from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type {
	ModelTier,
	OperationId,
	OutputFormat,
	PublicAccountResponse,
	PublicTranscriptionCreateRequest,
	PublicTranscriptionCreateResponse,
	PublicTranscriptionListResponse,
	PublicUploadBinaryResponse,
	PublicUploadCreateRequest,
	PublicUploadCreateResponse,
	PublicWebhookTestRequest,
} from '../src/api';
import { buildPath, joinPrefix, OPERATIONS } from '../src/api';
import type { ArtifactFormat } from '../src/artifacts';
import { ARTIFACT_FORMATS, ARTIFACT_MEDIA_TYPES, artifactFileName } from '../src/artifacts';
import type { AuthContext } from './auth';
import { authenticate, requireScope } from './auth';
import { refuseForeignHost } from './callers';
import type { SandboxContext } from './context';
import { ApiError } from './errors';
import { orderJobs } from './list-order';
import { bodyStream, dropConnection, readJsonObject } from './http';
import type { StoredResponse } from './idempotency';
import { rateLimitError, rateLimitHeaders } from './rate-limit';
import { randomId } from './random';
import type { Transcript } from './render';
import { renderArtifact } from './render';
import type { JobRecord, JobRequest, UploadRecord } from './store';
import { removeFile, streamToFile } from './uploads';
import { formatContentDisposition, selectArtifactFormat } from '../src/service';

export const UPLOAD_SLOT_LIFETIME_SECONDS = 30 * 60;

interface HandlerInput {
	request: FastifyRequest;
	auth: AuthContext;
	body: Record<string, unknown> | undefined;
}

interface HandlerResult {
	status: number;
	body?: unknown;
	headers?: Record<string, string>;
}

type Handler = (input: HandlerInput) => Promise<HandlerResult>;

const TEXT_FORMATS: ReadonlySet<ArtifactFormat> = new Set(['srt', 'txt']);

export function registerApiRoutes(app: FastifyInstance, context: SandboxContext): void {
	const { store, clock, jobs, links } = context;
	const route = (operationId: OperationId, handler: Handler) => {
		const { method, path: template } = OPERATIONS[operationId];
		// {name} → :name for Fastify; "artifact.{path_format}" keeps its dot.
		const url = joinPrefix(context.pathPrefix, template.replace(/\{(\w+)\}/g, ':$1'));
		const jsonBody = method === 'POST';
		app.route({
			method,
			url,
			handler: (request, reply) => gate(context, operationId, jsonBody, handler, request, reply),
		});
	};

	route('getAccount', async ({ auth }) => {
		await jobs.catchUp();
		const body: PublicAccountResponse = {
			account_id: auth.account.account_id,
			effective_tier: auth.account.tier,
			api_access: auth.account.api_access,
			wallet_balance: auth.account.wallet_balance,
			status: 'active',
		};
		return { status: 200, body };
	});

	route('createUpload', async ({ request, auth, body }) =>
		idempotent(context, request, auth, 'createUpload', body, async () => {
			const input = body as unknown as PublicUploadCreateRequest;
			await context.uploadRetention.admit();
			const now = clock.now();
			const upload: UploadRecord = {
				upload_id: randomId('upl'),
				account_id: auth.account.account_id,
				filename: input.filename,
				content_type: input.content_type,
				size_bytes: input.size_bytes,
				state: 'awaiting_bytes',
				bytes_received: 0,
				created_at: now,
				expires_at: now + UPLOAD_SLOT_LIFETIME_SECONDS * 1000,
				file_path: '',
				source_deleted: false,
				idempotency_key: idempotencyKeyOf(request),
				idempotent_replays: 0,
				job_id: null,
			};
			upload.file_path = path.join(context.dataDir, upload.upload_id);
			context.uploadRetention.add(upload);
			const response: PublicUploadCreateResponse = {
				upload_id: upload.upload_id,
				upload_url: joinPrefix(
					context.pathPrefix,
					buildPath('uploadBinary', { upload_id: upload.upload_id }),
				),
				upload_method: 'PUT',
				expires_at: clock.toIso(upload.expires_at),
			};
			return { status: 201, body: response };
		}),
	);

	route('uploadBinary', async ({ request, auth }) => {
		const upload = ownUpload(context, auth, (request.params as { upload_id: string }).upload_id);
		if (clock.now() >= upload.expires_at) throw slotExpired(context, upload);
		if (upload.state !== 'awaiting_bytes') throw uploadNotAvailable(upload);
		upload.state = 'receiving';
		let received: number;
		try {
			received = await streamToFile(bodyStream(request), upload.file_path, upload.size_bytes);
		} catch (error) {
			upload.state = 'awaiting_bytes';
			throw error;
		}
		if (received !== upload.size_bytes) {
			upload.state = 'awaiting_bytes';
			await removeFile(upload.file_path);
			if (received === 0) throw ApiError.of('empty_upload_body', 'The upload body is empty.');
			throw ApiError.of(
				'upload_size_mismatch',
				`Received ${received} bytes but the slot declared size_bytes ${upload.size_bytes}.`,
				{ size_bytes: upload.size_bytes, bytes_received: received },
			);
		}
		upload.state = 'stored';
		upload.bytes_received = received;
		const response: PublicUploadBinaryResponse = { ok: true, bytes_received: received };
		return { status: 200, body: response };
	});

	route('createTranscription', async ({ request, auth, body }) =>
		idempotent(context, request, auth, 'createTranscription', body, async () => {
			const input = body as unknown as PublicTranscriptionCreateRequest;
			usableUpload(context, auth, input.upload_id);
			const webhookUrl = input.webhook_url ?? null;
			if (webhookUrl !== null) {
				const target = await context.webhooks.validateTarget(webhookUrl);
				if (!target.ok) throw ApiError.of(target.code, target.message, { webhook_url: webhookUrl });
			}
			// Checked again: another request may have taken the slot while the webhook target was resolved.
			const upload = usableUpload(context, auth, input.upload_id);
			const jobRequest: JobRequest = {
				translate_to_hebrew: input.translate_to_hebrew ?? false,
				model_tier: (input.model_tier ?? 'standard') as ModelTier,
				user_prompt: input.user_prompt ?? null,
				output_format: (input.output_format ?? 'srt') as OutputFormat,
				webhook_url: webhookUrl,
			};
			const newJob = {
				account: auth.account,
				upload,
				request: jobRequest,
				idempotencyKey: idempotencyKeyOf(request),
			};
			const job = auth.mode === 'test' ? await jobs.completeTest(newJob) : jobs.startLive(newJob);
			const response: PublicTranscriptionCreateResponse = {
				job_id: job.job_id,
				status: job.status,
				links: { self: links.job(job.job_id) },
			};
			return { status: auth.mode === 'test' ? 200 : 202, body: response };
		}),
	);

	route('listTranscriptions', async ({ request, auth }) => {
		await jobs.catchUp();
		const query = request.query as { limit?: number; cursor?: number; status?: string | null };
		const limit = query.limit ?? 20;
		const cursor = query.cursor ?? 0;
		const status = query.status ?? null;
		const matching = orderJobs(
			store
				.jobsOf(auth.account.account_id)
				.filter((job) => status === null || job.status === status),
			context.listOrder,
		);
		const pageLink = (pageCursor: number) => {
			const search = new URLSearchParams({ limit: String(limit), cursor: String(pageCursor) });
			if (status !== null) search.set('status', status);
			return `${joinPrefix(context.pathPrefix, OPERATIONS.listTranscriptions.path)}?${search.toString()}`;
		};
		const body: PublicTranscriptionListResponse = {
			items: matching.slice(cursor, cursor + limit).map((job) => jobs.snapshot(job)),
			total: matching.length,
			links: {
				self: pageLink(cursor),
				next: cursor + limit < matching.length ? pageLink(cursor + limit) : null,
				prev: cursor > 0 ? pageLink(Math.max(0, cursor - limit)) : null,
			},
		};
		return { status: 200, body };
	});

	route('getTranscription', async ({ request, auth }) => {
		await jobs.catchUp();
		const job = ownJob(context, auth, (request.params as { job_id: string }).job_id);
		const snapshot = jobs.snapshot(job);
		const etag = `"${createHash('sha256').update(JSON.stringify(snapshot)).digest('base64url').slice(0, 27)}"`;
		if (etagMatches(request.headers['if-none-match'], etag))
			return { status: 304, headers: { etag } };
		return { status: 200, body: snapshot, headers: { etag } };
	});

	const artifact: Handler = async ({ request, auth }) => {
		await jobs.catchUp();
		const params = request.params as { job_id: string; path_format?: string };
		const job = ownJob(context, auth, params.job_id);
		const queryFormat = (request.query as { format?: unknown }).format;
		const selection = selectArtifactFormat({
			pathFormat: params.path_format,
			queryFormat: typeof queryFormat === 'string' ? queryFormat : null,
			accept: request.headers.accept,
			outputFormat: job.request.output_format,
		});
		if (!selection.ok) {
			throw ApiError.of(
				'unsupported_artifact_format',
				`"${selection.value}" is not an artifact format; use one of ${ARTIFACT_FORMATS.join(', ')} (or plain_text).`,
				{
					source: selection.source,
					value: selection.value,
					supported_formats: [...ARTIFACT_FORMATS],
				},
			);
		}
		if (job.status !== 'completed') {
			throw ApiError.of(
				'artifact_not_ready',
				`Job ${job.job_id} is ${job.status}; the artifact exists once it completes.`,
				{
					status: job.status,
				},
			);
		}
		if (job.artifact_deleted || !job.transcript) {
			throw ApiError.of('artifact_not_found', `No artifact exists for job ${job.job_id}.`, {
				job_id: job.job_id,
			});
		}
		const bytes = await artifactBytes(job, job.transcript, selection.format);
		const mediaType = ARTIFACT_MEDIA_TYPES[selection.format];
		return {
			status: 200,
			body: bytes,
			headers: {
				'content-type': TEXT_FORMATS.has(selection.format)
					? `${mediaType}; charset=utf-8`
					: mediaType,
				'content-disposition': formatContentDisposition(
					artifactFileName(job.filename, selection.format),
				),
			},
		};
	};
	route('getTranscriptionArtifact', artifact);
	route('getTranscriptionArtifactByExtension', artifact);

	route('testWebhook', async ({ auth, body }) => {
		const input = body as unknown as PublicWebhookTestRequest;
		const target = await context.webhooks.validateTarget(input.webhook_url);
		if (!target.ok)
			throw ApiError.of(target.code, target.message, { webhook_url: input.webhook_url });
		const result = await context.webhooks.sendTest({
			url: input.webhook_url,
			secret: auth.account.signing_secret,
			eventType: input.event_type ?? 'transcription.completed',
			baseUrl: context.baseUrl,
			pathPrefix: context.pathPrefix,
		});
		return { status: 200, body: result };
	});
}

async function gate(
	context: SandboxContext,
	operationId: OperationId,
	jsonBody: boolean,
	handler: Handler,
	request: FastifyRequest,
	reply: FastifyReply,
): Promise<void> {
	// Before the key is even looked at: a rebinding page must not learn which demo keys work.
	refuseForeignHost(request, context.hostPolicy, 'The sandbox', {
		host: 'sandbox_host_forbidden',
		crossSite: 'sandbox_cross_site_forbidden',
	});
	const auth = authenticate(context.store, request.headers.authorization);
	requireScope(auth, operationId);
	// Cheap when nothing is due: both ends of the sweep stop at the first slot still young enough.
	await context.uploadRetention.sweep();
	const bucket = OPERATIONS[operationId].bucket;
	const limit = context.rateLimiter.consume(auth.account.account_id, bucket, auth.account.tier);
	reply.headers(rateLimitHeaders(limit));

	const fault = context.faults.decide(operationId);
	if (fault.latencyMs > 0) await context.clock.sleep(fault.latencyMs);
	switch (fault.kind) {
		case 'reset':
			return dropConnection(request, reply);
		case '429':
			throw rateLimitError(limit, context.clock.nowSeconds());
		case '500':
			throw ApiError.of('internal_error', 'Injected fault: internal error.');
		case '502':
			throw ApiError.of('upstream_unavailable', 'Injected fault: upstream storage unavailable.');
		case '503':
			throw ApiError.of('service_unavailable', 'Injected fault: service unavailable.');
	}

	context.validator.validateParameters(operationId, {
		query: request.query as Record<string, unknown>,
		params: request.params as Record<string, unknown>,
		headers: request.headers,
	});
	let body: Record<string, unknown> | undefined;
	if (jsonBody) {
		body = await readJsonObject(request);
		context.validator.validateBody(operationId, body);
	}

	const result = await handler({ request, auth, body });
	if (fault.kind === 'drop_after_commit') return dropConnection(request, reply);
	reply.code(result.status).headers(result.headers ?? {});
	await reply.send(result.body);
}

function idempotencyKeyOf(request: FastifyRequest): string | null {
	const key = request.headers['idempotency-key'];
	return typeof key === 'string' ? key : null;
}

/** Runs a create through the idempotency cache when the request carries a key. */
async function idempotent(
	context: SandboxContext,
	request: FastifyRequest,
	auth: AuthContext,
	operationId: 'createUpload' | 'createTranscription',
	body: unknown,
	execute: () => Promise<StoredResponse>,
): Promise<HandlerResult> {
	const key = idempotencyKeyOf(request);
	if (key === null) return execute();
	const { response, replayed } = await context.idempotency.run(
		{ accountId: auth.account.account_id, operationId, key },
		body,
		execute,
	);
	if (!replayed) return response;
	const created = response.body as { upload_id?: string; job_id?: string };
	const record = created.upload_id
		? context.store.uploads.get(created.upload_id)
		: context.store.jobs.get(created.job_id ?? '');
	if (record) record.idempotent_replays += 1;
	return { ...response, headers: { 'idempotent-replayed': 'true' } };
}

function ownUpload(context: SandboxContext, auth: AuthContext, uploadId: string): UploadRecord {
	const upload = context.store.uploads.get(uploadId);
	if (!upload || upload.account_id !== auth.account.account_id) {
		throw ApiError.of(
			'upload_not_found',
			`Upload slot ${uploadId} does not exist for this account.`,
			{
				upload_id: uploadId,
			},
		);
	}
	return upload;
}

/** A slot POST /transcriptions may use: this account's, not expired, holding bytes, not used yet. */
function usableUpload(context: SandboxContext, auth: AuthContext, uploadId: string): UploadRecord {
	const upload = ownUpload(context, auth, uploadId);
	if (context.clock.now() >= upload.expires_at) throw slotExpired(context, upload);
	if (upload.state !== 'stored') throw uploadNotAvailable(upload);
	return upload;
}

function slotExpired(context: SandboxContext, upload: UploadRecord): ApiError {
	return ApiError.of(
		'upload_slot_expired',
		`Upload slot ${upload.upload_id} expired at ${context.clock.toIso(upload.expires_at)}.`,
		{
			upload_id: upload.upload_id,
			expires_at: context.clock.toIso(upload.expires_at),
		},
	);
}

function uploadNotAvailable(upload: UploadRecord): ApiError {
	const why: Record<UploadRecord['state'], string> = {
		awaiting_bytes: 'has no media bytes yet; PUT them to its upload_url first',
		receiving: 'is receiving its media bytes right now',
		stored: 'already holds its media bytes',
		consumed: 'was already used by a transcription job',
	};
	return ApiError.of(
		'upload_not_available',
		`Upload slot ${upload.upload_id} ${why[upload.state]}.`,
		{
			upload_id: upload.upload_id,
			state: upload.state,
		},
	);
}

function ownJob(context: SandboxContext, auth: AuthContext, jobId: string): JobRecord {
	const job = context.store.jobs.get(jobId);
	if (!job || job.account_id !== auth.account.account_id) {
		throw ApiError.of('job_not_found', `Job ${jobId} does not exist for this account.`, {
			job_id: jobId,
		});
	}
	return job;
}

/** RFC 9110 13.1.2: weak comparison, a list of tags, or "*". */
function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
	if (!ifNoneMatch) return false;
	const strip = (tag: string) => tag.trim().replace(/^W\//, '');
	return ifNoneMatch
		.split(',')
		.some((candidate) => candidate.trim() === '*' || strip(candidate) === strip(etag));
}

/** Rendered once per job and format; a failed render is not kept, so the next download tries again. */
function artifactBytes(
	job: JobRecord,
	transcript: Transcript,
	format: ArtifactFormat,
): Promise<Buffer> {
	let bytes = job.artifacts.get(format);
	if (!bytes) {
		bytes = renderArtifact(format, transcript);
		job.artifacts.set(format, bytes);
		bytes.catch(() => job.artifacts.delete(format));
	}
	return bytes;
}
