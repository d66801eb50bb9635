// What one status owes, and what its reading proves. StatusPoll (status-poll.ts) reads the pages; this keeps the books:
//
// - The status's list only grows: a job that reached a terminal state stays there. `total` − `known` = jobs in the
//   status not yet accounted for ("owed"); the jobs found new this poll (or carried from the last) are owed too.
// - A job is new when dated (updated_at) at or after the cutoff (cutoff.ts) and not accounted for there. The cutoff
//   never goes below `since`, the start of the status's first poll: the end of the second its answer's Date names,
//   after every job that answer could list, so the count it took (`known`) holds every job dated earlier and none
//   dated later. A job dated earlier that the service lists only later (late, or in that same second) is owed by the
//   count and never new: a search that reads the whole list writes it off (resolveCompletePass).
// - What the count explains, or a search that read the whole list proves, raises the status's `clear` (state.ts) at the
//   end of the poll, never above a found job the poll could not keep (closeFound).
import { OVERLAP_MS, type Cutoff } from './cutoff';
import type { DueJob, PolledStatus } from './list';
import { newScan, type ScanState, type StatusState } from './state';

/** The resolution of the HTTP Date header: a Date names the whole second the service's clock was in. */
export const DATE_RESOLUTION_MS = 1000;
/**
 * Without a Date header the trigger reads this machine's clock instead, and assumes it is within this of the service's
 * (docs/polling-trigger.md): the first poll starts this long after its answer arrived.
 */
export const LOCAL_CLOCK_SKEW_MS = 30_000;

/** The clock a page was answered on: the service's Date, or this machine's without one. */
export interface PageClock {
	now: number;
	/** How far the service's clock may be past `now`: a Date's second, or without one the skew assumed. */
	resolution: number;
	/** A time the service's clock had certainly reached: its Date; undefined without one. */
	serviceFloor: number | undefined;
}

export class OwedCount {
	/** The list's length as last answered. */
	total: number;
	/** New jobs seen this poll (and the ones a previous poll left for this one). */
	readonly found: Map<string, DueJob>;
	/**
	 * The highest `clear` this poll has proved: every job owed and not found then was listed after a moment the
	 * service's clock had reached (`serviceFloor`), so it is dated at most OVERLAP_MS before it.
	 */
	private proved: number | undefined;
	/** The moment (serviceFloor) this poll's first page was answered at. */
	private firstPageFloor: number | undefined;

	constructor(
		readonly status: PolledStatus,
		/** undefined until the first page arrives when this status has no state yet. */
		public state: StatusState | undefined,
		private readonly cutoff: Cutoff,
		private readonly note: (text: string) => void,
	) {
		const pending = (state?.pending ?? []).map(([job_id, updated_at]): [string, DueJob] => [
			job_id,
			{ job_id, status, updated_at, updatedAtMs: Date.parse(updated_at) },
		]);
		if (state) delete state.pending;
		this.total = state?.known ?? 0;
		this.found = new Map(pending);
	}

	/**
	 * A job found by an earlier session of this poll and not kept: still owed, and the cutoff stayed at or below it
	 * (closeFound), so it is found again.
	 */
	carry(job: DueJob): void {
		if (!this.state || this.cutoff.isAccounted(this.status, job.job_id)) return;
		this.found.set(job.job_id, job);
	}

	/** Jobs the service counts that are neither accounted for nor found. */
	remaining(): number {
		return this.total - (this.state?.known ?? this.total) - this.found.size;
	}

	/** Nothing owed is left to search for (the first page has been read). */
	isExplained(): boolean {
		return !!this.state && !this.state.scan && this.total <= this.state.known;
	}

	/**
	 * The first page of this poll: its count and jobs. Returns the scan a search goes on with, or undefined when the
	 * count is explained (or this is the status's first poll).
	 */
	firstPage(jobs: DueJob[], total: number, clock: PageClock): ScanState | undefined {
		this.total = total;
		// Without a Date, the latest updated_at listed: the service's clock had reached it.
		this.firstPageFloor =
			clock.serviceFloor ??
			(jobs.length > 0 ? Math.max(...jobs.map((job) => job.updatedAtMs)) : undefined);
		if (!this.state) {
			this.startFromNow(total, jobs, clock);
			return undefined;
		}
		const state = this.state;
		if (total < state.known) {
			this.note(
				`status=${this.status}: the service counts ${total} jobs, fewer than the ${state.known} accounted for (jobs removed from the list?)`,
			);
			state.known = total;
		}
		const carried = state.scan;
		if (carried && total < carried.total) this.restartShrunkScan(carried, total);
		this.classifyAll(jobs);
		const scan = state.scan;
		if (scan) {
			scan.total = total;
			scan.front = Math.max(scan.front, jobs.length);
		}
		if (this.remaining() <= 0) {
			this.explained();
			return undefined;
		}
		const active = (state.scan ??= newScan(jobs.length, total));
		// A pass begins with a first page: every job listed then is read by the time the pass covers the list.
		if (active.passTotal < 0) {
			Object.assign(active, {
				passTotal: total,
				passDate: clock.now,
				passBand: clock.resolution,
				passFloor: this.firstPageFloor ?? 0,
				newcomers: 0,
				dropped: 0,
				droppedFrom: 0,
			});
		}
		return active;
	}

	/** A page of the search, read in `total` jobs; returns whether the search is to go on. */
	searchPage(jobs: DueJob[], total: number): boolean {
		this.total = total;
		this.classifyAll(jobs);
		if (this.remaining() > 0) return true;
		this.explained();
		return false;
	}

