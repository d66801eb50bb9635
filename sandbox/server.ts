// The sandbox: a local HTTP server that behaves, to any client, like the Transcription Service of the
// spec. startSandbox() is what the CLI, the tests and the benchmarks call.

import Fastify from 'fastify';
import type { FastifyError, FastifyInstance } from 'fastify';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { isIPv6 } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
	apiReferenceHtml,
	arazzoYaml,
	openApiJson,
	openApiYaml,
	API_REFERENCE_PATH,
} from '../openapi';
import { buildPath, DEFAULT_PATH_PREFIX, joinPrefix } from '../src/api';
import { registerAdminRoutes } from './admin-routes';
import { registerApiRoutes } from './api-routes';
import { SandboxClock, type SandboxTimers } from './clock';
import type { SandboxContext } from './context';
import { ApiError, errorEnvelope } from './errors';
import { discardUnreadBody } from './http';
import { FaultInjector } from './faults';
import { IdempotencyCache } from './idempotency';
import { JobRunner } from './jobs';
import type { ListOrder } from './list-order';
import { DEFAULT_LIST_ORDER } from './list-order';
import type { Links } from './jobs';
import { mulberry32, randomId, randomSeed } from './random';
import type { RateLimitConfig } from './rate-limit';
import { RateLimiter } from './rate-limit';
import type { RecordLimits } from './retention';
import { DEFAULT_RECORD_LIMITS, UploadRetention } from './retention';
import type { SeededKeys } from './seed';
import { SEEDED_KEYS } from './seed';
import { Store } from './store';
import { RequestValidator } from './validation';
import { WebhookDispatcher } from './webhooks';

export type { ListOrder } from './list-order';
export type { RateLimitConfig } from './rate-limit';
export type { RecordLimits } from './retention';

export interface SandboxOptions {
	/** Default 127.0.0.1. */
	host?: string;
	/**
	 * Host names requests may be addressed to besides loopback names, localhost and `host` (callers.ts): the name
	 * another machine or container reaches this sandbox by. Anything else is refused, against DNS rebinding.
	 */
	allowedHosts?: string[];
	/** Default 4010; 0 picks a free port. */
	port?: number;
	/** Sandbox seconds a live job spends in queued + processing (default 3). */
	jobSeconds?: number;
	/** Multiplies the long durations (webhook retry schedule); default 1. */
	timeScale?: number;
	/** Lets webhook targets be http:// on loopback (a local n8n). */
	allowLocalWebhooks?: boolean;
	/** Seeds fault injection and webhook jitter. */
	seed?: number;
	/** Where media bytes go; default a fresh temp dir, removed on close. */
	dataDir?: string;
	/** Default '/api/v1'. */
	pathPrefix?: string;
	rateLimits?: RateLimitConfig;
	/** Caps on the records held within their retention (defaults in DEFAULT_RECORD_LIMITS). */
	recordLimits?: Partial<RecordLimits>;
	/** The order GET /transcriptions lists jobs in (default newest_first). */
	listOrder?: ListOrder;
	/** No request log on stderr. */
	quiet?: boolean;
	/** The real time under the sandbox clock (default Date.now): tests give one that Node's timers run ahead of. */
	realNow?: () => number;
	/** How the sandbox waits (default Node's timers): a test on a controlled clock gives its own. */
	timers?: SandboxTimers;
}

export interface RunningSandbox {
	baseUrl: string;
	port: number;
	keys: SeededKeys;
	clock: SandboxClock;
	close(): Promise<void>;
}

export const DEFAULT_PORT = 4010;
export const DEFAULT_HOST = '127.0.0.1';

