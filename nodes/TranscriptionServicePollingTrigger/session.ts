// One poll, decided without I/O: which list requests to make, what their answers mean, which jobs to emit and what to
// store. The node (poll.ts) makes the requests; every rule is tested against simulated lists. The list's order is not
// specified and its cursor is an offset, so nothing here depends on where a job sits: each status's part is a
// StatusPoll (status-poll.ts, reading its list) over an OwedCount (owed-count.ts, what it owes), and what is accounted
// for across statuses is the Cutoff (cutoff.ts).
//
// The cutoff trails the latest emitted job by OVERLAP_MS, so a job the service lists late (replication lag, a worker's
// clock) is still caught; it moves up only as far as the polls have proved nothing owed is older (a poll that left
// nothing owed, or a search that read the whole list: `clear`, state.ts), so it never passes a job a search has not
// found yet, and never goes below `since`, where the status's first poll started (owed-count.ts). Bounded state slows a backlog
// down, and never drops a job: a found job a poll cannot keep keeps the cutoff below it and is found again.
import { LIST_PAGE_SIZE } from '../../src/client';
import { Cutoff } from './cutoff';
import { POLLED_STATUSES, type DueJob, type ListRequest, type PolledStatus } from './list';
import {
	MAX_ACCOUNTS,
	MAX_PENDING,
	newState,
	parseStates,
	storedState,
	type AccountState,
	type PollState,
} from './state';
import { DATE_RESOLUTION_MS, LOCAL_CLOCK_SKEW_MS, type PageClock } from './owed-count';
import { StatusPoll } from './status-poll';

/** Remarks kept per poll. */
const MAX_NOTES = 20;

export interface PollSettings {
	/** The statuses whose jobs start the workflow, in the order their lists are read. */
	statuses: readonly PolledStatus[];
	/** List requests one poll may make, the first page of each status included. */
	maxRequests: number;
	/** Jobs one poll may emit; the rest are emitted by the next polls. */
	maxItems: number;
	/** The account polled (account_id): its own state is carried on, another account's is kept for it. */
	account: string;
	/** The credential's fingerprint (Base URL and API key), stored so the next poll knows the account without asking. */
	credential: string;
}

export interface PollOutcome {
	/** The state to store in the node's static data. */
	state: PollState;
	/** Oldest state change first. */
	emit: DueJob[];
	requests: number;
	/** Jobs found due but left for the next poll (maxItems). */
	deferred: number;
	/**
	 * Found jobs beyond what the state keeps (MAX_PENDING), newest: the stored state owes them, and a poll that goes on
	 * may hand them to its next session instead of searching for them again.
	 */
	dropped: DueJob[];
	/** Searches carried to the next poll. */
	searching: PolledStatus[];
	/** Every job the service counts in a selected status is accounted for (nothing searched, nothing left over). */
	settled: boolean;
	/** Statuses whose list answered this poll with something that is not a usable list. */
	unreadable: PolledStatus[];
	/** Things worth a log line: odd answers, discarded state, counts that could not be explained. */
	notes: string[];
}

/**
 * One poll. Call next() for the request to make, apply() with its answer (or interrupt() when it failed), until
 * next() returns undefined; then finish() for the state to store and the jobs to emit.
 */
export class PollSession {
	/** Whether some selected status has state from earlier polls (false at the first activation). */
	readonly hasHistory: boolean;
	private readonly state: AccountState;
	/** The states of the accounts polled before, most recently polled first. */
	private readonly others: AccountState[];
	private readonly cutoff: Cutoff;
	private readonly parts: StatusPoll[];
	private readonly notes: string[] = [];
	private requests = 0;
	private searchTurn = 0;
	private interrupted = false;
	private serviceNow: number | undefined;

	/**
	 * `carried`: jobs an earlier session of the same poll found and could not keep (its outcome's `dropped`), found
	 * again without a request.
	 */
	constructor(
		stored: unknown,
		private readonly settings: PollSettings,
		private readonly localNowMs: number,
		carried: readonly DueJob[] = [],
	) {
		const parsed = parseStates(stored);
		if (stored !== undefined && stored !== null && !parsed) {
			this.note('the stored poll state was unreadable: starting from now');
		}
		// The account's own state, kept among the last MAX_ACCOUNTS polled; the others are stored again as they were.
		const kept = parsed ?? [];
		const index = kept.findIndex((state) => state.account === settings.account);
		if (index < 0 && kept.length > 0) {
			this.note('the credential now points at another account: starting from now');
		} else if (index > 0) {
			this.note(
				'the credential points again at an account polled before: going on from where its polls stopped',
			);
		}
		this.state =
			index < 0 ? newState(settings.account, settings.credential) : kept.splice(index, 1)[0];
		this.others = kept;
		this.state.credential = settings.credential;
		const note = (text: string) => this.note(text);
		this.cutoff = new Cutoff(this.state, note);
		this.parts = settings.statuses.map(
			(status) => new StatusPoll(status, this.state.statuses[status], this.cutoff, note),
		);
		this.hasHistory = this.parts.some((part) => part.state !== undefined);
		for (const job of carried) this.parts.find((part) => part.status === job.status)?.carry(job);
		this.searchTurn = this.state.turn % Math.max(1, this.parts.length);
	}

