// What one status owes, and what its reading proves. StatusPoll (status-poll.ts) reads the pages; this keeps the books:
//
// - The status's list only grows: a job that reached a terminal state stays there. `total` − `known` = jobs in the
//   status not yet accounted for ("owed"); the jobs found new this poll (or carried from the last) are owed too.
// - A job is new when dated (updated_at) at or after the cutoff (cutoff.ts) and not accounted for there.
// - At the first activation, jobs dated within ±ZONE of the service's clock may be from before or after it; the count
//   decides (the ambiguous jobs; resolveCompletePass).
// - What the count explains, or a search that read the whole list proves, raises the status's `clear` (state.ts) at the
//   end of the poll, never above a found job the poll could not keep (closeFound).
import { ActivationZone } from './activation-zone';
import { OVERLAP_MS, type Cutoff } from './cutoff';
import type { DueJob, PolledStatus } from './list';
import { newScan, type ScanState, type StatusState } from './state';

/** Half-width of the first activation's ambiguous zone around the service's Date (whole seconds). */
export const ZONE_MS = 2000;
/** The same without a Date header, around this machine's clock. */
export const LOCAL_ZONE_MS = 30_000;
/**
 * Passes over the whole list a search makes when its count cannot tell how many of the jobs dated within the first
 * activation's zone ended after it (a job found dated within the clock's resolution of a pass's beginning may or may
 * not have been listed then); after them, the activation's Date decides those the count left open.
 */
export const MAX_SEARCH_PASSES = 5;

/** The clock a page was answered on: the service's Date, or this machine's without one. */
export interface PageClock {
	now: number;
	/** How far `now` may be from the true time (the Date header has whole seconds). */
	resolution: number;
	/** Half-width of the first activation's ambiguous zone. */
	zone: number;
	/** A time the service's clock had certainly reached: its Date; undefined without one. */
	serviceFloor: number | undefined;
}

export class OwedCount {
	/** The list's length as last answered. */
	total: number;
	/** New jobs seen this poll (and the ones a previous poll left for this one). */
	readonly found: Map<string, DueJob>;
	/** Ambiguous jobs seen (this poll and carried). */
	private readonly ambiguous: ActivationZone;
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
		this.ambiguous = new ActivationZone(state?.scan?.ambiguous);
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
				uncertain: 0,
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

	/** What the poll stores for this status (undefined before its first page). */
	stored(): StatusState | undefined {
		if (this.state?.scan) this.state.scan.ambiguous = this.ambiguous.stored();
		return this.state;
	}

	/**
	 * The status's first poll: every job listed is counted in `known`; the ones on this page dated at or after `since`
	 * are remembered as accounted, so they are not taken for new later.
	 */
	private startFromNow(total: number, jobs: DueJob[], clock: PageClock): void {
		const state: StatusState = {
			known: total,
			since: clock.now - clock.zone,
			zoneEnd: clock.now + clock.zone,
			clear: 0,
		};
		this.state = state;
		this.cutoff.begin(state.since);
		for (const job of jobs) {
			if (job.updatedAtMs >= state.since) {
				this.cutoff.markOld(job.job_id, this.status, job.updatedAtMs);
				state.zoneListed = Math.max(state.zoneListed ?? job.updatedAtMs, job.updatedAtMs);
			}
		}
	}

	/** `total` is the list's length in the answer the job came in. */
	private classify(job: DueJob, total: number): void {
		const state = this.state;
		if (!state) return;
		if (this.cutoff.isAccounted(this.status, job.job_id) || this.found.has(job.job_id)) return;
		if (job.updatedAtMs < this.cutoff.of(state)) return;
		// While the list is as long as when the pass began, nothing has joined it: every job found was there.
		const scan = state.scan;
		const pass = scan && scan.passTotal >= 0 && total > scan.passTotal ? scan : undefined;
		if (job.updatedAtMs < state.zoneEnd) {
			if (!this.ambiguous.has(job.job_id)) {
				this.ambiguous.add(job);
				// A zone job not seen by the earlier passes (listed late): what they learned no longer holds.
				if (scan) delete scan.unfound;
				// An ambiguous job that joined during the pass would upset its count (only seconds after activation).
				if (pass && job.updatedAtMs >= pass.passDate) pass.uncertain++;
			}
			return;
		}
		this.found.set(job.job_id, job);
		if (pass && job.updatedAtMs >= pass.passDate + pass.passBand) pass.newcomers++;
		else if (pass && job.updatedAtMs >= pass.passDate) pass.uncertain++;
	}

