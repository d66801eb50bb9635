// What one poll asks GET /transcriptions and which jobs it emits, decided without I/O (the node performs the
// requests, this module only reads their answers), so every rule below is tested against simulated lists.
//
// The list's order is not specified and its cursor is an offset, so nothing here depends on where a job sits:
// - Each selected status (completed, failed, cancelled) is a list that only grows: a job that reached a terminal
//   state stays there. Its `total` is the change detector: total − known = jobs in that status not yet accounted
//   for ("owed"). The first page of each status (100 jobs, one request) is read every poll and tells the total.
// - Which jobs are new is decided by `updated_at` (when the job reached its state): at or after the cutoff and not
//   in `recent` (the accounted jobs at or after the cutoff) means new. The cutoff trails the latest emitted job by
//   OVERLAP_MS, so a job the service lists late (replication lag, a worker's clock) is still caught, and `recent`
//   makes that overlap exact; it moves only after a poll that left nothing owed, so it never passes a job a search
//   has not found yet. It never goes below `since`, the service time of the first activation.
// - When page 0 does not explain the owed count, the search reads further pages from both ends of the list (where
//   every time order puts new jobs) towards the middle, within the request budget, and carries its position to the
//   next poll. Positions stay valid while the list grows: a job not read yet can only move further from the ends.
// - At the first activation, jobs dated within ±ZONE of the service's clock may be from before or after it; the
//   count decides (ambiguous jobs; see resolveAmbiguous).

import { idProblem } from '../../src/api';

export const POLLED_STATUSES = ['completed', 'failed', 'cancelled'] as const;
export type PolledStatus = (typeof POLLED_STATUSES)[number];

/** The most jobs one list request may ask for (spec 4.5). */
export const PAGE_SIZE = 100;
/** How late after its updated_at a job may first be listed in its state and still be emitted at once. */
export const OVERLAP_MS = 10 * 60 * 1000;
/**
 * Accounted jobs kept to make the overlap exact (about 45 bytes each in static data). A poll keeps the jobs emitted
 * within OVERLAP_MS of the latest, plus, while a search or a backlog goes on, every job emitted since it began;
 * beyond this the cutoff rises above the oldest ones.
 */
export const RECENT_LIMIT = 5000;
/** Half-width of the first activation's ambiguous zone around the service's Date (whole seconds). */
export const ZONE_MS = 2000;
/** The same without a Date header, around this machine's clock. */
export const LOCAL_ZONE_MS = 30_000;
/** The resolution of the HTTP Date header. */
const SECOND_MS = 1000;
/** Passes over the whole list a search repeats when its count was not certain. */
export const MAX_SEARCH_PASSES = 3;
/** Ambiguous jobs carried between polls (the jobs dated within seconds of the first activation), newest kept. */
const MAX_AMBIGUOUS = 500;
/** Remarks kept per poll. */
const MAX_NOTES = 20;

const STATE_VERSION = 1;

export interface PollSettings {
	/** The statuses whose jobs start the workflow, in the order their lists are read. */
	statuses: readonly PolledStatus[];
	/** List requests one poll may make, the first page of each status included. */
	maxRequests: number;
	/** Jobs one poll may emit; the rest are emitted by the next polls. */
	maxItems: number;
	/** Which account the state belongs to (a fingerprint); a different one starts over. */
	account: string;
}

export interface StatusState {
	/** Jobs in this status accounted for: listed at its first poll, or emitted since. */
	known: number;
	/** Service time (ms) of this status's first poll: jobs that reached it earlier are not emitted. */
	since: number;
	/** End (ms) of the first poll's ambiguous zone [since, zoneEnd). */
	zoneEnd: number;
	/** A search not finished within one poll. */
	scan?: ScanState;
	/** Jobs found but left for the next poll (more than one poll emits): [job_id, updated_at as listed]. */
	pending?: Array<[string, string]>;
}

