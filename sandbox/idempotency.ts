// Idempotency-Key (section 8): scope = account + operation (docs/api-notes.md), retention 24 h on the sandbox clock.
// The first successful response is stored (handlers throw their errors); a retry with the same body replays it, a different body is 409.
// Errors are not stored, so a retry after a failure runs again. A retry that arrives while the first
// request is still running waits for it instead of creating a second slot or job.
// Bounded: entries past their retention are evicted, and at most `limit` are held. A new key that finds the cache
// full is refused with 503 service_unavailable before anything runs — never accepted without being recorded, and
// never by evicting a live entry, either of which would quietly void the 24-hour guarantee. 503 rather than 429:
// the cache is a coordination dependency of the whole service (spec 7's 503), not the caller's rate; the caller
// retries later with the same key, which is safe because nothing was created.

import { createHash } from 'node:crypto';
import type { SandboxClock } from './clock';
import { ApiError } from './errors';
import { canonicalJson } from '../src/service';

export const IDEMPOTENCY_RETENTION_SECONDS = 24 * 60 * 60;

export interface StoredResponse {
	status: number;
	body: unknown;
}

interface Entry {
	/** SHA-256 of the canonical body: a fixed 64 characters however large the body was. */
	fingerprint: string;
	createdAt: number;
	outcome: Promise<StoredResponse>;
	/** A request still running is never evicted: a retry must keep waiting for it. */
	settled: boolean;
}

export class IdempotencyCache {
	/** In creation order: a key used again after its retention is deleted and re-added at the end. */
	private readonly entries = new Map<string, Entry>();

	constructor(
		private readonly clock: SandboxClock,
		private readonly limit: number,
	) {}

	async run(
		scope: { accountId: string; operationId: string; key: string },
		body: unknown,
		execute: () => Promise<StoredResponse>,
	): Promise<{ response: StoredResponse; replayed: boolean }> {
		this.sweep();
		const id = `${scope.accountId}\u0000${scope.operationId}\u0000${scope.key}`;
		const fingerprint = createHash('sha256').update(canonicalJson(body)).digest('hex');
		const existing = this.entries.get(id);
		if (existing && this.isRetained(existing)) {
			if (existing.fingerprint !== fingerprint) {
				throw ApiError.of(
					'idempotency_mismatch',
					'This Idempotency-Key was already used with a different request body.',
					{ idempotency_key: scope.key },
				);
			}
			try {
				return { response: await existing.outcome, replayed: true };
			} catch {
				// The first attempt failed and was forgotten: this retry runs for real.
				return this.run(scope, body, execute);
			}
		}
		this.entries.delete(id);
		if (this.entries.size >= this.limit) throw this.full(scope.key);
		const entry: Entry = {
			fingerprint,
			createdAt: this.clock.now(),
			outcome: execute(),
			settled: false,
		};
		this.entries.set(id, entry);
		try {
			const response = await entry.outcome;
			entry.settled = true;
			return { response, replayed: false };
		} catch (error) {
			if (this.entries.get(id) === entry) this.entries.delete(id);
			throw error;
		}
	}

	/** Forgets settled entries past their retention (the oldest come first, so it stops at the first kept one). */
	private sweep(): void {
		for (const [id, entry] of this.entries) {
			if (this.isRetained(entry)) break;
			if (entry.settled) this.entries.delete(id);
		}
	}

	private isRetained(entry: Entry): boolean {
		return this.clock.now() - entry.createdAt < IDEMPOTENCY_RETENTION_SECONDS * 1000;
	}

	private full(key: string): ApiError {
		const oldest = this.entries.values().next().value as Entry;
		const retryAfter = this.clock.secondsUntil(
			oldest.createdAt + IDEMPOTENCY_RETENTION_SECONDS * 1000,
		);
		return new ApiError(
			503,
			'service_unavailable',
			`The sandbox holds ${this.limit} Idempotency-Keys, its limit for the 24 hours a key is kept; nothing was ` +
				`done. Retry with the same key in ${retryAfter} s.`,
			{ limit: this.limit, idempotency_key: key, retry_after_seconds: retryAfter },
			{ 'retry-after': String(retryAfter) },
		);
	}
}
