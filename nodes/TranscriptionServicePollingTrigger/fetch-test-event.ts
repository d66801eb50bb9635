// "Fetch Test Event" (manual mode): the job that most recently reached a selected state, as n8n's polling triggers
// return their newest record. The list's order is not specified, so each status's list is read from both ends
// towards the middle (where any time order puts its newest job first or last) within the request budget; a list that
// fits the budget is read whole, so the answer is exact there. Nothing is stored.
import { contradictsTotal, LIST_PAGE_SIZE, ListWalk, readListPage } from '../../src/client';
import { listedJob, pageRequest, type DueJob, type ListRequest, type PolledStatus } from './list';

interface StatusWalk {
	status: PolledStatus;
	/** undefined until the first page arrives. */
	walk: ListWalk | undefined;
	/** The list answered with something that is not a list, or contradicts its own total. */
	refused: boolean;
}

export class NewestJobSearch {
	private readonly lists: StatusWalk[];
	private requests = 0;
	private best: DueJob | undefined;

	constructor(
		statuses: readonly PolledStatus[],
		private readonly maxRequests: number,
	) {
		this.lists = statuses.map((status) => ({ status, walk: undefined, refused: false }));
	}

	next(): ListRequest | undefined {
		if (this.requests >= this.maxRequests) return undefined;
		const unread = this.lists.find((list) => !list.walk && !list.refused);
		if (unread) {
			return { status: unread.status, cursor: 0, limit: LIST_PAGE_SIZE, kind: 'first_page' };
		}
		// The list read least so far goes next: the budget is shared evenly between the statuses.
		const [list] = this.lists
			.filter((candidate) => candidate.walk && !candidate.walk.isWhole && !candidate.walk.stop)
			.sort((a, b) => readSoFar(a) - readSoFar(b));
		const read = list?.walk?.next();
		if (!list || !read) return undefined;
		return pageRequest(list.status, read);
	}

	/** The answer to `request`, as received. */
	apply(request: ListRequest, answer: unknown): void {
		this.requests++;
		const list = this.lists.find((candidate) => candidate.status === request.status);
		if (!list) return;
		const page = readListPage(answer, request);
		if (!page || contradictsTotal(request, page)) {
			list.refused = true;
			return;
		}
		list.walk ??= new ListWalk(
			{ from: 'both_ends', status: list.status, maxPages: this.maxRequests },
			{ front: 0, back: 0, total: page.total },
		);
		const end = request.kind === 'back' ? 'back' : 'front';
		list.walk.record({ cursor: request.cursor, limit: request.limit, end }, page);
		// An unusable job is only skipped here: nothing is stored, and the newest usable one is still an example.
		for (const raw of page.items) {
			const listed = listedJob(raw, list.status);
			if ('job' in listed && (!this.best || isNewer(listed.job, this.best))) this.best = listed.job;
		}
	}

	newest(): DueJob | undefined {
		return this.best;
	}
}

function readSoFar(list: StatusWalk): number {
	return list.walk ? list.walk.position.front + list.walk.position.back : 0;
}

function isNewer(job: DueJob, than: DueJob): boolean {
	if (job.updatedAtMs !== than.updatedAtMs) return job.updatedAtMs > than.updatedAtMs;
	return job.job_id > than.job_id;
}
