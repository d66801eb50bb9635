// The cutoff: which listed jobs are accounted for, across the polled statuses — the time below which a job is not new,
// and the jobs at or after it already emitted or counted (`recent`), which make the overlap exact. `recent` is bounded
// by holding emissions back, never by raising the cutoff above a job not accounted for.
import type { DueJob, PolledStatus } from './list';
import { RECENT_LIMIT, type AccountState, type StatusState } from './state';

/** How late after its updated_at a job may first be listed in its state and still be emitted at once. */
export const OVERLAP_MS = 10 * 60 * 1000;

export class Cutoff {
	private readonly keys: Set<string>;
	/** Jobs counted in `known` when first read (not emitted): they join `recent` when the poll closes. */
	private readonly markedOld: Array<[string, PolledStatus, number]> = [];
	/** Entries of `recent` and `markedOld` at or after their status's cutoff, counted when emissions begin. */
	private held: number | undefined;

	constructor(
		private readonly state: AccountState,
		private readonly note: (text: string) => void,
	) {
		this.keys = new Set(
			Object.entries(state.recent).flatMap(([status, entries]) =>
				(entries ?? []).map(([id]) => key(status as PolledStatus, id)),
			),
		);
	}

	isAccounted(status: PolledStatus, jobId: string): boolean {
		return this.keys.has(key(status, jobId));
	}

	/**
	 * Jobs dated before this are not new: the status's first poll, OVERLAP_MS before the watermark, or the status's
	 * `clear` (state.ts).
	 */
	of(status: StatusState): number {
		return Math.max(status.since, this.state.watermark - OVERLAP_MS, status.clear);
	}

	/** A status's first poll: the watermark starts there. */
	begin(since: number): void {
		if (this.state.latest === 0) this.state.latest = since;
		if (this.state.watermark === 0) this.state.watermark = since;
	}

	/** A job counted in `known` without being emitted, so it is not taken for new later. */
	markOld(jobId: string, status: PolledStatus, updatedAtMs: number): void {
		if (!Number.isFinite(updatedAtMs) || this.keys.has(key(status, jobId))) return;
		this.keys.add(key(status, jobId));
		this.markedOld.push([jobId, status, updatedAtMs]);
	}

	/**
	 * Whether `job` may be emitted now: a job below its status's cutoff is never looked at again, so it needs no entry;
	 * one at or after it needs room in `recent`. Asked once the poll's cutoffs are final, for the jobs in the order
	 * they are emitted.
	 */
	admits(job: DueJob, status: StatusState): boolean {
		if (job.updatedAtMs < this.of(status)) return true;
		this.held ??= this.heldEntries();
		if (this.held >= RECENT_LIMIT) return false;
		this.held++;
		return true;
	}

	/** An emitted job; `latest` follows it, but never further than `maxLatest` (the service's clock). */
	emitted(job: DueJob, maxLatest: number): void {
		if (!this.keys.has(key(job.status, job.job_id))) {
			this.keys.add(key(job.status, job.job_id));
			this.add(job.job_id, job.status, job.updatedAtMs);
		}
		this.state.latest = Math.max(this.state.latest, Math.min(job.updatedAtMs, maxLatest));
	}

	/**
	 * The end of a poll: the jobs marked old join `recent`; when nothing was owed the watermark moves up to the latest
	 * emitted job; then what the cutoff excludes is dropped.
	 */
	close(settled: boolean): void {
		for (const [id, status, updatedAtMs] of this.markedOld) this.add(id, status, updatedAtMs);
		if (settled) this.state.watermark = this.state.latest;
		const kept: Array<[string, PolledStatus, number]> = [];
		for (const [status, state] of this.statuses()) {
			const cutoff = this.of(state);
			for (const [id, updatedAtMs] of this.state.recent[status] ?? []) {
				if (updatedAtMs >= cutoff) kept.push([id, status, updatedAtMs]);
			}
		}
		kept.sort((a, b) => a[2] - b[2]);
		const recent: AccountState['recent'] = {};
		for (const [id, status, updatedAtMs] of kept) (recent[status] ??= []).push([id, updatedAtMs]);
		this.state.recent = recent;
		if (kept.length >= RECENT_LIMIT) {
			this.note(
				`${kept.length} jobs emitted at or after the cutoff are remembered (the most is ${RECENT_LIMIT}): newer jobs wait until the cutoff rises`,
			);
		}
	}

	private heldEntries(): number {
		let held = 0;
		for (const [status, state] of this.statuses()) {
			const cutoff = this.of(state);
			for (const [, updatedAtMs] of this.state.recent[status] ?? []) {
				if (updatedAtMs >= cutoff) held++;
			}
			for (const [, oldStatus, updatedAtMs] of this.markedOld) {
				if (oldStatus === status && updatedAtMs >= cutoff) held++;
			}
		}
		return held;
	}

	private statuses(): Array<[PolledStatus, StatusState]> {
		return Object.entries(this.state.statuses) as Array<[PolledStatus, StatusState]>;
	}

	private add(jobId: string, status: PolledStatus, updatedAtMs: number): void {
		(this.state.recent[status] ??= []).push([jobId, updatedAtMs]);
	}
}

function key(status: PolledStatus, jobId: string): string {
	return `${status}\u0000${jobId}`;
}
