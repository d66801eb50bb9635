// In-memory state of one sandbox: accounts, keys, upload slots and jobs. Media bytes live on disk
// (see uploads.ts); everything else is here and vanishes with the process.

import { API_KEY_PREFIXES } from '../src/api';
import type { ModelTier, OutputFormat } from '../src/api';
import type { ArtifactFormat } from '../src/artifacts';
import type { Transcript } from './render';
import { DEFAULT_WALLET_BALANCE, INITIAL_WALLET_BALANCE } from './seed';
import type { KeyMode, KeyScope, SeededKeys } from './seed';

/** Spec 5.5: only these plans carry API access. */
export const API_TIERS: ReadonlySet<string> = new Set(['premium', 'platinum']);

export interface Account {
	account_id: string;
	tier: string;
	api_access: boolean;
	wallet_balance: number;
	signing_secret: string;
}

export interface ApiKeyRecord {
	key: string;
	account_id: string;
	mode: KeyMode;
	scope: KeyScope;
	revoked: boolean;
}

export type UploadState = 'awaiting_bytes' | 'receiving' | 'stored' | 'consumed';

export interface UploadRecord {
	upload_id: string;
	account_id: string;
	filename: string;
	content_type: string;
	size_bytes: number;
	state: UploadState;
	bytes_received: number;
	created_at: number;
	expires_at: number;
	file_path: string;
	source_deleted: boolean;
	idempotency_key: string | null;
	idempotent_replays: number;
	job_id: string | null;
}

export interface JobRequest {
	translate_to_hebrew: boolean;
	model_tier: ModelTier;
	user_prompt: string | null;
	output_format: OutputFormat;
	webhook_url: string | null;
}

export type TranscribeOutcome =
	{ ok: true; transcript: Transcript } | { ok: false; reason: string };

export interface JobRecord {
	job_id: string;
	account_id: string;
	mode: KeyMode;
	upload_id: string;
	filename: string;
	request: JobRequest;
	status: string;
	created_at: number;
	updated_at: number;
	processing_at: number;
	complete_at: number;
	outcome: Promise<TranscribeOutcome>;
	transcript: Transcript | null;
	failure_reason: string | null;
	credits_used: number | null;
	artifact_deleted: boolean;
	artifacts: Map<ArtifactFormat, Promise<Buffer>>;
	idempotency_key: string | null;
	idempotent_replays: number;
	/** Admin: a held job does not reach its terminal state on its timer (POST /_sandbox/jobs/{id}/hold). */
	held: boolean;
}

export class Store {
	readonly accounts = new Map<string, Account>();
	/** Keyed by the part after the mode prefix, so a key sent with the other prefix is still recognised. */
	readonly keysBySecret = new Map<string, ApiKeyRecord>();
	readonly uploads = new Map<string, UploadRecord>();
	readonly jobs = new Map<string, JobRecord>();

	constructor(seed: SeededKeys) {
		for (const seeded of Object.values(seed)) {
			if (!this.accounts.has(seeded.account_id)) {
				this.addAccount({
					account_id: seeded.account_id,
					tier: seeded.tier,
					api_access: seeded.api_access,
					wallet_balance: initialWallet(seeded.tier),
					signing_secret: seeded.signing_secret,
				});
			}
			this.addKey({
				key: seeded.key,
				account_id: seeded.account_id,
				mode: seeded.mode,
				scope: seeded.scope,
				revoked: seeded.revoked,
			});
		}
	}

	addAccount(account: Account): void {
		this.accounts.set(account.account_id, account);
	}

	addKey(record: ApiKeyRecord): void {
		this.keysBySecret.set(record.key.slice(API_KEY_PREFIXES[record.mode].length), record);
	}

	findKeyBySecret(secret: string): ApiKeyRecord | undefined {
		return this.keysBySecret.get(secret);
	}

	findKey(key: string): ApiKeyRecord | undefined {
		for (const record of this.keysBySecret.values()) if (record.key === key) return record;
		return undefined;
	}

	/** Newest first — the list order of GET /transcriptions. */
	jobsOf(accountId: string): JobRecord[] {
		return [...this.jobs.values()].filter((job) => job.account_id === accountId).reverse();
	}
}

export function initialWallet(tier: string): number {
	return INITIAL_WALLET_BALANCE[tier] ?? DEFAULT_WALLET_BALANCE;
}
