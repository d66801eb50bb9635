// Webhook delivery of the sandbox (spec section 6): signed POSTs with retries on the sandbox clock, the
// webhook test operation, and the duplicate/reorder faults. The core calls only this seam.

import {
	buildPath,
	DEFAULT_PATH_PREFIX,
	joinPrefix,
	resolveLink,
	type PublicTranscriptionWebhookEvent,
	type PublicWebhookTestDelivery,
	type PublicWebhookTestResponse,
} from '../../src/api';
import type { SandboxClock } from '../clock';
import { randomId } from '../random';
import {
	checkTarget,
	resolveWithSystemDns,
	type HostResolver,
	type OwnEndpoint,
	type TargetCheck,
	type TargetErrorCode,
} from './targets';
import { postOnce, type AttemptOutcome } from './transport';
import { buildSignedDelivery } from '../../src/service';

export { isForbiddenAddress, isLoopbackAddress } from './addresses';
export {
	REQUIRED_PORT,
	type HostResolver,
	type OwnEndpoint,
	type ResolvedAddress,
	type TargetErrorCode,
} from './targets';

/**
 * What became of an attempt: `retry_scheduled` (network failure, 408, 425, 429 or 5xx with attempts left, spec 6
 * rule 4), `attempts_exhausted` (the same after the fifth), `not_retried` (any other answer — a 4xx such as n8n's 409
 * for an execution still running, or a 3xx — and every failed test delivery or duplicate-fault resend).
 */
export type DeliveryOutcome =
	'delivered' | 'retry_scheduled' | 'attempts_exhausted' | 'not_retried';

export interface WebhookDeliveryRecord {
	kind: 'event' | 'test';
	event_id: string;
	event: string;
	url: string;
	attempt: number;
	headers: Record<string, string>;
	body: string;
	status_code: number | null;
	error: string | null;
	outcome: DeliveryOutcome;
	/** Sandbox-clock ISO time the next attempt is due, when one is scheduled. */
	next_attempt_at: string | null;
	/** Sandbox-clock ISO time the attempt started (its X-Service-Timestamp, to the millisecond). */
	at: string;
}

export interface WebhookFaults {
	/** After an event's first successful delivery, deliver it once more (same event_id, fresh timestamp). */
	duplicateProbability?: number;
	/** Hold an event until the next event for the same URL has been sent, or REORDER_HOLD_SECONDS pass. */
	reorderProbability?: number;
}

export interface WebhookDispatcherOptions {
	clock: SandboxClock;
	/** Multiplies every retry interval; 1 = the real three-hour schedule. */
	timeScale: number;
	allowLocalWebhooks: boolean;
	random: () => number;
	/** Real-time limit per attempt, from connect to the status line. */
	requestTimeoutMs?: number;
	/** Replaces system DNS, for tests; RFC 6761 names and IP literals never reach it. */
	resolveHost?: HostResolver;
	/** How many attempts the delivery log keeps; the oldest go first (default MAX_DELIVERY_RECORDS). */
	maxDeliveryRecords?: number;
}

export interface TestDeliveryRequest {
	url: string;
	secret: string;
	/** Placed in the body's `event`; the X-Service-Event header says `webhook.test`. */
	eventType: string;
	/** The service's base URL, e.g. http://127.0.0.1:4010. */
	baseUrl: string;
	pathPrefix?: string;
}

export type TargetValidation = { ok: true } | { ok: false; code: TargetErrorCode; message: string };

export const MAX_ATTEMPTS = 5;
/** Waits before attempts 2–5 (1 min, 9 min, 50 min, 2 h): three hours in all, before jitter and timeScale. */
export const RETRY_DELAYS_SECONDS: readonly number[] = [60, 540, 3000, 7200];
/** Each wait is stretched or shrunk by up to this fraction, so retries of many events spread out. */
export const RETRY_JITTER = 0.2;
/** How long the reorder fault holds an event that no later event overtakes (sandbox seconds, not scaled). */
export const REORDER_HOLD_SECONDS = 5;
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
/** The delivery log keeps the newest attempts only: nothing the sandbox holds grows without bound. */
export const MAX_DELIVERY_RECORDS = 10_000;

interface QueuedAttempt {
	url: string;
	secret: string;
	event: PublicTranscriptionWebhookEvent;
	attempt: number;
	/** Sandbox-clock milliseconds. */
	dueAt: number;
	/** Ties between equal due times go first-in, first-out. */
	sequence: number;
	/** A duplicate-fault resend: a single attempt, never duplicated again. */
	duplicate: boolean;
	/** Held by the reorder fault until another event for the same URL has been sent. */
	held: boolean;
}

export class WebhookDispatcher {
	private readonly clock: SandboxClock;
	private readonly timeScale: number;
	private readonly allowLocalWebhooks: boolean;
	private readonly requestTimeoutMs: number;
	private readonly resolveHost: HostResolver;
	private readonly maxDeliveryRecords: number;
	private random: () => number;
	private faults: WebhookFaults | null = null;
	private ownEndpoint: OwnEndpoint | null = null;

