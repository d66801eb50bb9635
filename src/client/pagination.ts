// Paging GET /transcriptions (spec 4.5: `limit` 1 to 100, `cursor` a zero-based offset, `total`, `links.next`): the page
// size, the query, the reading of an answer and the walk from page to page, for every reader of the list, each with
// its own bound in pages. Two ways to walk:
// - from the start, page after page as links.next hands them on (Get Many, the Job list search);
// - from both ends towards the middle, by offset (the Polling Trigger's search and Fetch Test Event): the list's order
//   is not specified, and in every time order new jobs sit at one end or the other.
// No I/O: the nodes make the requests.

/** The most jobs one page holds (spec 4.5). */
export const LIST_PAGE_SIZE = 100;
/** 1,000 pages of 100: 100,000 jobs, far beyond what a workflow should pull in one run. */
export const MAX_LIST_PAGES = 1000;

/** The query of one GET /transcriptions request; without a cursor, the API's default (0). */
export interface ListQuery {
	limit: number;
	cursor?: number;
	status?: string;
}

export type ListEnd = 'front' | 'back';

/** A page a walk asks for: its query, and the end of the list it reads from. */
export interface ListRead extends ListQuery {
	end: ListEnd;
}

/**
 * An answer read as a page. The rules, the same for every reader:
 * - `items` must be an array and `total` a count, or the answer is not a page (a reader leaves what it knows as it
 *   was, as for a failed request);
 * - items beyond the `limit` asked for are dropped (`dropped` counts them): the page is the first `limit`, and the
 *   positions after it are read by a later page, so a service that ignores `limit` cannot make a reader hold more
 *   than a page;
 * - `links.next` counts only when it names a cursor that is a count.
 * A reader that counts on `total` also refuses a page that contradicts it (contradictsTotal).
 */
export interface ListPage {
	items: unknown[];
	total: number;
	/** The cursor links.next names; undefined when there is no next page. */
	nextCursor: number | undefined;
	/** Items the answer held beyond the limit asked for. */
	dropped: number;
}

/** The answer to `query` as a page, or undefined when it is not a list answer. */
export function readListPage(body: unknown, query: ListQuery): ListPage | undefined {
	if (typeof body !== 'object' || body === null) return undefined;
	const { items, total, links } = body as { items?: unknown; total?: unknown; links?: unknown };
	if (!Array.isArray(items) || !isCount(total)) return undefined;
	const next =
		typeof links === 'object' && links !== null ? (links as { next?: unknown }).next : null;
	return {
		items: items.length > query.limit ? items.slice(0, query.limit) : items,
		total,
		nextCursor: typeof next === 'string' && next !== '' ? cursorOf(next) : undefined,
		dropped: Math.max(0, items.length - query.limit),
	};
}

/**
 * Whether a page contradicts its own `total`: it lists jobs at positions the total says do not exist. Which of the two
 * is wrong is unknown, so a reader that counts on `total` cannot use it. (A short or empty page inside the list is
 * taken: the spec does not promise full pages; a walk stops at an empty one.)
 */
export function contradictsTotal(query: ListQuery, page: ListPage): boolean {
	return (query.cursor ?? 0) + page.items.length > page.total;
}

/** How far a list has been read: [0, front) and its last `back` positions, of `total` when last answered. */
export interface ListPosition {
	front: number;
	back: number;
	total: number;
}

export type WalkStop =
	/** links.next names a page this walk has read: following it would never end. */
	| { reason: 'repeated_cursor'; cursor: number }
	/** An empty page inside the list: the walk would never move on. */
	| { reason: 'empty_page'; cursor: number }
	/** The list got shorter: the positions read no longer say which jobs were read. */
	| { reason: 'shrank'; from: number; to: number }
	/** The list goes on, but the walk has read the pages it may. */
	| { reason: 'page_bound'; pages: number };

export interface WalkPlan {
	from: 'start' | 'both_ends';
	/** Pages the walk may read. */
	maxPages: number;
	status?: string;
	/** Jobs per page. */
	limit?: number;
	/** The cursor of the first page of a walk from the start; without it the API's default (0) is not sent. */
	start?: number;
}

