// What the Polling Trigger reads from GET /transcriptions: the statuses it polls (the terminal ones), its requests
// (the paging itself is src/client/pagination.ts), and the jobs it takes from an answer.
import { idProblem, TERMINAL_STATUSES, type TerminalStatus } from '../../src/api';
import type { ListEnd, ListRead } from '../../src/client';

export const POLLED_STATUSES = TERMINAL_STATUSES;
export type PolledStatus = TerminalStatus;

/** A poll's list request: the first page of a status (read every poll), or a page of its search. */
export interface ListRequest {
	status: PolledStatus;
	cursor: number;
	limit: number;
	kind: 'first_page' | ListEnd;
}

/** The request for a page a walk over `status`'s list asks for. */
export function pageRequest(status: PolledStatus, read: ListRead): ListRequest {
	return { status, cursor: read.cursor ?? 0, limit: read.limit, kind: read.end };
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

/** A listed job of `status` with what the poll needs, or what makes it unusable (which job, which field). */
export function listedJob(
	raw: unknown,
	status: PolledStatus,
): { job: DueJob } | { problem: string } {
	if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
		return { problem: `an item that is not a job (${shown(raw)})` };
	}
	const { job_id, status: listedStatus, updated_at } = raw as Record<string, unknown>;
	// Ids travel as one path segment (links, the artifact download): nothing that could change the path.
	if (typeof job_id !== 'string' || idProblem(job_id) !== undefined) {
		return { problem: `a job with job_id ${shown(job_id)}` };
	}
	if (listedStatus !== status)
		return { problem: `job ${job_id} with status ${shown(listedStatus)}` };
	const updatedAtMs = typeof updated_at === 'string' ? Date.parse(updated_at) : Number.NaN;
	if (typeof updated_at !== 'string' || !Number.isFinite(updatedAtMs)) {
		return { problem: `job ${job_id} with updated_at ${shown(updated_at)}` };
	}
	return { job: { job_id, status, updated_at, updatedAtMs } };
}

/** A listed value as a log shows it: JSON, cut short (the answer is the service's, of any size). */
function shown(value: unknown): string {
	return (JSON.stringify(value) ?? 'undefined').slice(0, 80);
}