	private queue: QueuedAttempt[] = [];
	private nextSequence = 0;
	private readonly inFlight = new Set<Promise<unknown>>();
	private readonly records: WebhookDeliveryRecord[] = [];
	/** Cancels the wait for the next due attempt. */
	private cancelTimer: (() => void) | null = null;
	private readonly stopListeningToClock: () => void;
	private readonly shutdown = new AbortController();

	constructor(options: WebhookDispatcherOptions) {
		this.clock = options.clock;
		this.timeScale = options.timeScale;
		this.allowLocalWebhooks = options.allowLocalWebhooks;
		this.random = options.random;
		this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
		this.resolveHost = options.resolveHost ?? resolveWithSystemDns;
		this.maxDeliveryRecords = options.maxDeliveryRecords ?? MAX_DELIVERY_RECORDS;
		this.stopListeningToClock = this.clock.onAdvance(() => this.runDue());
	}

	/** Spec 6, rules 5–6: the check behind 400 invalid_webhook_url / webhook_url_forbidden_target. */
	async validateTarget(url: string): Promise<TargetValidation> {
		const check = await this.checkTarget(url);
		return check.ok ? { ok: true } : check;
	}

	/** Queues the first attempt of a terminal-state event; retries follow on their own. */
	enqueue(args: { url: string; secret: string; event: PublicTranscriptionWebhookEvent }): void {
		if (this.shutdown.signal.aborted) return;
		const held = this.chance(this.faults?.reorderProbability);
		const now = this.clock.now();
		this.schedule({
			...args,
			attempt: 1,
			dueAt: held ? now + REORDER_HOLD_SECONDS * 1000 : now,
			duplicate: false,
			held,
		});
		this.runDue();
	}

	/**
	 * POST /webhooks/test: one attempt, no retries, reported back. The synthetic links are
	 * `baseUrl` + `pathPrefix` (default /api/v1) + the job paths.
	 */
	sendTest(args: TestDeliveryRequest): Promise<PublicWebhookTestResponse> {
		return this.track(this.deliverTest(args));
	}

	/** The sandbox's own listener, known once it listens: never a webhook target, so a webhook cannot reach the admin API. */
	setOwnEndpoint(endpoint: OwnEndpoint): void {
		this.ownEndpoint = endpoint;
	}

	setFaults(faults: WebhookFaults | null): void {
		this.faults = faults;
	}

	setRandom(random: () => number): void {
		this.random = random;
	}

	deliveries(): WebhookDeliveryRecord[] {
		return this.records.map((record) => ({ ...record, headers: { ...record.headers } }));
	}

	/** Resolves when nothing is in flight and nothing is due now (held and future retries may remain). */
	async whenIdle(): Promise<void> {
		for (;;) {
			this.runDue();
			if (this.inFlight.size === 0) return;
			await Promise.allSettled([...this.inFlight]);
		}
	}

	/** Drops pending attempts, aborts open requests and waits for them to settle. */
	async close(): Promise<void> {
		this.shutdown.abort();
		this.stopListeningToClock();
		this.cancelTimer?.();
		this.cancelTimer = null;
		this.queue = [];
		await Promise.allSettled([...this.inFlight]);
	}

	private checkTarget(url: string): Promise<TargetCheck> {
		return checkTarget(url, {
			allowLocalWebhooks: this.allowLocalWebhooks,
			resolveHost: this.resolveHost,
			ownEndpoint: this.ownEndpoint,
		});
	}

	private chance(probability: number | undefined): boolean {
		return probability !== undefined && probability > 0 && this.random() < probability;
	}

	private schedule(attempt: Omit<QueuedAttempt, 'sequence'>): void {
		this.queue.push({ ...attempt, sequence: this.nextSequence++ });
	}

	private track<T>(work: Promise<T>): Promise<T> {
		this.inFlight.add(work);
		const forget = () => this.inFlight.delete(work);
		work.then(forget, forget);
		return work;
	}

	/** Starts every attempt that is due on the sandbox clock, then sleeps until the next one. */
	private runDue(): void {
		if (this.shutdown.signal.aborted) return;
		const now = this.clock.now();
		const due = this.queue
			.filter((queued) => queued.dueAt <= now)
			.sort((left, right) => left.dueAt - right.dueAt || left.sequence - right.sequence);
		this.queue = this.queue.filter((queued) => queued.dueAt > now);
		for (const queued of due) void this.track(this.deliverEvent(queued));
		this.armTimer();
	}

	/** The sandbox clock runs at real speed between advances, so its timer finds the next due time. */
	private armTimer(): void {
		this.cancelTimer?.();
		this.cancelTimer = null;
		if (this.queue.length === 0) return;
		const nextDueAt = Math.min(...this.queue.map((queued) => queued.dueAt));
		this.cancelTimer = this.clock.at(nextDueAt, () => this.runDue());
	}