export interface ScanState {
	/** Positions [0, front) of the list have been read. */
	front: number;
	/** The last `back` positions of the list have been read. */
	back: number;
	/** The list's total when last read. */
	total: number;
	/**
	 * The current pass over the list: its total and the service time (ms) when it began, -1 until the next first page
	 * begins it. Jobs found later and dated after the beginning (+ the clock's resolution, `passBand`) joined the list
	 * during the pass (`newcomers`); jobs found dated within the band could be either (`uncertain`).
	 */
	passTotal: number;
	passDate: number;
	passBand: number;
	newcomers: number;
	uncertain: number;
	/** Passes that ended without a certain count. */
	passes: number;
	/** Ambiguous jobs seen so far: [job_id, updated_at as listed]. */
	ambiguous: Array<[string, string]>;
}

export interface PollState {
	version: typeof STATE_VERSION;
	account: string;
	statuses: Partial<Record<PolledStatus, StatusState>>;
	/** updated_at (ms) of the latest emitted job, never beyond the service's clock. */
	latest: number;
	/**
	 * `latest` as of the last poll that ended with nothing owed; the cutoff trails it by OVERLAP_MS. While a job is
	 * owed (a search goes on, jobs wait for the next poll) it stays put, so newer jobs emitted meanwhile cannot move
	 * the cutoff past a job not found yet.
	 */
	watermark: number;
	/** Raised above the jobs dropped from `recent` when it overflows. */
	floor: number;
	/** Which status searches first in the next poll (they take turns across polls too). */
	turn: number;
	/** Accounted jobs at or after their status's cutoff, per status: [job_id, updated_at ms], oldest first. */
	recent: Partial<Record<PolledStatus, Array<[string, number]>>>;
}

export type RequestKind = 'first_page' | 'front' | 'back';

export interface ListRequest {
	status: PolledStatus;
	cursor: number;
	limit: number;
	kind: RequestKind;
}

/** The answer of one list request, as received (validated here). */
export interface ListPage {
	items: unknown;
	total: unknown;
}

/** A list answer with a usable count and items; anything else stops the reading of that list. */
export function isValidPage(page: ListPage): page is { items: unknown[]; total: number } {
	return isCount(page.total) && Array.isArray(page.items);
}

/** The part of a list read from both ends: `front` jobs from the start, `back` from the end, of `total`. */
export interface TwoEndedRead {
	front: number;
	back: number;
	total: number;
}

/** The next page of a list read from both ends towards the middle, from the side given. */
export function twoEndedRequest(
	status: PolledStatus,
	read: TwoEndedRead,
	side: 'front' | 'back',
): ListRequest {
	const { front, back, total } = read;
	if (side === 'back') {
		const end = total - back;
		const cursor = Math.max(front, end - PAGE_SIZE);
		return { status, cursor, limit: end - cursor, kind: 'back' };
	}
	return { status, cursor: front, limit: Math.min(PAGE_SIZE, total - back - front), kind: 'front' };
}

/** A job to emit: what the item is built from. */
export interface DueJob {
	job_id: string;
	status: PolledStatus;
	/** updated_at exactly as the service listed it. */
	updated_at: string;
	updatedAtMs: number;
}

export interface PollOutcome {
	/** The state to store in the node's static data. */
	state: PollState;
	/** Oldest state change first. */
	emit: DueJob[];
	requests: number;
	/** Jobs found due but left for the next poll (maxItems). */
	deferred: number;
	/** Searches carried to the next poll. */
	searching: PolledStatus[];
	/** Every job the service counts in a selected status is accounted for (nothing searched, nothing left over). */
	settled: boolean;
	/** Things worth a log line: odd answers, discarded state, counts that could not be explained. */
	notes: string[];
}

