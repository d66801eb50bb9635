// The admin API under /_sandbox/: loopback callers only, no auth, never rate limited.
// Tests and demos use it to create keys, move the clock, force failures, inspect webhook deliveries
// and records, inject faults and tune rate limits.
// A loopback socket is not enough: any web page the developer opens can send requests to a loopback port. So a
// request must also pass the sandbox's host rule (callers.ts: a local Host, no foreign Origin) and — for a write — be
// JSON, which a page cannot send to another origin without a CORS preflight that this API never answers.

import Ajv2020 from 'ajv/dist/2020';
import type { ErrorObject } from 'ajv/dist/2020';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { API_KEY_PREFIXES, OPERATION_IDS } from '../src/api';
import type { SandboxContext } from './context';
import { ADMIN_PREFIX } from './admin-paths';
import { refuseForeignHost, type HostPolicy } from './callers';
import { ApiError } from './errors';
import type { FaultConfig } from './faults';
import { FAULT_KINDS } from './faults';
import type { ListOrder } from './list-order';
import { LIST_ORDERS } from './list-order';
import { readJsonObject } from './http';
import type { RateLimitConfig } from './rate-limit';
import { randomId } from './random';
import type { KeyMode, KeyScope } from './seed';
import type { Account, JobRecord } from './store';
import { initialWallet } from './store';
import { isLoopbackAddress } from './webhooks';

/** Body of POST /_sandbox/keys. */
export interface CreateKeyRequest {
	mode?: KeyMode;
	scope?: KeyScope;
	tier?: string;
	api_access?: boolean;
	/** Adds the key to this account (created if missing). */
	account_id?: string;
	/** A key whose account does not exist (401 invalid_api_key_user). */
	orphan?: boolean;
	wallet_balance?: number;
}

/** Body of POST /_sandbox/jobs. */
export interface SeedJobsRequest {
	account_id: string;
	/** 1 to 10,000. */
	count: number;
	/** Default completed. Queued and processing jobs run on the usual timers unless held. */
	status?: 'completed' | 'failed' | 'queued' | 'processing';
	held?: boolean;
	/** The uploaded file name the jobs pretend to have (artifact names follow it); default seeded.wav. */
	filename?: string;
}

export { ADMIN_PREFIX } from './admin-paths';

const MAX_SEEDED_JOBS = 10_000;

const METHODS_WITHOUT_EFFECT: ReadonlySet<string> = new Set(['GET', 'HEAD']);

const probability = { type: 'number', minimum: 0, maximum: 1 };

const SCHEMAS = {
	createKey: {
		type: 'object',
		additionalProperties: false,
		properties: {
			mode: { enum: ['live', 'test'] },
			scope: { enum: ['full_access', 'read_only'] },
			tier: { type: 'string', minLength: 1 },
			api_access: { type: 'boolean' },
			account_id: { type: 'string', minLength: 1 },
			orphan: { type: 'boolean' },
			wallet_balance: { type: 'number' },
		},
	},
	updateAccount: {
		type: 'object',
		additionalProperties: false,
		properties: {
			tier: { type: 'string', minLength: 1 },
			api_access: { type: 'boolean' },
			wallet_balance: { type: 'number' },
			signing_secret: { type: 'string', minLength: 1 },
		},
	},
	clock: {
		type: 'object',
		additionalProperties: false,
		required: ['advance_seconds'],
		properties: { advance_seconds: { type: 'number', minimum: 0 } },
	},
	faults: {
		type: 'object',
		additionalProperties: false,
		properties: {
			seed: { type: 'integer' },
			rules: {
				type: 'array',
				items: {
					type: 'object',
					additionalProperties: false,
					required: ['route', 'kind'],
					properties: {
						route: { enum: ['*', ...OPERATION_IDS] },
						kind: { enum: [...FAULT_KINDS] },
						probability,
						count: { type: 'integer', minimum: 0 },
						latency_ms: { type: 'number', minimum: 0 },
					},
					if: { properties: { kind: { const: 'latency' } } },
					then: { required: ['latency_ms'] },
				},
			},
			webhooks: {
				type: 'object',
				additionalProperties: false,
				properties: { duplicateProbability: probability, reorderProbability: probability },
			},
		},
	},
	seedJobs: {
		type: 'object',
		additionalProperties: false,
		required: ['account_id', 'count'],
		properties: {
			account_id: { type: 'string', minLength: 1 },
			count: { type: 'integer', minimum: 1, maximum: MAX_SEEDED_JOBS },
			status: { enum: ['completed', 'failed', 'queued', 'processing'] },
			held: { type: 'boolean' },
			filename: { type: 'string', minLength: 1, maxLength: 255 },
		},
	},
	listOrder: {
		type: 'object',
		additionalProperties: false,
		required: ['order'],
		properties: { order: { enum: [...LIST_ORDERS] } },
	},
	rateLimits: {
		type: 'object',
		additionalProperties: false,
		properties: {
			windowSeconds: { type: 'integer', minimum: 1 },
			perTier: { type: 'object', additionalProperties: { type: 'integer', minimum: 1 } },
			readsMultiplier: { type: 'number', exclusiveMinimum: 0 },
			artifactsMultiplier: { type: 'number', exclusiveMinimum: 0 },
			webhookTestsPerWindow: { type: 'integer', minimum: 1 },
		},
	},
} as const;

