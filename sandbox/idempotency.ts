// Idempotency-Key (section 8, design.md): scope = account + operation, retention 24 h on the sandbox clock.
// The first successful response is stored (handlers throw their errors); a retry with the same body replays it, a different body is 409.
// Errors are not stored, so a retry after a failure runs again. A retry that arrives while the first
// request is still running waits for it instead of creating a second slot or job.

import type { SandboxClock } from './clock';
import { ApiError } from './errors';
import { canonicalJson } from '../src/service';

export const IDEMPOTENCY_RETENTION_SECONDS = 24 * 60 * 60;

export interface StoredResponse {
	status: number;
	body: unknown;
}

interface Entry {
	fingerprint: string;
	createdAt: number;
	outcome: Promise<StoredResponse>;
}

export class IdempotencyCache {
	private readonly entries = new Map<string, Entry>();

	constructor(private readonly clock: SandboxClock) {}

	async run(
		scope: { accountId: string; operationId: string; key: string },
		body: unknown,
		execute: () => Promise<StoredResponse>,
	): Promise<{ response: StoredResponse; replayed: boolean }> {
		const id = `${scope.accountId}\u0000${scope.operationId}\u0000${scope.key}`;
		const fingerprint = canonicalJson(body);
		const existing = this.entries.get(id);
		if (existing && this.clock.now() - existing.createdAt < IDEMPOTENCY_RETENTION_SECONDS * 1000) {
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
		const entry: Entry = { fingerprint, createdAt: this.clock.now(), outcome: execute() };
		this.entries.set(id, entry);
		try {
			return { response: await entry.outcome, replayed: false };
		} catch (error) {
			this.entries.delete(id);
			throw error;
		}
	}
}