interface StatusRun {
	status: PolledStatus;
	/** undefined until the first page arrives when this status has no state yet. */
	state: StatusState | undefined;
	firstPageRead: boolean;
	total: number;
	/** New jobs seen this poll. */
	found: Map<string, DueJob>;
	/** Ambiguous jobs seen (this poll and carried): job_id → updated_at as listed. */
	ambiguous: Map<string, string>;
	/** Whether to read more pages this poll. */
	searching: boolean;
	/** The end the next search page is read from; the ends alternate, so a list that keeps growing cannot stall it. */
	side: 'front' | 'back';
}

export function isPolledStatus(value: unknown): value is PolledStatus {
	return typeof value === 'string' && (POLLED_STATUSES as readonly string[]).includes(value);
}

/**
 * One poll. Call next() for the request to make, apply() with its answer (or interrupt() when it failed), until
 * next() returns undefined; then finish() for the state to store and the jobs to emit.
 */
export class PollSession {
	/** Whether some selected status has state from earlier polls (false at the first activation). */
	readonly hasHistory: boolean;
	private readonly state: PollState;
	private readonly runs: StatusRun[];
	private readonly recentKeys: Set<string>;
	private readonly markedOld: Array<[string, PolledStatus, number]> = [];
	private readonly notes: string[] = [];
	private requests = 0;
	private searchTurn = 0;
	private interrupted = false;
	private serviceNow: number | undefined;

	constructor(
		stored: unknown,
		private readonly settings: PollSettings,
		private readonly localNowMs: number,
	) {
		const parsed = parseState(stored);
		if (stored !== undefined && stored !== null && !parsed) {
			this.note('the stored poll state was unreadable: starting from now');
		}
		if (parsed && parsed.account !== settings.account) {
			this.note('the credential now points at another account: starting from now');
		}
		this.state =
			parsed && parsed.account === settings.account
				? parsed
				: {
						version: STATE_VERSION,
						account: settings.account,
						statuses: {},
						latest: 0,
						watermark: 0,
						floor: 0,
						turn: 0,
						recent: {},
					};
		this.runs = settings.statuses.map((status) => {
			const state = this.state.statuses[status];
			const pending = (state?.pending ?? []).map(([job_id, updated_at]): [string, DueJob] => [
				job_id,
				{ job_id, status, updated_at, updatedAtMs: Date.parse(updated_at) },
			]);
			if (state) delete state.pending;
			return {
				status,
				state,
				firstPageRead: false,
				total: state?.known ?? 0,
				found: new Map(pending),
				ambiguous: new Map(state?.scan?.ambiguous ?? []),
				searching: false,
				side: 'back' as const,
			};
		});
		this.recentKeys = new Set(
			Object.entries(this.state.recent).flatMap(([status, entries]) =>
				(entries ?? []).map(([id]) => recentKey(status as PolledStatus, id)),
			),
		);
		this.hasHistory = this.runs.some((run) => run.state !== undefined);
		this.searchTurn = this.state.turn % Math.max(1, this.runs.length);
	}

	/** The next request to make, or undefined when this poll is done. */
	next(): ListRequest | undefined {
		if (this.interrupted || this.requests >= this.settings.maxRequests) return undefined;
		const unread = this.runs.find((run) => !run.firstPageRead);
		if (unread) return { status: unread.status, cursor: 0, limit: PAGE_SIZE, kind: 'first_page' };
		// A search that has read the whole list concludes without a request, even when no more jobs fit this poll.
		for (const run of this.runs) {
			const scan = run.state?.scan;
			if (run.searching && scan && scan.front + scan.back >= scan.total) {
				this.resolveCompletePass(run, scan);
			}
		}
		if (this.foundCount() >= this.settings.maxItems) return undefined;
		// Statuses take turns, so a busy one cannot hold another's search back.
		for (let turn = 0; turn < this.runs.length; turn++) {
			const run = this.runs[(this.searchTurn + turn) % this.runs.length];
			while (run.searching) {
				const request = this.searchRequest(run);
				if (request) {
					this.searchTurn = (this.runs.indexOf(run) + 1) % this.runs.length;
					return request;
				}
			}
		}
		return undefined;
	}

