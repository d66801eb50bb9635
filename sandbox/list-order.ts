// The order GET /transcriptions lists jobs in. The spec does not fix it (4.5 names only limit, an offset cursor and
// a status filter), so a client must not depend on it; the sandbox can serve any of these, and tests run a client
// against each.

import { createHash } from 'node:crypto';

import type { JobRecord } from './store';

export const LIST_ORDERS = [
	/** Newest created first (the default). */
	'newest_first',
	/** Oldest created first: new jobs join the end of the list. */
	'oldest_first',
	/** Most recent state change first (updated_at descending). */
	'updated_first',
	/** A fixed order that follows neither time: a keyed hash of the job id. New jobs land anywhere in the list. */
	'scrambled',
] as const;

export type ListOrder = (typeof LIST_ORDERS)[number];

export const DEFAULT_LIST_ORDER: ListOrder = 'newest_first';

/** `jobs` come newest created first (the store's order); ties keep that order. */
export function orderJobs(jobs: JobRecord[], order: ListOrder): JobRecord[] {
	switch (order) {
		case 'newest_first':
			return jobs;
		case 'oldest_first':
			return [...jobs].reverse();
		case 'updated_first':
			return [...jobs].sort((a, b) => b.updated_at - a.updated_at);
		case 'scrambled': {
			const keyed = jobs.map((job) => ({ job, key: scrambleKey(job.job_id) }));
			keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
			return keyed.map(({ job }) => job);
		}
	}
}

function scrambleKey(jobId: string): string {
	return createHash('sha256').update(`list-order:${jobId}`).digest('hex');
}