	private async deliverEvent(queued: QueuedAttempt): Promise<void> {
		const { url, secret, event } = queued;
		const at = this.clock.toIso();
		const signed = buildSignedDelivery({ secret, timestamp: this.clock.nowSeconds(), event });
		const headers = withContentHeaders(signed.headers, signed.body);
		const outcome = await this.send(url, headers, signed.body);
		const record: WebhookDeliveryRecord = {
			kind: 'event',
			event_id: event.event_id,
			event: event.event,
			url,
			attempt: queued.attempt,
			headers,
			body: signed.body,
			status_code: outcome.status_code,
			error: outcome.error,
			outcome: outcome.delivered ? 'delivered' : 'not_retried',
			next_attempt_at: null,
			at,
		};
		this.log(record);
		if (this.shutdown.signal.aborted) return;

		const now = this.clock.now();
		this.releaseHeldEvents(url, event.event_id, now);
		// A fault-injected resend follows an arrival already made, so it neither multiplies nor retries.
		if (outcome.delivered) {
			if (!queued.duplicate && this.chance(this.faults?.duplicateProbability)) {
				this.schedule({ ...queued, attempt: 1, dueAt: now, duplicate: true, held: false });
			}
		} else if (outcome.retryable && !queued.duplicate) {
			if (queued.attempt < MAX_ATTEMPTS) {
				const dueAt = now + this.retryDelayMs(queued.attempt);
				this.schedule({ ...queued, attempt: queued.attempt + 1, dueAt, held: false });
				record.outcome = 'retry_scheduled';
				record.next_attempt_at = this.clock.toIso(dueAt);
			} else {
				record.outcome = 'attempts_exhausted';
			}
		}
		this.runDue();
	}

	private log(record: WebhookDeliveryRecord): void {
		this.records.push(record);
		if (this.records.length > this.maxDeliveryRecords) this.records.shift();
	}

	/** The wait after attempt `attempt` fails, on the sandbox clock. */
	private retryDelayMs(attempt: number): number {
		const jitter = 1 + (this.random() * 2 - 1) * RETRY_JITTER;
		return RETRY_DELAYS_SECONDS[attempt - 1] * 1000 * jitter * this.timeScale;
	}

	/** Another event has just been sent to `url`: the events the reorder fault held back for it may go now. */
	private releaseHeldEvents(url: string, sentEventId: string, now: number): void {
		for (const queued of this.queue) {
			if (queued.held && queued.url === url && queued.event.event_id !== sentEventId) {
				queued.held = false;
				queued.dueAt = Math.min(queued.dueAt, now);
			}
		}
	}

	private async deliverTest(args: TestDeliveryRequest): Promise<PublicWebhookTestResponse> {
		const jobId = randomId('job_test');
		const prefix = args.pathPrefix ?? DEFAULT_PATH_PREFIX;
		const absoluteLink = (operationId: 'getTranscription' | 'getTranscriptionArtifact') =>
			resolveLink(args.baseUrl, joinPrefix(prefix, buildPath(operationId, { job_id: jobId })));
		const event: PublicWebhookTestDelivery = {
			event: args.eventType,
			event_id: randomId('evt_test'),
			job_id: jobId,
			status: 'completed',
			test_mode: true,
			links: {
				self: absoluteLink('getTranscription'),
				artifact: absoluteLink('getTranscriptionArtifact'),
			},
		};
		const at = this.clock.toIso();
		const signed = buildSignedDelivery({
			secret: args.secret,
			timestamp: this.clock.nowSeconds(),
			event,
		});
		const headers = withContentHeaders(signed.headers, signed.body);
		const outcome = await this.send(args.url, headers, signed.body);
		this.log({
			kind: 'test',
			event_id: event.event_id,
			event: args.eventType,
			url: args.url,
			attempt: 1,
			headers,
			body: signed.body,
			status_code: outcome.status_code,
			error: outcome.error,
			outcome: outcome.delivered ? 'delivered' : 'not_retried',
			next_attempt_at: null,
			at,
		});
		return {
			ok: true,
			event_id: event.event_id,
			delivered: outcome.delivered,
			status_code: outcome.status_code,
			error: outcome.error,
		};
	}

	/** Re-checks the target (DNS may have changed since it was accepted), then POSTs to the address checked. */
	private async send(
		url: string,
		headers: Record<string, string>,
		body: string,
	): Promise<AttemptOutcome> {
		const target = await this.checkTarget(url);
		if (!target.ok) {
			// An accepted URL turns invalid only by no longer resolving, which may pass; a forbidden answer ends delivery.
			return {
				delivered: false,
				retryable: target.code === 'invalid_webhook_url',
				status_code: null,
				error: `not sent: ${target.message}`,
			};
		}
		return postOnce({
			url: target.url,
			address: target.address,
			headers,
			body,
			timeoutMs: this.requestTimeoutMs,
			clock: this.clock,
			signal: this.shutdown.signal,
		});
	}
}

function withContentHeaders(
	signedHeaders: Record<string, string>,
	body: string,
): Record<string, string> {
	return {
		'Content-Type': 'application/json',
		'Content-Length': String(Buffer.byteLength(body)),
		...signedHeaders,
	};
}
