// Section 8: fixed windows per account and bucket on the sandbox clock. Limits per bucket follow
// docs/api-notes.md (writes = tier, reads = 2 × tier, artifacts = tier, webhook tests = 10) and are configurable.

import type { RateLimitBucket } from '../src/api';
import type { SandboxClock } from './clock';
import { ApiError } from './errors';

export interface RateLimitConfig {
	windowSeconds?: number;
	perTier?: Record<string, number>;
	readsMultiplier?: number;
	artifactsMultiplier?: number;
	webhookTestsPerWindow?: number;
}

export const DEFAULT_RATE_LIMITS: Required<RateLimitConfig> = {
	windowSeconds: 60,
	perTier: { premium: 30, platinum: 60 },
	readsMultiplier: 2,
	artifactsMultiplier: 1,
	webhookTestsPerWindow: 10,
};

export interface RateLimitState {
	limit: number;
	remaining: number;
	resetSeconds: number;
}

/** Tiers without a configured number (only reachable if an admin adds API tiers) get the smallest one. */
function tierLimit(config: Required<RateLimitConfig>, tier: string): number {
	return config.perTier[tier] ?? Math.min(...Object.values(config.perTier));
}

export class RateLimiter {
	private config: Required<RateLimitConfig>;
	private readonly windows = new Map<string, { windowStart: number; used: number }>();

	constructor(
		private readonly clock: SandboxClock,
		config: RateLimitConfig = {},
	) {
		this.config = mergeConfig(DEFAULT_RATE_LIMITS, config);
	}

	configure(config: RateLimitConfig): Required<RateLimitConfig> {
		this.config = mergeConfig(this.config, config);
		this.windows.clear();
		return this.config;
	}

	limitFor(bucket: RateLimitBucket, tier: string): number {
		const perTier = tierLimit(this.config, tier);
		switch (bucket) {
			case 'writes':
				return perTier;
			case 'reads':
				return Math.max(1, Math.round(perTier * this.config.readsMultiplier));
			case 'artifacts':
				return Math.max(1, Math.round(perTier * this.config.artifactsMultiplier));
			case 'webhook_tests':
				return this.config.webhookTestsPerWindow;
		}
	}

	/** Counts one request; throws 429 rate_limit_exceeded (with every header) once the window is used up. */
	consume(accountId: string, bucket: RateLimitBucket, tier: string): RateLimitState {
		const entry = this.currentWindow(accountId, bucket);
		const limit = this.limitFor(bucket, tier);
		if (entry.used >= limit) {
			throw rateLimitError(this.stateOf(entry, limit), this.clock.nowSeconds());
		}
		entry.used += 1;
		return this.stateOf(entry, limit);
	}

	private currentWindow(
		accountId: string,
		bucket: RateLimitBucket,
	): { windowStart: number; used: number } {
		const window = this.config.windowSeconds;
		const windowStart = Math.floor(this.clock.nowSeconds() / window) * window;
		const id = `${accountId}\u0000${bucket}`;
		let entry = this.windows.get(id);
		if (!entry || entry.windowStart !== windowStart) {
			entry = { windowStart, used: 0 };
			this.windows.set(id, entry);
		}
		return entry;
	}

	private stateOf(entry: { windowStart: number; used: number }, limit: number): RateLimitState {
		return {
			limit,
			remaining: Math.max(0, limit - entry.used),
			resetSeconds: entry.windowStart + this.config.windowSeconds,
		};
	}
}

export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
	return {
		'x-ratelimit-limit': String(state.limit),
		'x-ratelimit-remaining': String(state.remaining),
		'x-ratelimit-reset': String(state.resetSeconds),
	};
}

export function rateLimitError(state: RateLimitState, nowSeconds: number): ApiError {
	const retryAfter = Math.max(1, state.resetSeconds - nowSeconds);
	return new ApiError(
		429,
		'rate_limit_exceeded',
		`Rate limit of ${state.limit} requests per window exceeded; retry after ${retryAfter} s.`,
		{ limit: state.limit, reset: state.resetSeconds, retry_after_seconds: retryAfter },
		{ ...rateLimitHeaders({ ...state, remaining: 0 }), 'retry-after': String(retryAfter) },
	);
}

function mergeConfig(
	base: Required<RateLimitConfig>,
	update: RateLimitConfig,
): Required<RateLimitConfig> {
	return {
		windowSeconds: update.windowSeconds ?? base.windowSeconds,
		perTier: { ...base.perTier, ...update.perTier },
		readsMultiplier: update.readsMultiplier ?? base.readsMultiplier,
		artifactsMultiplier: update.artifactsMultiplier ?? base.artifactsMultiplier,
		webhookTestsPerWindow: update.webhookTestsPerWindow ?? base.webhookTestsPerWindow,
	};
}
