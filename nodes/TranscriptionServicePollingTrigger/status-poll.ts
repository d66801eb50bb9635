// One status's part of a poll: reading its list. The first page is read every poll and tells the count; when the count
// is not explained, the search reads further pages from both ends of the list (where every time order puts new jobs)
// towards the middle, within the requests the poll gives it, and carries its position to the next poll. Positions stay
// valid while the list grows: a job not read yet can only move further from the ends. What the pages mean for the
// count — what the status owes, what a whole pass proves — is the OwedCount's (owed-count.ts).
import {
	contradictsTotal,
	ListWalk,
	readListPage,
	type ListEnd,
	type ListPage,
} from '../../src/client';
import type { Cutoff } from './cutoff';
import { listedJob, pageRequest, type DueJob, type ListRequest, type PolledStatus } from './list';
import { OwedCount, type PageClock } from './owed-count';
import type { StatusState } from './state';

export class StatusPoll {
	firstPageRead = false;
	/** Whether to read more pages this poll. */
	searching = false;
	/**
	 * An answer of this poll was not a usable list: what this status knows stays as it was (its count, its search,
	 * and — since the status is not settled — the cutoff), as after a failed request, and the next poll reads it again.
	 */
	unreadable = false;
	private readonly count: OwedCount;
	/** The search's walk over the list this poll, on the stored scan's position. */
	private walk: ListWalk | undefined;

	constructor(
		readonly status: PolledStatus,
		/** undefined when this status has no state yet (its first poll). */
		state: StatusState | undefined,
		cutoff: Cutoff,
		private readonly note: (text: string) => void,
	) {
		this.count = new OwedCount(status, state, cutoff, note);
	}

	/** undefined until the first page arrives when this status has no state yet. */
	get state(): StatusState | undefined {
		return this.count.state;
	}

	/** New jobs seen this poll (and the ones a previous poll left for this one). */
	get found(): Map<string, DueJob> {
		return this.count.found;
	}

	/** A job an earlier session of this poll found and could not keep: found again. */
	carry(job: DueJob): void {
		this.count.carry(job);
	}

	/** Every job the service counts in this status is accounted for. */
	isSettled(): boolean {
		return this.firstPageRead && !this.unreadable && this.count.isExplained();
	}

	/** A search that has read the whole list concludes without a request. */
	concludeIfWhole(): void {
		const scan = this.state?.scan;
		if (this.searching && scan && this.walk?.isWhole) this.concludePass();
	}

	/** The next search page, or undefined when the search has stopped (check `searching`). */
	searchRequest(): ListRequest | undefined {
		const scan = this.state?.scan;
		if (scan && this.walk?.isWhole) {
			this.concludePass();
			return undefined;
		}
		const read = scan ? this.walk?.next() : undefined;
		if (!read) {
			this.searching = false;
			return undefined;
		}
		return pageRequest(this.status, read);
	}

	/**
	 * The answer to `request`, as received (the rules of a list answer: src/client/pagination.ts, ListPage). A page
	 * with a job the poll cannot use is refused whole, like an answer that is not a list: skipping the job would let
	 * the count write it off as accounted for.
	 */
	apply(request: ListRequest, answer: unknown, clock: PageClock): void {
		const page = readListPage(answer, request);
		if (!page || contradictsTotal(request, page)) {
			this.refuse(
				request,
				page
					? `is a page of ${page.items.length} job(s) that contradicts its total of ${page.total}`
					: 'is not a list (no items array or no count total)',
			);
			return;
		}
		const jobs: DueJob[] = [];
		for (const raw of page.items) {
			const listed = listedJob(raw, this.status);
			if ('problem' in listed) {
				this.refuse(request, `lists ${listed.problem}`);
				return;
			}
			jobs.push(listed.job);
		}
		if (page.dropped > 0) {
			this.note(
				`status=${this.status}: the answer at cursor ${request.cursor} held ${page.items.length + page.dropped} jobs for a limit of ${request.limit}; only the first ${request.limit} were read`,
			);
		}
		if (request.kind === 'first_page') this.applyFirstPage(jobs, page.total, clock);
		else this.applySearchPage(request, request.kind, page, jobs);
	}

	/** The end of the poll: `dropped` are the found jobs it could not keep (OwedCount.closeFound). */
	closeFound(dropped: DueJob[]): void {
		this.count.closeFound(dropped, this.unreadable);
	}

	/** What this status knows stays as it was this poll, as after a failed request. */
	private refuse(request: ListRequest, what: string): void {
		this.note(
			`status=${this.status}: the answer at cursor ${request.cursor} ${what}; nothing of this status moves until a poll reads a valid answer`,
		);
		this.unreadable = true;
		this.firstPageRead = true;
		this.searching = false;
	}

	private applyFirstPage(jobs: DueJob[], total: number, clock: PageClock): void {
		this.firstPageRead = true;
		const scan = this.count.firstPage(jobs, total, clock);
		if (!scan) return;
		this.searching = true;
		// Bounded by the round's request budget (its share of the account's reads), shared with the other statuses.
		this.walk = new ListWalk(
			{ from: 'both_ends', status: this.status, maxPages: Number.POSITIVE_INFINITY },
			scan,
		);
	}

	private applySearchPage(
		request: ListRequest,
		end: ListEnd,
		page: ListPage,
		jobs: DueJob[],
	): void {
		const scan = this.state?.scan;
		if (!scan || !this.walk) return;
		const { total } = page;
		this.walk.record({ cursor: request.cursor, limit: request.limit, end }, page);
		const stop = this.walk.stop;
		if (stop?.reason === 'shrank') {
			this.count.restartShrunkScan(scan, total);
			this.searching = false;
			this.count.classifyAll(jobs);
			return;
		}
		if (stop?.reason === 'empty_page') {
			this.note(`status=${this.status}: an empty page at cursor ${stop.cursor} of ${total}`);
			this.searching = false;
		}
		if (!this.count.searchPage(jobs, total)) this.searching = false;
	}

	/** The search has read every position of the list since its pass began: the count says what that proves. */
	private concludePass(): void {
		this.searching = false;
		const scan = this.state?.scan;
		if (scan) this.count.resolveCompletePass(scan);
	}
}