	/** The next request to make, or undefined when this poll is done. */
	next(): ListRequest | undefined {
		if (this.interrupted || this.requests >= this.settings.maxRequests) return undefined;
		const unread = this.parts.find((part) => !part.firstPageRead);
		if (unread) {
			return { status: unread.status, cursor: 0, limit: LIST_PAGE_SIZE, kind: 'first_page' };
		}
		// A search that has read the whole list concludes without a request.
		for (const part of this.parts) part.concludeIfWhole();
		// The search goes on even when more jobs are found than this poll emits: only a search that reads the whole list
		// lets the cutoff rise past what a backlog has emitted. Statuses take turns, so a busy one cannot hold another's search back.
		for (let turn = 0; turn < this.parts.length; turn++) {
			const index = (this.searchTurn + turn) % this.parts.length;
			const part = this.parts[index];
			while (part.searching) {
				const request = part.searchRequest();
				if (request) {
					this.searchTurn = (index + 1) % this.parts.length;
					return request;
				}
			}
		}
		return undefined;
	}

	/** The answer to `request`, as received; `serviceNowMs` is the response's Date header (undefined without one). */
	apply(request: ListRequest, answer: unknown, serviceNowMs: number | undefined): void {
		this.requests++;
		const onServiceClock = serviceNowMs !== undefined && Number.isFinite(serviceNowMs);
		if (onServiceClock) this.serviceNow = Math.max(this.serviceNow ?? serviceNowMs, serviceNowMs);
		const clock: PageClock = onServiceClock
			? { now: serviceNowMs, resolution: DATE_RESOLUTION_MS, serviceFloor: serviceNowMs }
			: { now: this.localNowMs, resolution: LOCAL_CLOCK_SKEW_MS, serviceFloor: undefined };
		this.part(request.status).apply(request, answer, clock);
	}

	/** A request failed (rate limit, network): no more requests this poll; what was read still counts. */
	interrupt(): void {
		this.interrupted = true;
	}

	finish(): PollOutcome {
		const due = this.parts
			.flatMap((part) => [...part.found.values()])
			.sort(
				(a, b) =>
					a.updatedAtMs - b.updatedAtMs ||
					POLLED_STATUSES.indexOf(a.status) - POLLED_STATUSES.indexOf(b.status) ||
					(a.job_id < b.job_id ? -1 : a.job_id > b.job_id ? 1 : 0),
			);
		// The poll keeps the oldest MAX_PENDING found jobs (emitted now or carried), and always the ones dated before
		// their status's cutoff: no search would find those again. The rest stays owed by the count, and the cutoff
		// stays below it (closeFound), so a later search finds it again.
		const belowCutoff = due.filter((job) => job.updatedAtMs < this.cutoffOf(job.status));
		const others = due.filter((job) => job.updatedAtMs >= this.cutoffOf(job.status));
		const room = Math.max(0, MAX_PENDING - belowCutoff.length);
		const kept = new Set([...belowCutoff, ...others.slice(0, room)]);
		const dropped = others.slice(room);
		for (const part of this.parts) {
			part.closeFound(dropped.filter((job) => job.status === part.status));
		}
		const statuses: AccountState['statuses'] = {};
		for (const part of this.parts) {
			const stored = part.state;
			if (stored) statuses[part.status] = stored;
		}
		this.state.statuses = statuses;
		// Oldest first, as many as a poll emits, and only while `recent` has room for those it must remember.
		const emit: DueJob[] = [];
		for (const job of due) {
			if (!kept.has(job)) continue;
			const state = this.part(job.status).state;
			if (!state) continue;
			if (emit.length < this.settings.maxItems && this.cutoff.admits(job, state)) emit.push(job);
			else (state.pending ??= []).push([job.job_id, job.updated_at]);
		}
		const maxLatest =
			this.serviceNow === undefined
				? this.localNowMs + LOCAL_CLOCK_SKEW_MS
				: this.serviceNow + DATE_RESOLUTION_MS;
		for (const job of emit) {
			const state = this.part(job.status).state;
			if (state) state.known++;
			this.cutoff.emitted(job, maxLatest);
		}
		const settled = this.parts.every((part) => part.isSettled());
		this.state.turn = this.searchTurn;
		this.cutoff.close(settled);
		if (this.others.length >= MAX_ACCOUNTS) {
			this.note(
				`the state of the least recently polled account was dropped: the last ${MAX_ACCOUNTS} accounts polled are kept`,
			);
		}
		return {
			state: storedState(this.state, this.others.slice(0, MAX_ACCOUNTS - 1)),
			emit,
			requests: this.requests,
			deferred: due.length - emit.length,
			dropped,
			settled,
			searching: this.parts.filter((part) => part.state?.scan).map((part) => part.status),
			unreadable: this.parts.filter((part) => part.unreadable).map((part) => part.status),
			notes: this.notes,
		};
	}

	/** The cutoff of `status` as the poll began (statuses found jobs in have a state). */
	private cutoffOf(status: PolledStatus): number {
		const state = this.part(status).state;
		return state ? this.cutoff.of(state) : Number.NEGATIVE_INFINITY;
	}

	private part(status: PolledStatus): StatusPoll {
		const part = this.parts.find((candidate) => candidate.status === status);
		if (!part) throw new Error(`status ${status} is not polled`);
		return part;
	}

	private note(text: string): void {
		if (this.notes.length < MAX_NOTES) this.notes.push(text);
	}
}