	/** The answer to `request`; `serviceNowMs` is the response's Date header (undefined without one). */
	apply(request: ListRequest, page: ListPage, serviceNowMs: number | undefined): void {
		this.requests++;
		const onServiceClock = serviceNowMs !== undefined && Number.isFinite(serviceNowMs);
		if (onServiceClock) this.serviceNow = Math.max(this.serviceNow ?? serviceNowMs, serviceNowMs);
		const clock = onServiceClock
			? { now: serviceNowMs, resolution: SECOND_MS, zone: ZONE_MS }
			: { now: this.localNowMs, resolution: LOCAL_ZONE_MS, zone: LOCAL_ZONE_MS };
		const run = this.run(request.status);
		if (!isValidPage(page)) {
			this.note(
				`status=${run.status}: the list answer has no valid total or items; stopped reading it`,
			);
			run.firstPageRead = true;
			run.searching = false;
			return;
		}
		const { items, total } = page;
		if (request.kind === 'first_page') {
			run.firstPageRead = true;
			run.total = total;
			if (!run.state) {
				this.startFromNow(run, total, items, clock.now, clock.zone);
				return;
			}
			if (total < run.state.known) {
				this.note(
					`status=${run.status}: the service counts ${total} jobs, fewer than the ${run.state.known} accounted for (jobs removed from the list?)`,
				);
				run.state.known = total;
			}
			const carried = run.state.scan;
			if (carried && total < carried.total) this.restartShrunkScan(run, carried, total);
			this.classifyAll(run, items);
			const scan = run.state.scan;
			if (scan) {
				scan.total = total;
				scan.front = Math.max(scan.front, items.length);
			}
			if (this.remaining(run) <= 0) {
				this.settle(run);
				return;
			}
			if (!scan) {
				run.state.scan = {
					front: items.length,
					back: 0,
					total,
					passTotal: -1,
					passDate: 0,
					passBand: 0,
					newcomers: 0,
					uncertain: 0,
					passes: 0,
					ambiguous: [],
				};
			}
			const active = run.state.scan as ScanState;
			// A pass begins with a first page: every job listed then is read by the time the pass covers the list.
			if (active.passTotal < 0) {
				Object.assign(active, {
					passTotal: total,
					passDate: clock.now,
					passBand: clock.resolution,
					newcomers: 0,
					uncertain: 0,
				});
			}
			run.searching = true;
			// The end read less so far first: a fresh search probes the last page right after the first one.
			run.side = active.back < active.front ? 'back' : 'front';
			return;
		}

		const state = run.state;
		const scan = state?.scan;
		if (!state || !scan) return;
		if (total < scan.total) {
			this.restartShrunkScan(run, scan, total);
			run.searching = false;
			this.classifyAll(run, items);
			return;
		}
		if (request.kind === 'front') {
			if (items.length === 0 && request.cursor < total) {
				this.note(`status=${run.status}: an empty page at cursor ${request.cursor} of ${total}`);
				run.searching = false;
			}
			scan.front = Math.max(scan.front, request.cursor + items.length);
		} else if (total === scan.total && request.cursor + items.length >= total - scan.back) {
			// Counted only when the list kept its length: otherwise the page may have slid past jobs not read yet.
			scan.back = Math.max(scan.back, total - request.cursor);
		}
		scan.total = total;
		run.total = total;
		this.classifyAll(run, items);
		if (this.remaining(run) <= 0) this.settle(run);
	}

	/** A request failed (rate limit, network): no more requests this poll; what was read still counts. */
	interrupt(): void {
		this.interrupted = true;
	}