export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
	const host = options.host ?? DEFAULT_HOST;
	const pathPrefix = options.pathPrefix ?? DEFAULT_PATH_PREFIX;
	const ownDataDir = options.dataDir === undefined;
	const dataDir = options.dataDir ?? (await mkdtemp(path.join(tmpdir(), 'transcription-sandbox-')));
	await mkdir(dataDir, { recursive: true });

	const seed = options.seed ?? randomSeed();
	const recordLimits = { ...DEFAULT_RECORD_LIMITS, ...options.recordLimits };
	const clock = new SandboxClock(options.realNow, options.timers);
	const store = new Store(SEEDED_KEYS);
	const webhooks = new WebhookDispatcher({
		clock,
		timeScale: options.timeScale ?? 1,
		allowLocalWebhooks: options.allowLocalWebhooks ?? false,
		random: mulberry32(seed + 1),
	});
	const links: Links = {
		job: (jobId) => joinPrefix(pathPrefix, buildPath('getTranscription', { job_id: jobId })),
		artifact: (jobId) =>
			joinPrefix(pathPrefix, buildPath('getTranscriptionArtifact', { job_id: jobId })),
		absolute: (linkPath) => `${context.baseUrl}${linkPath}`,
	};
	const faults = new FaultInjector(seed);
	const context: SandboxContext = {
		baseUrl: '',
		hostPolicy: { listenHost: host, allowedHosts: options.allowedHosts ?? [] },
		pathPrefix,
		dataDir,
		clock,
		store,
		uploadRetention: new UploadRetention(store, clock, recordLimits.uploads),
		rateLimiter: new RateLimiter(clock, options.rateLimits),
		idempotency: new IdempotencyCache(clock, recordLimits.idempotencyKeys),
		faults,
		jobs: new JobRunner(store, clock, options.jobSeconds ?? 3, webhooks, links),
		links,
		webhooks,
		validator: new RequestValidator(),
		listOrder: options.listOrder ?? DEFAULT_LIST_ORDER,
		reseed(newSeed) {
			faults.reseed(newSeed);
			webhooks.setRandom(mulberry32(newSeed + 1));
		},
	};

	// Expired slots' bytes go as soon as a clock jump passes their expiry.
	const stopSweepingOnAdvance = clock.onAdvance(() => void context.uploadRetention.sweep());

	const app = buildApp(context, options.quiet ?? false);
	await app.listen({ host, port: options.port ?? DEFAULT_PORT });
	const address = app.server.address();
	const port =
		typeof address === 'object' && address !== null ? address.port : (options.port ?? DEFAULT_PORT);
	context.baseUrl = `http://${isIPv6(host) ? `[${host}]` : host}:${port}`;
	webhooks.setOwnEndpoint({
		port,
		// Every socket Fastify bound ("localhost" may be two); a string would be a pipe, never used here.
		addresses: app
			.addresses()
			.flatMap((bound) => (typeof bound === 'string' ? [] : [bound.address])),
	});

	let closing: Promise<void> | undefined;
	return {
		baseUrl: context.baseUrl,
		port,
		keys: SEEDED_KEYS,
		clock,
		close() {
			closing ??= (async () => {
				stopSweepingOnAdvance();
				await app.close();
				await context.jobs.close();
				await webhooks.close();
				if (ownDataDir) await rm(dataDir, { recursive: true, force: true });
			})();
			return closing;
		},
	};
}

function buildApp(context: SandboxContext, quiet: boolean): FastifyInstance {
	const app = Fastify({
		logger: false,
		requestIdHeader: false,
		genReqId: () => randomId('req'),
		// Keep-alive sockets must not hold close() open.
		forceCloseConnections: true,
	});

	// Every body reaches the handler as the raw stream: uploads go to disk as they arrive,
	// JSON is read and checked by the routes themselves (after authentication).
	app.removeAllContentTypeParsers();
	app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

	app.addHook('onRequest', async (request, reply) => {
		reply.header('x-request-id', request.id);
		// The service's clock is the sandbox clock: Date agrees with created_at/updated_at after a clock jump too.
		reply.header('date', new Date(context.clock.now()).toUTCString());
	});
	if (!quiet) {
		app.addHook('onResponse', async (request, reply) => {
			process.stderr.write(
				`${request.method} ${request.url} → ${reply.statusCode} (${reply.elapsedTime.toFixed(0)} ms) ${request.id}\n`,
			);
		});
	}

	app.setErrorHandler(async (error: FastifyError | ApiError, request, reply) => {
		const apiError = toApiError(error);
		if (apiError.code === 'internal_error' && !quiet)
			process.stderr.write(`${request.id}: ${error.stack ?? error.message}\n`);
		await discardUnreadBody(request);
		return reply
			.code(apiError.status)
			.headers(apiError.headers)
			.send(errorEnvelope(context.baseUrl, apiError, request.id));
	});
	app.setNotFoundHandler(async (request, reply) => {
		const error = ApiError.of(
			'not_found',
			`No route matches ${request.method} ${request.url.split('?')[0]}.`,
		);
		await discardUnreadBody(request);
		return reply.code(404).send(errorEnvelope(context.baseUrl, error, request.id));
	});

	registerDocumentRoutes(app, context);
	registerApiRoutes(app, context);
	registerAdminRoutes(app, context);
	return app;
}

/** The contract itself, unauthenticated and unlimited, with the sandbox's own address as base_url. */
function registerDocumentRoutes(app: FastifyInstance, context: SandboxContext): void {
	const prefixed = (documentPath: string) => joinPrefix(context.pathPrefix, documentPath);
	app.get(prefixed('/openapi.json'), async (_request, reply) =>
		reply.type('application/json; charset=utf-8').send(openApiJson({ baseUrl: context.baseUrl })),
	);
	app.get(prefixed('/openapi.yaml'), async (_request, reply) =>
		reply.type('application/yaml; charset=utf-8').send(openApiYaml({ baseUrl: context.baseUrl })),
	);
	app.get(prefixed('/workflows/transcribe.arazzo.yaml'), async (_request, reply) =>
		reply
			.type('application/yaml; charset=utf-8')
			.send(arazzoYaml({ openApiUrl: '../openapi.yaml' })),
	);
	app.get(API_REFERENCE_PATH, async (_request, reply) =>
		reply.type('text/html; charset=utf-8').send(apiReferenceHtml()),
	);
}

function toApiError(error: FastifyError | ApiError): ApiError {
	if (error instanceof ApiError) return error;
	const status = error.statusCode ?? 500;
	if (status >= 400 && status < 500) return new ApiError(status, 'invalid_request', error.message);
	return ApiError.of('internal_error', 'The sandbox failed to process the request.');
}
