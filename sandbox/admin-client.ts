// Typed client of the sandbox admin API (/_sandbox/…), for tests, benchmarks and demos.

import { request } from 'undici';
import type { PublicTranscriptionResponse } from '../src/api';
import { ADMIN_PREFIX } from './admin-paths';
import type { CreateKeyRequest, SeedJobsRequest } from './admin-routes';
import type { FaultConfig } from './faults';
import type { ListOrder } from './list-order';
import type { RateLimitConfig } from './rate-limit';
import type { KeyMode, KeyScope } from './seed';
import type { JobRequest, UploadState } from './store';
import type { WebhookDeliveryRecord } from './webhooks';

export interface CreatedKey {
	key: string;
	account_id: string;
	/** null for an orphan key. */
	signing_secret: string | null;
	mode: KeyMode;
	scope: KeyScope;
}

export interface AccountUpdate {
	tier?: string;
	api_access?: boolean;
	wallet_balance?: number;
	signing_secret?: string;
}

export interface AdminAccount {
	account_id: string;
	tier: string;
	api_access: boolean;
	wallet_balance: number;
	signing_secret: string;
}

export interface ClockState {
	now: string;
	now_seconds: number;
}

export interface UploadRecordView {
	upload_id: string;
	account_id: string;
	filename: string;
	content_type: string;
	size_bytes: number;
	state: UploadState;
	bytes_received: number;
	source_deleted: boolean;
	job_id: string | null;
	idempotency_key: string | null;
	idempotent_replays: number;
	created_at: string;
	expires_at: string;
}

export interface JobRecordView extends PublicTranscriptionResponse {
	account_id: string;
	mode: KeyMode;
	upload_id: string;
	request: JobRequest;
	failure_reason: string | null;
	artifact_deleted: boolean;
	idempotency_key: string | null;
	idempotent_replays: number;
}

export interface SandboxRecords {
	counts: { uploads: number; jobs: number };
	uploads: UploadRecordView[];
	jobs: JobRecordView[];
}

export class SandboxAdminError extends Error {
	constructor(
		readonly status: number,
		readonly body: unknown,
	) {
		super(`sandbox admin answered ${status}: ${JSON.stringify(body)}`);
	}
}

export class SandboxAdmin {
	private readonly baseUrl: string;

	constructor(baseUrl: string) {
		this.baseUrl = baseUrl.replace(/\/+$/, '');
	}

	createKey(body: CreateKeyRequest = {}): Promise<CreatedKey> {
		return this.call('POST', '/keys', body);
	}

	revokeKey(key: string): Promise<{ key: string; revoked: true }> {
		return this.call('POST', `/keys/${encodeURIComponent(key)}/revoke`);
	}

	updateAccount(accountId: string, update: AccountUpdate): Promise<AdminAccount> {
		return this.call('POST', `/accounts/${encodeURIComponent(accountId)}`, update);
	}

	clock(): Promise<ClockState> {
		return this.call('GET', '/clock');
	}

	/** Moves the sandbox clock; jobs that became due have settled when this resolves. */
	advanceClock(seconds: number): Promise<ClockState> {
		return this.call('POST', '/clock', { advance_seconds: seconds });
	}

	failJob(jobId: string): Promise<PublicTranscriptionResponse> {
		return this.call('POST', `/jobs/${encodeURIComponent(jobId)}/fail`);
	}

	/** The job keeps its running state past its due time until released, completed or failed. */
	holdJob(jobId: string): Promise<PublicTranscriptionResponse> {
		return this.call('POST', `/jobs/${encodeURIComponent(jobId)}/hold`);
	}

	/** A held job goes on; if it is past its due time it reaches its terminal state now. */
	releaseJob(jobId: string): Promise<PublicTranscriptionResponse> {
		return this.call('POST', `/jobs/${encodeURIComponent(jobId)}/release`);
	}

	/** The job completes now (held or not), with updated_at = now. */
	completeJob(jobId: string): Promise<PublicTranscriptionResponse> {
		return this.call('POST', `/jobs/${encodeURIComponent(jobId)}/complete`);
	}

	/** The job ends cancelled now (no webhook). */
	cancelJob(jobId: string): Promise<PublicTranscriptionResponse> {
		return this.call('POST', `/jobs/${encodeURIComponent(jobId)}/cancel`);
	}

	/** Jobs created straight into an account (mock transcripts, no uploads), oldest first, ending now. */
	seedJobs(body: SeedJobsRequest): Promise<{ count: number; job_ids: string[] }> {
		return this.call('POST', '/jobs', body);
	}

	/** The order GET /transcriptions lists jobs in from now on. */
	setListOrder(order: ListOrder): Promise<{ order: ListOrder }> {
		return this.call('POST', '/list-order', { order });
	}

	deleteArtifact(jobId: string): Promise<{ job_id: string; artifact_deleted: true }> {
		return this.call('DELETE', `/jobs/${encodeURIComponent(jobId)}/artifact`);
	}

	/** Every delivery attempt so far; `waitIdle` first waits until nothing is in flight or due. */
	webhookDeliveries(options: { waitIdle?: boolean } = {}): Promise<WebhookDeliveryRecord[]> {
		return this.call(
			'GET',
			options.waitIdle ? '/webhook-deliveries?wait=idle' : '/webhook-deliveries',
		);
	}

	setFaults(body: FaultConfig): Promise<{ ok: true }> {
		return this.call('POST', '/faults', body);
	}

	clearFaults(): Promise<{ ok: true }> {
		return this.call('DELETE', '/faults');
	}

	records(accountId?: string): Promise<SandboxRecords> {
		return this.call(
			'GET',
			accountId === undefined ? '/records' : `/records?account_id=${encodeURIComponent(accountId)}`,
		);
	}

	/** Changes limits (merged into the current ones) and starts fresh windows; returns the effective limits. */
	setRateLimits(config: RateLimitConfig): Promise<Required<RateLimitConfig>> {
		return this.call('POST', '/rate-limits', config);
	}

	private async call<T>(
		method: 'GET' | 'POST' | 'DELETE',
		path: string,
		body?: unknown,
	): Promise<T> {
		const response = await request(`${this.baseUrl}${ADMIN_PREFIX}${path}`, {
			method,
			// Every write is JSON, also without a body: the admin API refuses anything else (a cross-site page cannot send JSON).
			headers: method === 'GET' ? {} : { 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const parsed: unknown = await response.body.json();
		if (response.statusCode >= 300) throw new SandboxAdminError(response.statusCode, parsed);
		return parsed as T;
	}
}
