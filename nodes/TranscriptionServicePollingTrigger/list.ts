// Reading GET /transcriptions for the Polling Trigger: the statuses it polls, the requests a poll and Fetch Test
// Event make, and the jobs they take from an answer. No I/O: poll.ts makes the requests.
import { idProblem } from '../../src/api';

export const POLLED_STATUSES = ['completed', 'failed', 'cancelled'] as const;
export type PolledStatus = (typeof POLLED_STATUSES)[number];

/** The most jobs one list request may ask for (spec 4.5). */
export const PAGE_SIZE = 100;

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

export function isPolledStatus(value: unknown): value is PolledStatus {
	return typeof value === 'string' && (POLLED_STATUSES as readonly string[]).includes(value);
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

export function isCount(value: unknown): value is number {
	return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}
