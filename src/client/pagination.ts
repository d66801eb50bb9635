// Walking GET /transcriptions page by page (spec 4.5: `links.next` carries the next page's query, its cursor an
// offset). A service that hands back a cursor it already gave, or never stops, must not keep a workflow busy forever.

/** 1,000 pages of 100: 100,000 jobs, far beyond what a workflow should pull in one run. */
export const MAX_LIST_PAGES = 1000;

export type PageQuery = Record<string, string | number | boolean>;

export type NextPage =
	| { kind: 'next'; query: PageQuery }
	| { kind: 'end' }
	| { kind: 'repeated_cursor'; cursor: string; pages: number }
	| { kind: 'too_many_pages'; pages: number };

export class CursorWalk {
	private readonly seenCursors = new Set<string>();
	private pages = 0;

	constructor(private readonly maxPages = MAX_LIST_PAGES) {}

	/** After fetching the page asked for with `current`, what to fetch next given its `links.next`. */
	next(link: string | null | undefined, current: PageQuery): NextPage {
		this.pages++;
		this.seenCursors.add(String(current.cursor ?? '0'));
		if (!link) return { kind: 'end' };
		const parameters = new URL(link, 'http://link.invalid').searchParams;
		const cursor = parameters.get('cursor');
		if (cursor === null) return { kind: 'end' };
		if (this.seenCursors.has(cursor)) return { kind: 'repeated_cursor', cursor, pages: this.pages };
		if (this.pages >= this.maxPages) return { kind: 'too_many_pages', pages: this.pages };
		const query: PageQuery = { ...current };
		for (const [name, value] of parameters) query[name] = value;
		return { kind: 'next', query };
	}
}