	finish(): PollOutcome {
		const due = this.runs
			.flatMap((run) => [...run.found.values()])
			.sort(
				(a, b) =>
					a.updatedAtMs - b.updatedAtMs ||
					POLLED_STATUSES.indexOf(a.status) - POLLED_STATUSES.indexOf(b.status) ||
					(a.job_id < b.job_id ? -1 : a.job_id > b.job_id ? 1 : 0),
			);
		const emit = due.slice(0, this.settings.maxItems);
		// The rest is remembered as found, so the next poll emits it without searching again.
		for (const job of due.slice(this.settings.maxItems)) {
			const state = this.run(job.status).state;
			if (state) (state.pending ??= []).push([job.job_id, job.updated_at]);
		}
		const clock = this.serviceNow ?? this.localNowMs;
		for (const job of emit) {
			const state = this.run(job.status).state;
			if (state) state.known++;
			if (!this.recentKeys.has(recentKey(job.status, job.job_id))) {
				this.recentKeys.add(recentKey(job.status, job.job_id));
				this.addRecent(job.job_id, job.status, job.updatedAtMs);
			}
			this.state.latest = Math.max(this.state.latest, Math.min(job.updatedAtMs, clock + ZONE_MS));
		}
		for (const [id, status, updatedAtMs] of this.markedOld) this.addRecent(id, status, updatedAtMs);

		const statuses: PollState['statuses'] = {};
		for (const run of this.runs) {
			if (!run.state) continue;
			if (run.state.scan) {
				run.state.scan.ambiguous = [...run.ambiguous];
			}
			statuses[run.status] = run.state;
		}
		this.state.statuses = statuses;
		const settled = this.runs.every(
			(run) => run.firstPageRead && run.state && !run.state.scan && run.total <= run.state.known,
		);
		if (settled) this.state.watermark = this.state.latest;
		this.state.turn = this.searchTurn;
		this.trimRecent();
		return {
			state: this.state,
			emit,
			requests: this.requests,
			deferred: due.length - emit.length,
			settled,
			searching: this.runs.filter((run) => run.state?.scan).map((run) => run.status),
			notes: this.notes,
		};
	}

	// ---- the first poll of a status ----

	private startFromNow(
		run: StatusRun,
		total: number,
		items: unknown[],
		now: number,
		zone: number,
	): void {
		run.state = { known: total, since: now - zone, zoneEnd: now + zone };
		if (this.state.latest === 0) this.state.latest = run.state.since;
		if (this.state.watermark === 0) this.state.watermark = run.state.since;
		// Jobs on this page are counted in `known`: the ones dated at or after `since` are remembered as accounted,
		// so they are not taken for new later.
		for (const raw of items) {
			const job = listedJob(raw, run.status);
			if (job && job.updatedAtMs >= run.state.since) {
				this.markOld(job.job_id, run.status, job.updatedAtMs);
			}
		}
	}

	// ---- reading pages ----

	private classifyAll(run: StatusRun, items: unknown[]): void {
		for (const raw of items) this.classify(run, raw, run.total);
	}

	/** `total` is the list's length in the answer the job came in. */
	private classify(run: StatusRun, raw: unknown, total: number): void {
		const state = run.state;
		if (!state) return;
		const job = listedJob(raw, run.status);
		if (!job) {
			const listed = (raw as { job_id?: unknown; status?: unknown } | null) ?? {};
			this.note(
				`status=${run.status}: skipped a listed job that is not a ${run.status} job with an id and updated_at (${JSON.stringify(
					{ job_id: listed.job_id, status: listed.status },
				).slice(0, 200)})`,
			);
			return;
		}
		if (this.recentKeys.has(recentKey(run.status, job.job_id)) || run.found.has(job.job_id)) return;
		if (job.updatedAtMs < this.cutoff(state)) return;
		// While the list is as long as when the pass began, nothing has joined it: every job found was there.
		const scan = state.scan;
		const pass = scan && scan.passTotal >= 0 && total > scan.passTotal ? scan : undefined;
		if (job.updatedAtMs < state.zoneEnd) {
			if (!run.ambiguous.has(job.job_id)) {
				keepNewest(run.ambiguous, job);
				// An ambiguous job that joined during the pass would upset its count (only seconds after activation).
				if (pass && job.updatedAtMs >= pass.passDate) pass.uncertain++;
			}
			return;
		}
		run.found.set(job.job_id, job);
		if (pass && job.updatedAtMs >= pass.passDate + pass.passBand) pass.newcomers++;
		else if (pass && job.updatedAtMs >= pass.passDate) pass.uncertain++;
	}