export class ListWalk {
	/** Why the walk ended before the end of the list, if it did. */
	stop: WalkStop | undefined;
	private pages = 0;
	private ended = false;
	/** The end the next page is read from (two-ended walks alternate, so a list that keeps growing cannot stall one). */
	private side: ListEnd | undefined;
	private readonly cursors = new Set<number>();

	/**
	 * `position` is where an earlier run of the same walk stopped (the Polling Trigger carries its search across polls
	 * in static data): it is updated in place.
	 */
	constructor(
		private readonly plan: WalkPlan,
		readonly position: ListPosition = { front: plan.start ?? 0, back: 0, total: 0 },
	) {}

	get pagesRead(): number {
		return this.pages;
	}

	/** Every position of the list has been read (from the start: a page without links.next). */
	get isWhole(): boolean {
		const { front, back, total } = this.position;
		return this.ended || (this.plan.from === 'both_ends' && front + back >= total);
	}

	/** Where the next page from the start would begin (the Job list search hands it to the editor). */
	get continueAt(): number | undefined {
		return this.isWhole || this.stop?.reason === 'repeated_cursor'
			? undefined
			: this.position.front;
	}

	/** The next page to read, or undefined when the walk is over (see `stop` and `isWhole`). */
	next(): ListRead | undefined {
		if (this.isWhole || this.stop) return undefined;
		if (this.pages >= this.plan.maxPages) {
			this.stop = { reason: 'page_bound', pages: this.pages };
			return undefined;
		}
		const limit = this.plan.limit ?? LIST_PAGE_SIZE;
		const { front, back, total } = this.position;
		if (this.plan.from === 'start') {
			const first = this.pages === 0 && this.plan.start === undefined;
			return this.read(first ? undefined : front, limit, 'front');
		}
		// The end read less so far first: a fresh walk probes the last page right after the first one.
		const end = this.side ?? (back < front ? 'back' : 'front');
		this.side = end === 'back' ? 'front' : 'back';
		if (end === 'front') return this.read(front, Math.min(limit, total - back - front), 'front');
		const cursor = Math.max(front, total - back - limit);
		return this.read(cursor, total - back - cursor, 'back');
	}

	/** The page read for `read` (one this walk asked for). */
	record(read: ListRead, page: ListPage): void {
		this.pages++;
		if (this.plan.from === 'start') this.followLink(read, page);
		else this.advanceEnds(read, page);
	}

	private followLink(read: ListRead, page: ListPage): void {
		this.cursors.add(read.cursor ?? 0);
		this.position.total = page.total;
		const next = page.nextCursor;
		if (next === undefined) this.ended = true;
		else if (this.cursors.has(next)) this.stop = { reason: 'repeated_cursor', cursor: next };
		else this.position.front = next;
	}

	private advanceEnds(read: ListRead, page: ListPage): void {
		const position = this.position;
		const { items, total } = page;
		const cursor = read.cursor ?? 0;
		if (total < position.total) {
			this.stop = { reason: 'shrank', from: position.total, to: total };
			return;
		}
		if (read.end === 'front') {
			if (items.length === 0 && cursor < total) this.stop = { reason: 'empty_page', cursor };
			position.front = Math.max(position.front, cursor + items.length);
		} else if (total === position.total && cursor + items.length >= total - position.back) {
			// Counted only when the list kept its length: otherwise the page may have slid past jobs not read yet.
			position.back = Math.max(position.back, total - cursor);
		}
		position.total = total;
	}

	private read(cursor: number | undefined, limit: number, end: ListEnd): ListRead {
		const read: ListRead = { limit, end };
		if (cursor !== undefined) read.cursor = cursor;
		if (this.plan.status !== undefined) read.status = this.plan.status;
		return read;
	}
}

/** The cursor a links.next URL names (an offset), or undefined when it names none. */
function cursorOf(link: string): number | undefined {
	const cursor = new URL(link, 'http://link.invalid').searchParams.get('cursor');
	return cursor !== null && /^\d{1,15}$/.test(cursor) ? Number(cursor) : undefined;
}

function isCount(value: unknown): value is number {
	return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}