	/**
	 * Every job listed when the pass began has been read. A job owed then and not found since was dropped by a poll
	 * (MAX_PENDING), or is dated at most OVERLAP_MS before the beginning: that raises `clear`.
	 *
	 * The jobs owed then and still not found are known in number: what is owed now, less the jobs that joined the list
	 * during the pass and were not read, and less the jobs a poll dropped (unless found again). They can only be
	 * ambiguous jobs (dated within the first activation's zone), and the count says how many of those are new: the
	 * newest (a job listed at the first activation is never dated after one that was still running then). Jobs the
	 * rules cannot find at all (listed long after their updated_at) are counted as accounted for, with a note, so a
	 * search never goes on forever. The count is a range: a job found dated within the clock's resolution of the
	 * pass's beginning may or may not have joined during the pass, and a dropped job may have been found again. The
	 * newest of its least are new, those beyond its most are older; the next passes narrow what is between, and after
	 * MAX_SEARCH_PASSES the activation's Date decides it (decideByDate).
	 */
	resolveCompletePass(scan: ScanState): void {
		const state = this.state;
		if (!state) return;
		this.prove(
			Math.min(
				scan.passFloor - OVERLAP_MS,
				scan.dropped > 0 ? scan.droppedFrom : Number.POSITIVE_INFINITY,
			),
		);
		const unreadNewcomers = scan.total - scan.passTotal - scan.newcomers;
		if (unreadNewcomers < 0) {
			// More jobs dated after the beginning were read than joined the list: a job left the status meanwhile.
			this.uncertainPass(scan, state);
			return;
		}
		// A dropped job is owed and not found, unless a later page of the pass found it again.
		const unfound = this.remaining() - unreadNewcomers;
		let least = Math.max(0, unfound - scan.dropped);
		let most = Math.max(least, unfound + scan.uncertain);
		if (scan.unfound) {
			const [carriedLeast, carriedMost] = scan.unfound;
			if (Math.max(least, carriedLeast) <= Math.min(most, carriedMost)) {
				least = Math.max(least, carriedLeast);
				most = Math.min(most, carriedMost);
			}
		}
		const taken = this.takeAsNew(least);
		least -= taken;
		most -= taken;
		for (const [id, updatedAt] of this.ambiguous.takeAllBut(most)) {
			this.cutoff.markOld(id, this.status, Date.parse(updatedAt));
		}
		if (this.ambiguous.size > 0) {
			scan.unfound = [least, most];
			this.uncertainPass(scan, state);
			return;
		}
		this.writeOff(least);
		this.settle();
	}

	/**
	 * The end of the poll, once it is known which found jobs it keeps (emitted or carried): `dropped` are the ones it
	 * could not keep. `clear` rises to what the poll proved (nothing when an answer was unreadable), but stays at or
	 * below every dropped job (a later search finds it again) and every ambiguous job still undecided.
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
		const undecided = this.ambiguous.oldest();
		if (clear !== undefined && undecided !== undefined) clear = Math.min(clear, undecided);
		if (clear !== undefined) state.clear = Math.max(state.clear, clear);
	}

	/** A pass whose count left the zone's jobs open: another pass, or after MAX_SEARCH_PASSES the activation's Date. */
	private uncertainPass(scan: ScanState, state: StatusState): void {
		scan.passes++;
		if (scan.passes < MAX_SEARCH_PASSES) {
			this.nextPass(scan);
			return;
		}
		if (this.ambiguous.size > 0) this.decideByDate(scan, state);
		this.settle();
	}