	private searchRequest(run: StatusRun): ListRequest | undefined {
		const scan = run.state?.scan;
		if (!scan) {
			run.searching = false;
			return undefined;
		}
		if (scan.front + scan.back >= scan.total) {
			this.resolveCompletePass(run, scan);
			return undefined;
		}
		const side = run.side;
		run.side = side === 'back' ? 'front' : 'back';
		return twoEndedRequest(run.status, scan, side);
	}

	/**
	 * Every job listed when the pass began has been read, so the jobs owed then and still not found are known in
	 * number: what is owed now, less the jobs that joined the list during the pass and were not read. They can only be
	 * ambiguous jobs (dated within the first activation's zone), and the count says how many of those are new: the
	 * newest (a job listed at the first activation is never dated after one that was still running then). Jobs the rules
	 * cannot find at all (listed long after their updated_at) are counted as accounted for, with a note, so a search
	 * never goes on forever. A pass whose count is not certain (a job found dated within the clock's resolution of the
	 * pass's beginning) is repeated, at most MAX_SEARCH_PASSES times.
	 */
	private resolveCompletePass(run: StatusRun, scan: ScanState): void {
		run.searching = false;
		const state = run.state;
		if (!state) return;
		const unreadNewcomers = scan.total - scan.passTotal - scan.newcomers;
		if (scan.uncertain > 0 || unreadNewcomers < 0) {
			scan.passes++;
			if (scan.passes >= MAX_SEARCH_PASSES) {
				this.note(
					`status=${run.status}: ${scan.passes} passes over the list gave no certain count; the ambiguous jobs seen are taken as older than the activation`,
				);
				this.settle(run);
				return;
			}
			Object.assign(scan, { front: 0, back: 0, passTotal: -1, newcomers: 0, uncertain: 0 });
			return;
		}
		const unfound = this.remaining(run) - unreadNewcomers;
		if (unfound <= 0) {
			this.settle(run);
			return;
		}
		const ambiguous = [...run.ambiguous]
			.map(([job_id, updated_at]) => ({ job_id, updated_at, updatedAtMs: Date.parse(updated_at) }))
			.sort((a, b) => b.updatedAtMs - a.updatedAtMs || (a.job_id < b.job_id ? 1 : -1));
		const taken = ambiguous.slice(0, unfound);
		for (const job of taken) run.found.set(job.job_id, { ...job, status: run.status });
		run.ambiguous = new Map(ambiguous.slice(unfound).map((job) => [job.job_id, job.updated_at]));
		const missing = unfound - taken.length;
		if (missing > 0) {
			this.note(
				`status=${run.status}: ${missing} job(s) counted by the service could not be found by their updated_at (listed long after their state changed?); counted as accounted for`,
			);
			state.known += missing;
		}
		this.settle(run);
	}

	/** Owed jobs are explained: ambiguous ones seen are from before the first activation. */
	private settle(run: StatusRun): void {
		for (const [id, updatedAt] of run.ambiguous)
			this.markOld(id, run.status, Date.parse(updatedAt));
		run.ambiguous.clear();
		run.searching = false;
		if (run.state) delete run.state.scan;
	}

	private restartShrunkScan(run: StatusRun, scan: ScanState, total: number): void {
		this.note(
			`status=${run.status}: the list shrank from ${scan.total} to ${total} jobs; the search starts over`,
		);
		if (run.state) delete run.state.scan;
	}

	// ---- bookkeeping ----

	private remaining(run: StatusRun): number {
		return run.total - (run.state?.known ?? run.total) - run.found.size;
	}