const ajv = new Ajv2020({ allErrors: true });
const validators = Object.fromEntries(
	Object.entries(SCHEMAS).map(([name, schema]) => [name, ajv.compile(schema)]),
) as Record<keyof typeof SCHEMAS, ReturnType<typeof ajv.compile>>;

async function adminBody<T>(request: FastifyRequest, schema: keyof typeof SCHEMAS): Promise<T> {
	const body = await readJsonObject(request, { optional: true });
	const validate = validators[schema];
	if (!validate(body)) {
		throw ApiError.validation(
			(validate.errors ?? []).map((error: ErrorObject) => ({
				location: 'body' as const,
				field: error.instancePath.replace(/^\//, '').replace(/\//g, '.'),
				message: error.message ?? 'is invalid',
			})),
		);
	}
	return body as T;
}

function refuseForeignCaller(request: FastifyRequest, policy: HostPolicy): void {
	if (!isLoopbackAddress(request.socket.remoteAddress ?? '')) {
		throw new ApiError(
			403,
			'admin_loopback_only',
			'The sandbox admin API answers loopback callers only.',
		);
	}
	refuseForeignHost(request, policy, 'The sandbox admin API', {
		host: 'admin_host_forbidden',
		crossSite: 'admin_cross_site_forbidden',
	});
	const mediaType = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
	if (!METHODS_WITHOUT_EFFECT.has(request.method) && mediaType !== 'application/json') {
		throw new ApiError(
			415,
			'admin_json_required',
			'Sandbox admin writes need "Content-Type: application/json", also without a body.',
		);
	}
}

function notFound(what: string): ApiError {
	return ApiError.of('not_found', `${what} does not exist in this sandbox.`);
}

export function registerAdminRoutes(app: FastifyInstance, context: SandboxContext): void {
	const { store, clock, jobs, webhooks } = context;
	const requestedJob = (request: FastifyRequest) => {
		const job = store.jobs.get((request.params as { job_id: string }).job_id);
		if (!job) throw notFound('This job');
		return job;
	};

	app.register(
		async (admin) => {
			admin.addHook('onRequest', async (request) =>
				refuseForeignCaller(request, context.hostPolicy),
			);

			admin.post('/keys', async (request, reply) => {
				const body = await adminBody<CreateKeyRequest>(request, 'createKey');
				const mode = body.mode ?? 'live';
				const scope = body.scope ?? 'full_access';
				const accountId = body.account_id ?? randomId('acct');
				let account = store.accounts.get(accountId);
				if (body.orphan) {
					// A key whose account is gone: the case of 401 invalid_api_key_user.
					if (account) {
						throw ApiError.validation([
							{
								location: 'body',
								field: 'orphan',
								message: 'an orphan key needs an account_id that does not exist',
							},
						]);
					}
				} else if (!account) {
					const tier = body.tier ?? 'platinum';
					account = {
						account_id: accountId,
						tier,
						api_access: body.api_access ?? true,
						wallet_balance: body.wallet_balance ?? initialWallet(tier),
						signing_secret: randomId('whsec', 16),
					};
					store.addAccount(account);
				}
				const key = `${API_KEY_PREFIXES[mode]}${randomId('sbx', 16).slice(4)}`;
				store.addKey({ key, account_id: accountId, mode, scope, revoked: false });
				reply.code(201);
				return {
					key,
					account_id: accountId,
					signing_secret: account?.signing_secret ?? null,
					mode,
					scope,
				};
			});

			admin.post('/keys/:key/revoke', async (request) => {
				const record = store.findKey((request.params as { key: string }).key);
				if (!record) throw notFound('This key');
				record.revoked = true;
				return { key: record.key, revoked: true };
			});

			admin.post('/accounts/:account_id', async (request) => {
				const account = store.accounts.get((request.params as { account_id: string }).account_id);
				if (!account) throw notFound('This account');
				Object.assign(account, await adminBody<Partial<Account>>(request, 'updateAccount'));
				return account;
			});

			admin.get('/clock', async () => ({ now: clock.toIso(), now_seconds: clock.nowSeconds() }));

			admin.post('/clock', async (request) => {
				const { advance_seconds } = await adminBody<{ advance_seconds: number }>(request, 'clock');
				clock.advance(advance_seconds);
				// Jobs that became due have settled (and queued their webhooks), and what expired is gone, before the answer.
				await jobs.catchUp();
				await context.uploadRetention.sweep();
				return { now: clock.toIso(), now_seconds: clock.nowSeconds() };
			});

			// What tests do to one job by hand: each answers the job as it stands afterwards.
			const jobActions: Record<string, (job: JobRecord) => Promise<void>> = {
				fail: (job) => jobs.fail(job),
				hold: (job) => jobs.hold(job),
				release: (job) => jobs.release(job),
				complete: (job) => jobs.completeNow(job),
				cancel: (job) => jobs.cancel(job),
			};
			for (const [action, act] of Object.entries(jobActions)) {
				admin.post(`/jobs/:job_id/${action}`, async (request) => {
					const job = requestedJob(request);
					await act(job);
					return jobs.snapshot(job);
				});
			}

			admin.post('/jobs', async (request, reply) => {
				const body = await adminBody<SeedJobsRequest>(request, 'seedJobs');
				const account = store.accounts.get(body.account_id);
				if (!account) throw notFound('This account');
				const seeded = jobs.seed({
					account,
					count: body.count,
					status: body.status ?? 'completed',
					held: body.held ?? false,
					filename: body.filename ?? 'seeded.wav',
				});
				reply.code(201);
				return { count: seeded.length, job_ids: seeded.map((job) => job.job_id) };
			});

			admin.post('/list-order', async (request) => {
				const { order } = await adminBody<{ order: ListOrder }>(request, 'listOrder');
				context.listOrder = order;
				return { order };
			});

			admin.delete('/jobs/:job_id/artifact', async (request) => {
				const job = store.jobs.get((request.params as { job_id: string }).job_id);
				if (!job) throw notFound('This job');
				job.artifact_deleted = true;
				job.artifacts.clear();
				return { job_id: job.job_id, artifact_deleted: true };
			});

			admin.get('/webhook-deliveries', async (request) => {
				if ((request.query as { wait?: string }).wait === 'idle') await webhooks.whenIdle();
				return webhooks.deliveries();
			});

			admin.post('/faults', async (request) => {
				const config = await adminBody<FaultConfig>(request, 'faults');
				if (config.seed !== undefined) context.reseed(config.seed);
				context.faults.configure(config);
				webhooks.setFaults(config.webhooks ?? null);
				return { ok: true, rules: config.rules ?? [], webhooks: config.webhooks ?? null };
			});

			admin.delete('/faults', async () => {
				context.faults.clear();
				webhooks.setFaults(null);
				return { ok: true };
			});

			admin.post('/rate-limits', async (request) => {
				return context.rateLimiter.configure(
					await adminBody<RateLimitConfig>(request, 'rateLimits'),
				);
			});

			admin.get('/records', async (request) => {
				await jobs.catchUp();
				await context.uploadRetention.sweep();
				const accountId = (request.query as { account_id?: string }).account_id;
				const owned = <T extends { account_id: string }>(records: Iterable<T>) =>
					[...records].filter(
						(record) => accountId === undefined || record.account_id === accountId,
					);
				const uploads = owned(store.uploads.values()).map((upload) => ({
					upload_id: upload.upload_id,
					account_id: upload.account_id,
					filename: upload.filename,
					content_type: upload.content_type,
					size_bytes: upload.size_bytes,
					state: upload.state,
					bytes_received: upload.bytes_received,
					source_deleted: upload.source_deleted,
					job_id: upload.job_id,
					idempotency_key: upload.idempotency_key,
					idempotent_replays: upload.idempotent_replays,
					created_at: clock.toIso(upload.created_at),
					expires_at: clock.toIso(upload.expires_at),
				}));
				const jobRecords = owned(store.jobs.values()).map((job) => ({
					...jobs.snapshot(job),
					account_id: job.account_id,
					mode: job.mode,
					upload_id: job.upload_id,
					request: job.request,
					failure_reason: job.failure_reason,
					artifact_deleted: job.artifact_deleted,
					idempotency_key: job.idempotency_key,
					idempotent_replays: job.idempotent_replays,
				}));
				return {
					counts: { uploads: uploads.length, jobs: jobRecords.length },
					uploads,
					jobs: jobRecords,
				};
			});
		},
		{ prefix: ADMIN_PREFIX },
	);
}
