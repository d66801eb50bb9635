// The jobs a status's search saw dated within the first activation's zone (seconds either side of it): whether each
// one ended before or after the activation is not told by its date, so the count decides (owed-count.ts,
// resolveCompletePass), taking the newest. Kept between polls in the stored scan, newest first, at most MAX_AMBIGUOUS.
import type { DueJob } from './list';
import { MAX_AMBIGUOUS } from './state';

/** [job_id, updated_at as listed]. */
type AmbiguousEntry = [string, string];

export class ActivationZone {
	private jobs: Map<string, string>;

	constructor(stored: AmbiguousEntry[] = []) {
		this.jobs = new Map(newestFirst(stored).slice(0, MAX_AMBIGUOUS));
	}

	get size(): number {
		return this.jobs.size;
	}

	has(jobId: string): boolean {
		return this.jobs.has(jobId);
	}

	/** A job seen; past the bound the oldest goes, as the count takes the newest. */
	add(job: DueJob): void {
		this.jobs.set(job.job_id, job.updated_at);
		if (this.jobs.size <= MAX_AMBIGUOUS) return;
		let oldest: [string, number] | undefined;
		for (const [id, updatedAt] of this.jobs) {
			const ms = Date.parse(updatedAt);
			if (!oldest || ms < oldest[1]) oldest = [id, ms];
		}
		if (oldest) this.jobs.delete(oldest[0]);
	}

	/** The `count` newest, taken out (ties broken by job_id, the same way every time). */
	takeNewest(count: number): Array<Omit<DueJob, 'status'>> {
		const ordered = newestFirst([...this.jobs]);
		this.jobs = new Map(ordered.slice(count));
		return ordered
			.slice(0, Math.max(0, count))
			.map(([job_id, updated_at]) => ({ job_id, updated_at, updatedAtMs: Date.parse(updated_at) }));
	}

	/** Every job but the `count` newest, taken out. */
	takeAllBut(count: number): AmbiguousEntry[] {
		const ordered = newestFirst([...this.jobs]);
		this.jobs = new Map(ordered.slice(0, Math.max(0, count)));
		return ordered.slice(Math.max(0, count));
	}

	/** How many are dated at or after `ms`. */
	countFrom(ms: number): number {
		let count = 0;
		for (const updatedAt of this.jobs.values()) if (Date.parse(updatedAt) >= ms) count++;
		return count;
	}

	/** The earliest updated_at (ms) held, undefined when none. */
	oldest(): number | undefined {
		let oldest: number | undefined;
		for (const updatedAt of this.jobs.values()) {
			const ms = Date.parse(updatedAt);
			if (oldest === undefined || ms < oldest) oldest = ms;
		}
		return oldest;
	}

	/** Every job, taken out. */
	takeAll(): AmbiguousEntry[] {
		return this.takeAllBut(0);
	}

	stored(): AmbiguousEntry[] {
		return [...this.jobs];
	}
}

function newestFirst(entries: AmbiguousEntry[]): AmbiguousEntry[] {
	return [...entries].sort(
		([idA, atA], [idB, atB]) => Date.parse(atB) - Date.parse(atA) || (idA < idB ? 1 : -1),
	);
}