	private cutoff(state: StatusState): number {
		return Math.max(state.since, this.state.watermark - OVERLAP_MS, this.state.floor);
	}

	private foundCount(): number {
		return this.runs.reduce((sum, run) => sum + run.found.size, 0);
	}

	private markOld(jobId: string, status: PolledStatus, updatedAtMs: number): void {
		if (!Number.isFinite(updatedAtMs) || this.recentKeys.has(recentKey(status, jobId))) return;
		this.recentKeys.add(recentKey(status, jobId));
		this.markedOld.push([jobId, status, updatedAtMs]);
	}

	private addRecent(jobId: string, status: PolledStatus, updatedAtMs: number): void {
		const entries = (this.state.recent[status] ??= []);
		entries.push([jobId, updatedAtMs]);
	}

	/** Drops what the cutoff already excludes, then the oldest beyond RECENT_LIMIT (raising the floor above them). */
	private trimRecent(): void {
		const kept: Array<[string, PolledStatus, number]> = [];
		for (const [status, state] of Object.entries(this.state.statuses) as Array<
			[PolledStatus, StatusState]
		>) {
			const cutoff = this.cutoff(state);
			for (const [id, updatedAtMs] of this.state.recent[status] ?? []) {
				if (updatedAtMs >= cutoff) kept.push([id, status, updatedAtMs]);
			}
		}
		kept.sort((a, b) => a[2] - b[2]);
		const overflow = kept.length - RECENT_LIMIT;
		if (overflow > 0) {
			const dropped = kept.splice(0, overflow);
			this.state.floor = Math.max(this.state.floor, dropped[dropped.length - 1][2] + 1);
			this.note(
				`more than ${RECENT_LIMIT} jobs emitted within the overlap: the cutoff rose above the ${overflow} oldest`,
			);
		}
		const recent: PollState['recent'] = {};
		for (const [id, status, updatedAtMs] of kept) (recent[status] ??= []).push([id, updatedAtMs]);
		this.state.recent = recent;
	}

	private run(status: PolledStatus): StatusRun {
		const run = this.runs.find((candidate) => candidate.status === status);
		if (!run) throw new Error(`status ${status} is not polled`);
		return run;
	}

	private note(text: string): void {
		if (this.notes.length < MAX_NOTES) this.notes.push(text);
	}
}

/** A listed job of `status` with what the poll needs, or undefined when it is not one. */
export function listedJob(raw: unknown, status: PolledStatus): DueJob | undefined {
	if (typeof raw !== 'object' || raw === null) return undefined;
	const { job_id, status: listedStatus, updated_at } = raw as Record<string, unknown>;
	// Ids travel as one path segment (links, the artifact download): nothing that could change the path.
	if (typeof job_id !== 'string' || idProblem(job_id) !== undefined) return undefined;
	if (listedStatus !== status || typeof updated_at !== 'string') return undefined;
	const updatedAtMs = Date.parse(updated_at);
	if (!Number.isFinite(updatedAtMs)) return undefined;
	return { job_id, status, updated_at, updatedAtMs };
}

/** The resolution takes the newest ambiguous jobs: past the limit, the oldest one goes. */
function keepNewest(ambiguous: Map<string, string>, job: DueJob): void {
	ambiguous.set(job.job_id, job.updated_at);
	if (ambiguous.size <= MAX_AMBIGUOUS) return;
	let oldest: [string, number] | undefined;
	for (const [id, updatedAt] of ambiguous) {
		const ms = Date.parse(updatedAt);
		if (!oldest || ms < oldest[1]) oldest = [id, ms];
	}
	if (oldest) ambiguous.delete(oldest[0]);
}

function recentKey(status: PolledStatus, jobId: string): string {
	return `${status}\u0000${jobId}`;
}

// ---- the stored state (static data is user-editable JSON: anything unexpected means "start from now") ----

