// "Fetch Test Event" (manual mode): the job that most recently reached a selected state, as n8n's polling triggers
// return their newest record. The list's order is not specified, so each status's list is read from both ends
// towards the middle (where any time order puts its newest job first or last) within the request budget; a list that
// fits the budget is read whole, so the answer is exact there. Nothing is stored.

import {
	isValidPage,
	listedJob,
	PAGE_SIZE,
	twoEndedRequest,
	type DueJob,
	type ListPage,
	type ListRequest,
	type PolledStatus,
} from './list';

interface ListWalk {
	status: PolledStatus;
	front: number;
	back: number;
	/** undefined until the first page arrives. */
	total: number | undefined;
	side: 'front' | 'back';
	done: boolean;
}

export class NewestJobSearch {
	private readonly walks: ListWalk[];
	private requests = 0;
	private best: DueJob | undefined;

	constructor(
		statuses: readonly PolledStatus[],
		private readonly maxRequests: number,
	) {
		this.walks = statuses.map((status) => ({
			status,
			front: 0,
			back: 0,
			total: undefined,
			side: 'back',
			done: false,
		}));
	}

	next(): ListRequest | undefined {
		if (this.requests >= this.maxRequests) return undefined;
		const unread = this.walks.find((walk) => walk.total === undefined && !walk.done);
		if (unread) return { status: unread.status, cursor: 0, limit: PAGE_SIZE, kind: 'first_page' };
		for (const walk of this.walks) {
			if (walk.total !== undefined && walk.front + walk.back >= walk.total) walk.done = true;
		}
		// The list read least so far goes next: the budget is shared evenly between the statuses.
		const walk = this.walks
			.filter((candidate) => !candidate.done && candidate.total !== undefined)
			.sort((a, b) => a.front + a.back - (b.front + b.back))[0];
		if (walk?.total === undefined) return undefined;
		const side = walk.side;
		walk.side = side === 'back' ? 'front' : 'back';
		return twoEndedRequest(
			walk.status,
			{ front: walk.front, back: walk.back, total: walk.total },
			side,
		);
	}

	apply(request: ListRequest, page: ListPage): void {
		this.requests++;
		const walk = this.walks.find((candidate) => candidate.status === request.status);
		if (!walk) return;
		if (!isValidPage(page)) {
			walk.done = true;
			return;
		}
		const { total, items } = page;
		if (request.kind === 'back') walk.back = Math.max(walk.back, total - request.cursor);
		else walk.front = Math.max(walk.front, request.cursor + items.length);
		// A page that comes back empty inside the list would never move the walk on.
		if (items.length === 0 && request.cursor < total) walk.done = true;
		walk.total = total;
		for (const raw of items) {
			const job = listedJob(raw, walk.status);
			if (job && (!this.best || isNewer(job, this.best))) this.best = job;
		}
	}

	newest(): DueJob | undefined {
		return this.best;
	}
}

function isNewer(job: DueJob, than: DueJob): boolean {
	if (job.updatedAtMs !== than.updatedAtMs) return job.updatedAtMs > than.updatedAtMs;
	return job.job_id > than.job_id;
}
