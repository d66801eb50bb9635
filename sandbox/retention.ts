// How long the sandbox keeps upload slots, and how many, on the sandbox clock: nothing the sandbox holds grows without bound.
// - A slot that expires (30 min) without being used can never be used again: its stored bytes are deleted then.
// - A slot's record is kept 24 h after creation, as long as an Idempotency-Key replay can hand out its upload_id, so
//   that id answers 410 (expired) or 409 (used) rather than 404; then it is forgotten. A slot whose job is still
//   running keeps its record and bytes until the job ends.
// - At most `limit` slot records at a time. A full store answers 503 service_unavailable with Retry-After: a
//   temporary condition of the service, not the caller's rate (429), and one the node retries with backoff. Nothing
//   still within its retention is ever dropped to make room.

import type { SandboxClock } from './clock';
import { ApiError } from './errors';
import { IDEMPOTENCY_RETENTION_SECONDS } from './idempotency';
import type { Store, UploadRecord } from './store';
import { removeFile } from './uploads';

export const UPLOAD_RECORD_RETENTION_SECONDS = IDEMPOTENCY_RETENTION_SECONDS;

export interface RecordLimits {
	/** Upload-slot records held at once (default 10,000). */
	uploads: number;
	/** Idempotency-Key entries held at once (default 10,000). */
	idempotencyKeys: number;
}

export const DEFAULT_RECORD_LIMITS: RecordLimits = { uploads: 10_000, idempotencyKeys: 10_000 };

export class UploadRetention {
	/** Slots not yet past their expiry, in creation order (so also in expiry order). */
	private awaitingExpiry: UploadRecord[] = [];
	/** File deletions under way, which every sweep waits for (another sweep may have started them). */
	private readonly removals = new Set<Promise<void>>();

	constructor(
		private readonly store: Store,
		private readonly clock: SandboxClock,
		private readonly limit: number,
	) {}

	/** Sweeps, then refuses a new slot when the store is still full. */
	async admit(): Promise<void> {
		await this.sweep();
		if (this.store.uploads.size < this.limit) return;
		const oldest = this.store.uploads.values().next().value as UploadRecord;
		const retryAfter = this.clock.secondsUntil(
			oldest.created_at + UPLOAD_RECORD_RETENTION_SECONDS * 1000,
		);
		throw new ApiError(
			503,
			'service_unavailable',
			`The sandbox holds ${this.limit} upload slots, its limit for the 24 hours a slot is kept; ` +
				`the oldest is forgotten in ${retryAfter} s.`,
			{ limit: this.limit, retry_after_seconds: retryAfter },
			{ 'retry-after': String(retryAfter) },
		);
	}

	add(upload: UploadRecord): void {
		this.store.uploads.set(upload.upload_id, upload);
		this.awaitingExpiry.push(upload);
	}

	/** Deletes the bytes of slots that expired unused and forgets records past their retention. */
	async sweep(): Promise<void> {
		const now = this.clock.now();
		const forgetBytes = (upload: UploadRecord) => {
			upload.source_deleted = true;
			const removal = removeFile(upload.file_path).finally(() => this.removals.delete(removal));
			this.removals.add(removal);
		};

		let expired = 0;
		const stillReceiving: UploadRecord[] = [];
		while (expired < this.awaitingExpiry.length && this.awaitingExpiry[expired].expires_at <= now) {
			const upload = this.awaitingExpiry[expired++];
			// A PUT that began before expiry may finish; its bytes go at a later sweep.
			if (upload.state === 'receiving') stillReceiving.push(upload);
			else if (upload.state === 'stored' && !upload.source_deleted) forgetBytes(upload);
		}
		this.awaitingExpiry.splice(0, expired, ...stillReceiving);

		const retentionMs = UPLOAD_RECORD_RETENTION_SECONDS * 1000;
		for (const upload of this.store.uploads.values()) {
			if (upload.created_at + retentionMs > now) break;
			const jobStillReadsBytes = upload.state === 'consumed' && !upload.source_deleted;
			if (jobStillReadsBytes || upload.state === 'receiving') continue;
			if (upload.state === 'stored' && !upload.source_deleted) forgetBytes(upload);
			this.store.uploads.delete(upload.upload_id);
		}
		await Promise.all([...this.removals]);
	}
}
