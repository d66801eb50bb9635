// The editor's job list behind the Job field's From List mode: GET /transcriptions a page at a time, each job labelled
// with what a person recognises (the API gives no file name), and searched here because the API has no text search.
import type {
	ILoadOptionsFunctions,
	INodeListSearchItems,
	INodeListSearchResult,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { PublicTranscriptionResponse } from '../../../src/api';
import {
	DEFAULT_RETRY_POLICY,
	LIST_PAGE_SIZE,
	ListWalk,
	type RetryPolicy,
} from '../../../src/client';
import { requestListPage, requireListPage } from '../../shared/job-list';
import { TranscriptionServiceClient } from '../../shared/transport';

/**
 * Pages one search reads before it answers: 500 jobs in at most 5 read requests. Scrolling to the end of the
 * matches reads the next 500.
 */
export const SEARCH_PAGES = 5;

/** Someone is waiting in the editor: one retry, and a rate-limit window is reported rather than waited out. */
const EDITOR_RETRY_POLICY: RetryPolicy = {
	...DEFAULT_RETRY_POLICY,
	maxAttempts: 2,
	maxRateLimitWaitMs: 5_000,
};
const EDITOR_TIMEOUT_MS = 20_000;

export async function searchJobs(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const client = new TranscriptionServiceClient(this, EDITOR_RETRY_POLICY);
	const terms = searchTerms(filter);
	// One page per page of the editor's list; a search reads up to SEARCH_PAGES for its matches.
	const walk = new ListWalk({
		from: 'start',
		start: startCursor(this, paginationToken),
		maxPages: terms.length === 0 ? 1 : SEARCH_PAGES,
	});
	const found: PublicTranscriptionResponse[] = [];
	for (let read = walk.next(); read; read = walk.next()) {
		const answer = await requestListPage(client, read, { timeoutMs: EDITOR_TIMEOUT_MS });
		const page = requireListPage(this.getNode(), answer, read);
		walk.record(read, page);
		const jobs = page.items as PublicTranscriptionResponse[];
		found.push(...jobs.filter((job) => matchesSearch(job, terms)));
		if (found.length >= LIST_PAGE_SIZE) break;
	}
	// Where the next page begins, unless the list ended (no links.next, or one naming a page already read).
	return listed(found, walk.continueAt);
}

function listed(jobs: PublicTranscriptionResponse[], nextCursor?: number): INodeListSearchResult {
	const results: INodeListSearchItems[] = [...jobs]
		.sort((left, right) => createdTime(right) - createdTime(left))
		.map((job) => ({ name: jobLabel(job), value: job.job_id }));
	// n8n takes the token back as a string (its request schema refuses a number).
	return nextCursor === undefined ? { results } : { results, paginationToken: String(nextCursor) };
}

/** The token is a cursor this method handed out: an offset. */
function startCursor(context: ILoadOptionsFunctions, token: string | undefined): number {
	if (token === undefined || token === '') return 0;
	if (/^\d{1,15}$/.test(token)) return Number(token);
	throw new NodeOperationError(context.getNode(), `Unknown page of the job list: "${token}"`, {
		description: 'Close the list and open it again.',
	});
}

function createdTime(job: PublicTranscriptionResponse): number {
	const time = Date.parse(job.created_at);
	return Number.isNaN(time) ? 0 : time;
}

/**
 * What the list shows for a job: "2026-11-23 14:02 UTC · completed · 2 min 5 s · Hebrew · job_…" — when it was
 * created, its status then, and duration and language once known; the job_id last.
 */
export function jobLabel(job: PublicTranscriptionResponse): string {
	return [
		createdLabel(job.created_at),
		job.status,
		durationLabel(job.media_duration_seconds),
		languageLabel(job.analysis?.language),
		job.job_id,
	]
		.filter((part): part is string => typeof part === 'string' && part !== '')
		.join(' · ');
}

function createdLabel(createdAt: string): string {
	const time = Date.parse(createdAt);
	if (Number.isNaN(time)) return createdAt;
	return `${new Date(time).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

function durationLabel(seconds: number | null | undefined): string | undefined {
	if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0) return undefined;
	const total = Math.round(seconds);
	const hours = Math.floor(total / 3600);
	const minutes = Math.floor((total % 3600) / 60);
	if (hours > 0) return `${hours} h ${minutes} min`;
	if (minutes > 0) return `${minutes} min ${total % 60} s`;
	return `${total} s`;
}

/** "Hebrew" for "he"; the code itself where the runtime has no name for it. */
function languageLabel(code: string | null | undefined): string | undefined {
	if (typeof code !== 'string' || code.trim() === '') return undefined;
	try {
		return new Intl.DisplayNames(['en'], { type: 'language' }).of(code.trim()) ?? code;
	} catch {
		return code;
	}
}

/** The filter's words, lower-cased; a job matches when every word occurs in its label or its language codes. */
export function searchTerms(filter: string | undefined): string[] {
	return (filter ?? '')
		.toLowerCase()
		.split(/\s+/)
		.filter((term) => term !== '');
}

export function matchesSearch(job: PublicTranscriptionResponse, terms: string[]): boolean {
	if (terms.length === 0) return true;
	const text = [jobLabel(job), job.created_at, job.analysis?.language, job.analysis?.dialect]
		.filter((part): part is string => typeof part === 'string')
		.join(' ')
		.toLowerCase();
	return terms.every((term) => text.includes(term));
}