	/**
	 * The count left open how many of the ambiguous jobs ended after the first activation (between `least` and `most`
	 * of them): the activation's Date decides. On the service's clock the activation happened within the second its
	 * Date names, so a job dated before that second ended before it, and one dated in it or later is emitted — a job
	 * that ended in the same second just before the activation may be emitted with them, none after it is lost. A job
	 * dated no later than the latest the activation's first page listed in the zone had ended before it, on any clock.
	 * Without a Date (this machine's clock, which may differ from the service's) only that tells, so at most `most`
	 * of the rest are emitted.
	 */
	private decideByDate(scan: ScanState, state: StatusState): void {
		const [least, most] = scan.unfound ?? [0, this.ambiguous.size];
		// A job dated no later than one the activation listed had ended by then too.
		const activation = Math.max(
			state.since + (state.zoneEnd - state.since) / 2,
			(state.zoneListed ?? Number.NEGATIVE_INFINITY) + 1,
		);
		const onServiceClock = state.zoneEnd - state.since <= 2 * ZONE_MS;
		const fromActivation = this.ambiguous.countFrom(
			onServiceClock ? activation : (state.zoneListed ?? Number.NEGATIVE_INFINITY) + 1,
		);
		const open = this.ambiguous.size;
		const taken = this.takeAsNew(Math.min(Math.max(fromActivation, least), most));
		// Only `least` of them are new for certain: counting the others in `known` when emitted would let the count take
		// a later job for accounted for. Counted short instead, the count may owe up to `doubt` jobs that do not exist,
		// which a later pass writes off.
		const doubt = Math.max(0, taken - least);
		state.known -= doubt;
		if (doubt > 0) state.doubt = (state.doubt ?? 0) + doubt;
		this.note(
			`status=${this.status}: ${scan.passes} passes over the list could not count how many of the jobs dated within seconds of the first activation ended after it (jobs kept ending while it read); by the activation's Date, ${taken} of the ${open} left open ended after it: emitted`,
		);
	}

	/** The `count` newest ambiguous jobs are new: found. */
	private takeAsNew(count: number): number {
		const taken = this.ambiguous.takeNewest(count);
		for (const job of taken) this.found.set(job.job_id, { ...job, status: this.status });
		return taken.length;
	}

	/**
	 * Jobs the service counts that no search can find: first the ones `known` was counted short by (decideByDate),
	 * then any listed long after their state changed, with a note. Accounted for.
	 */
	private writeOff(missing: number): void {
		const state = this.state;
		if (missing <= 0 || !state) return;
		state.known += missing;
		const doubted = Math.min(missing, state.doubt ?? 0);
		if (doubted > 0) state.doubt = (state.doubt ?? 0) - doubted;
		if (!state.doubt) delete state.doubt;
		if (missing > doubted) {
			this.note(
				`status=${this.status}: ${missing - doubted} job(s) counted by the service could not be found by their updated_at (listed long after their state changed?); counted as accounted for`,
			);
		}
	}

	/** A new pass over the list begins at the next first page. */
	private nextPass(scan: ScanState): void {
		Object.assign(scan, { front: 0, back: 0, passTotal: -1, newcomers: 0, uncertain: 0 });
	}

	/** Every job owed is found: what was not listed at this poll's first page is dated after it less the overlap. */
	private explained(): void {
		if (this.state) delete this.state.doubt;
		this.settle();
		if (this.firstPageFloor !== undefined) this.prove(this.firstPageFloor - OVERLAP_MS);
	}

	private prove(clear: number): void {
		this.proved = Math.max(this.proved ?? clear, clear);
	}

	/** Owed jobs are explained: ambiguous ones seen are from before the first activation. */
	private settle(): void {
		for (const [id, updatedAt] of this.ambiguous.takeAll()) {
			this.cutoff.markOld(id, this.status, Date.parse(updatedAt));
		}
		if (this.state) delete this.state.scan;
	}
}