export function parseState(stored: unknown): PollState | undefined {
	if (typeof stored !== 'object' || stored === null) return undefined;
	const value = stored as Record<string, unknown>;
	if (value.version !== STATE_VERSION || typeof value.account !== 'string') return undefined;
	if (!isTime(value.latest) || !isTime(value.watermark) || !isTime(value.floor)) return undefined;
	if (!isCount(value.turn)) return undefined;
	if (typeof value.statuses !== 'object' || value.statuses === null) return undefined;
	const statuses: PollState['statuses'] = {};
	for (const [status, entry] of Object.entries(value.statuses)) {
		if (!isPolledStatus(status)) return undefined;
		const parsed = parseStatusState(entry);
		if (!parsed) return undefined;
		statuses[status] = parsed;
	}
	if (typeof value.recent !== 'object' || value.recent === null || Array.isArray(value.recent)) {
		return undefined;
	}
	const recent: PollState['recent'] = {};
	for (const [status, entries] of Object.entries(value.recent)) {
		if (!isPolledStatus(status) || !Array.isArray(entries)) return undefined;
		const parsed: Array<[string, number]> = [];
		for (const entry of entries as unknown[]) {
			if (!Array.isArray(entry) || typeof entry[0] !== 'string' || !isTime(entry[1]))
				return undefined;
			parsed.push([entry[0], entry[1]]);
		}
		recent[status] = parsed;
	}
	return {
		version: STATE_VERSION,
		account: value.account,
		statuses,
		latest: value.latest,
		watermark: value.watermark,
		floor: value.floor,
		turn: value.turn,
		recent,
	};
}

function parseStatusState(entry: unknown): StatusState | undefined {
	if (typeof entry !== 'object' || entry === null) return undefined;
	const { known, since, zoneEnd, scan } = entry as Record<string, unknown>;
	if (!isCount(known) || !isTime(since) || !isTime(zoneEnd)) return undefined;
	const state: StatusState = { known, since, zoneEnd };
	const { pending } = entry as Record<string, unknown>;
	if (pending !== undefined) {
		const parsed = parsePairs(pending);
		if (!parsed) return undefined;
		state.pending = parsed;
	}
	if (scan !== undefined) {
		const parsed = parseScan(scan);
		if (!parsed) return undefined;
		state.scan = parsed;
	}
	return state;
}

function parseScan(scan: unknown): ScanState | undefined {
	if (typeof scan !== 'object' || scan === null) return undefined;
	const value = scan as Record<string, unknown>;
	const counts = ['front', 'back', 'total', 'newcomers', 'uncertain', 'passes'] as const;
	if (!counts.every((name) => isCount(value[name]))) return undefined;
	const { passTotal, passDate, passBand } = value;
	if (typeof passTotal !== 'number' || !Number.isInteger(passTotal) || passTotal < -1)
		return undefined;
	if (!isTime(passDate) || !isTime(passBand)) return undefined;
	const pairs = parsePairs(value.ambiguous);
	if (!pairs) return undefined;
	return {
		front: value.front as number,
		back: value.back as number,
		total: value.total as number,
		passTotal,
		passDate,
		passBand,
		newcomers: value.newcomers as number,
		uncertain: value.uncertain as number,
		passes: value.passes as number,
		ambiguous: pairs,
	};
}

/** [job_id, updated_at] pairs with a parseable time. */
function parsePairs(value: unknown): Array<[string, string]> | undefined {
	if (!Array.isArray(value)) return undefined;
	const pairs: Array<[string, string]> = [];
	for (const entry of value as unknown[]) {
		if (!Array.isArray(entry) || typeof entry[0] !== 'string' || typeof entry[1] !== 'string') {
			return undefined;
		}
		if (!Number.isFinite(Date.parse(entry[1]))) return undefined;
		pairs.push([entry[0], entry[1]]);
	}
	return pairs;
}

function isCount(value: unknown): value is number {
	return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

function isTime(value: unknown): value is number {
	return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}