	/** The list shrank under a search: what its positions say no longer holds, so it starts over. */
	restartShrunkScan(scan: ScanState, total: number): void {
		this.note(
			`status=${this.status}: the list shrank from ${scan.total} to ${total} jobs; the search starts over`,
		);
		if (this.state) delete this.state.scan;
	}

	classifyAll(jobs: DueJob[]): void {
		for (const job of jobs) this.classify(job, this.total);
	}

	/**
	 * The status's first poll: every job listed is counted in `known`, and the status starts after all of them — at the
	 * end of the answer's second (its Date), after the latest job the page lists (without a Date, this machine's clock
	 * may be behind the service's).
	 */
	private startFromNow(total: number, jobs: DueJob[], clock: PageClock): void {
		const latestListed = Math.max(Number.NEGATIVE_INFINITY, ...jobs.map((job) => job.updatedAtMs));
		const since = Math.max(clock.now + clock.resolution, latestListed + 1);
		this.state = { known: total, since, clear: 0 };
		this.cutoff.begin(since);
	}

	/** `total` is the list's length in the answer the job came in. */
	private classify(job: DueJob, total: number): void {
		const state = this.state;
		if (!state) return;
		if (this.cutoff.isAccounted(this.status, job.job_id) || this.found.has(job.job_id)) return;
		if (job.updatedAtMs < this.cutoff.of(state)) return;
		this.found.set(job.job_id, job);
		// While the list is as long as when the pass began, nothing has joined it: every job found was there. A job dated
		// after the pass began (beyond its clock's resolution) joined the list during it; one dated earlier may have
		// joined too (listed late), and is counted as there: the count's unfound is then too small, never too large.
		const scan = state.scan;
		const pass = scan && scan.passTotal >= 0 && total > scan.passTotal ? scan : undefined;
		if (pass && job.updatedAtMs >= pass.passDate + pass.passBand) pass.newcomers++;
	}

	/**
	 * Every job listed when the pass began has been read. A job owed then and not found since was dropped by a poll
	 * (MAX_PENDING), or is dated before the cutoff and never new: it ended before `since` and was listed after the
	 * status's first poll (in the second of its answer, or late), or was listed long after it ended (more than
	 * OVERLAP_MS). Every job not listed when the pass began is dated at most OVERLAP_MS before it: that raises `clear`.
	 *
	 * The jobs owed then and never to be found are counted: what is owed now, less the jobs that joined the list during
	 * the pass and were not read, less the jobs a poll dropped (unless found again). They are written off, accounted
	 * for without being emitted, so a search never goes on forever. The count errs low, never high: a job that joined
	 * during the pass dated before it (listed late) and was read counts as not joined, and the next pass writes off what
	 * this one left.
	 */
	resolveCompletePass(scan: ScanState): void {
		this.prove(
			Math.min(
				scan.passFloor - OVERLAP_MS,
				scan.dropped > 0 ? scan.droppedFrom : Number.POSITIVE_INFINITY,
			),
		);
		const unreadNewcomers = scan.total - scan.passTotal - scan.newcomers;
		// More jobs dated after the beginning were read than joined the list (a job left the status meanwhile): this
		// pass counts nothing, and the next first page begins another.
		if (unreadNewcomers >= 0) this.writeOff(this.remaining() - unreadNewcomers - scan.dropped);
		this.settle();
	}

	/**
	 * The end of the poll, once it is known which found jobs it keeps (emitted or carried): `dropped` are the ones it
	 * could not keep. `clear` rises to what the poll proved (nothing when an answer was unreadable), but stays at or
	 * below every dropped job (a later search finds it again).
	 */
	closeFound(dropped: DueJob[], unreadable: boolean): void {
		const state = this.state;
		if (!state) return;
		let clear = unreadable ? undefined : this.proved;
		if (dropped.length > 0) {
			const from = dropped.reduce(
				(earliest, job) => Math.min(earliest, job.updatedAtMs),
				Number.POSITIVE_INFINITY,
			);
			const scan = state.scan;
			if (scan && scan.passTotal >= 0) {
				scan.droppedFrom = scan.dropped > 0 ? Math.min(scan.droppedFrom, from) : from;
				scan.dropped += dropped.length;
			}
			if (clear !== undefined) clear = Math.min(clear, from);
		}
		if (clear !== undefined) state.clear = Math.max(state.clear, clear);
	}

	/** Jobs the service counts that no search can find (resolveCompletePass): accounted for, with a note. */
	private writeOff(missing: number): void {
		const state = this.state;
		if (missing <= 0 || !state) return;
		state.known += missing;
		this.note(
			`status=${this.status}: ${missing} job(s) counted by the service are dated before what the trigger looks for (they ended before its activation and were listed after it, or were listed long after they ended): counted as accounted for, not emitted`,
		);
	}

	/** Every job owed is found: what was not listed at this poll's first page is dated after it less the overlap. */
	private explained(): void {
		this.settle();
		if (this.firstPageFloor !== undefined) this.prove(this.firstPageFloor - OVERLAP_MS);
	}

	private prove(clear: number): void {
		this.proved = Math.max(this.proved ?? clear, clear);
	}

	/** The search is over: a new one begins at a first page that finds the count unexplained. */
	private settle(): void {
		if (this.state) delete this.state.scan;
	}
}
