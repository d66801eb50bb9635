// What calls to one account share. The rate-limit budget is the account's, so one pacer serves every execution of
// that account in this n8n process (many small executions run side by side in queue mode). Job ETags belong to one
// execution: they live exactly as long as its cancel signal.
import type { PublicTranscriptionResponse } from '../../../src/api';
import { RateLimitPacer } from '../../../src/client';

const accountPacers = new Map<string, RateLimitPacer>();

export function sharedPacer(accountKey: string): RateLimitPacer {
	let pacer = accountPacers.get(accountKey);
	if (!pacer) {
		pacer = new RateLimitPacer();
		accountPacers.set(accountKey, pacer);
	}
	return pacer;
}

/** The last 200 answer for a job, sent back as If-None-Match. */
export interface CachedJob {
	etag: string;
	job: PublicTranscriptionResponse;
}

export type JobCache = Map<string, CachedJob>;

const executionJobCaches = new WeakMap<AbortSignal, Map<string, JobCache>>();

/** The job cache of one execution and account; a context without an execution gets one of its own. */
export function jobCacheFor(signal: AbortSignal | undefined, accountKey: string): JobCache {
	if (!signal) return new Map();
	let caches = executionJobCaches.get(signal);
	if (!caches) {
		caches = new Map();
		executionJobCaches.set(signal, caches);
	}
	let cache = caches.get(accountKey);
	if (!cache) {
		cache = new Map();
		caches.set(accountKey, cache);
	}
	return cache;
}
