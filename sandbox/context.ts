// Everything one running sandbox holds, handed to the route modules.

import type { HostPolicy } from './callers';
import type { SandboxClock } from './clock';
import type { FaultInjector } from './faults';
import type { IdempotencyCache } from './idempotency';
import type { JobRunner, Links } from './jobs';
import type { ListOrder } from './list-order';
import type { RateLimiter } from './rate-limit';
import type { UploadRetention } from './retention';
import type { Store } from './store';
import type { RequestValidator } from './validation';
import type { WebhookDispatcher } from './webhooks';

export interface SandboxContext {
	/** Known once the server listens; errors and webhook links need it. */
	baseUrl: string;
	/** The host names requests may be addressed to (callers.ts). */
	hostPolicy: HostPolicy;
	pathPrefix: string;
	dataDir: string;
	clock: SandboxClock;
	store: Store;
	uploadRetention: UploadRetention;
	rateLimiter: RateLimiter;
	idempotency: IdempotencyCache;
	faults: FaultInjector;
	jobs: JobRunner;
	links: Links;
	webhooks: WebhookDispatcher;
	validator: RequestValidator;
	/** The order GET /transcriptions lists jobs in (POST /_sandbox/list-order changes it). */
	listOrder: ListOrder;
	/** Reseeds every seeded random stream (faults and webhook jitter). */
	reseed(seed: number): void;
}
