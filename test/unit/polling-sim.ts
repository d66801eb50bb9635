// A model of GET /transcriptions for the polling trigger's decision module: jobs on a service clock, a status filter,
// an offset cursor, a `total`, and any of several orders (the spec fixes none). Tests drive PollSession against it the
// way the node does, can change the list between two page requests, fail a request, and restart "n8n" (the stored
// state goes back to what n8n last saved: after an emitting poll or an activation).
import { createHash } from 'node:crypto';

import type {
	DueJob,
	ListRequest,
	PolledStatus,
} from '../../nodes/TranscriptionServicePollingTrigger/list';
import {
	PollSession,
	type PollOutcome,
	type PollSettings,
} from '../../nodes/TranscriptionServicePollingTrigger/session';
import { NewestJobSearch } from '../../nodes/TranscriptionServicePollingTrigger/newest';

export const SIM_ORDERS = ['newest_first', 'oldest_first', 'updated_first', 'scrambled'] as const;
export type SimOrder = (typeof SIM_ORDERS)[number];

export interface SimJob {
	job_id: string;
	status: string;
	createdAtMs: number;
	updatedAtMs: number;
	/** When the job first shows in the list in its current state (later than updatedAtMs for a lagging service). */
	visibleFromMs: number;
	/** The state it showed before that. */
	previous?: { status: string; updatedAtMs: number };
}

export class SimService {
	nowMs = Date.parse('2026-11-23T12:00:00.250Z');
	readonly jobs: SimJob[] = [];
	order: SimOrder = 'newest_first';
	readonly requests: ListRequest[] = [];
	/** Called before each list request is answered (to change the list between pages). */
	beforeRequest: ((request: ListRequest, index: number) => void) | undefined;
	/** Without Date headers the trigger falls back on its own clock. */
	sendsDate = true;
	/** An answer given in the list's place (a proxy garbling it); undefined keeps the list's own answer. */
	replaceAnswer:
		((request: ListRequest, page: { items: unknown[]; total: number }) => unknown) | undefined;
	private counter = 0;
	/** Bumped by every change, so an unchanged list is not sorted again for every page. */
	private version = 0;
	private cached: { key: string; jobs: SimJob[] } | undefined;

	constructor(order: SimOrder = 'newest_first') {
		this.order = order;
	}

	advance(ms: number): void {
		this.nowMs += ms;
		this.version++;
	}

	/** `count` jobs created now, one millisecond apart, in `status`. */
	create(count: number, status = 'processing'): SimJob[] {
		const created: SimJob[] = [];
		for (let index = 0; index < count; index++) {
			this.nowMs += 1;
			const job: SimJob = {
				job_id: `job_${String(++this.counter).padStart(6, '0')}`,
				status,
				createdAtMs: this.nowMs,
				updatedAtMs: this.nowMs,
				visibleFromMs: this.nowMs,
			};
			this.jobs.push(job);
			created.push(job);
		}
		this.version++;
		return created;
	}

	/** The job reaches `status` now; `lagMs` later it shows in the list (until then it shows its old state). */
	finish(job: SimJob, status: string, lagMs = 0): void {
		job.previous = { status: job.status, updatedAtMs: job.updatedAtMs };
		job.status = status;
		job.updatedAtMs = this.nowMs;
		job.visibleFromMs = this.nowMs + lagMs;
		this.version++;
	}

	/** What the list shows for a job now. */
	private shown(job: SimJob): { status: string; updatedAtMs: number } {
		if (this.nowMs >= job.visibleFromMs || !job.previous) return job;
		return job.previous;
	}

	list(request: ListRequest): { items: unknown[]; total: number; dateMs: number | undefined } {
		this.beforeRequest?.(request, this.requests.length);
		this.requests.push(request);
		const matching = this.matching(request.status);
		const items = matching.slice(request.cursor, request.cursor + request.limit).map((job) => {
			const shown = this.shown(job);
			return {
				job_id: job.job_id,
				status: shown.status,
				created_at: new Date(job.createdAtMs).toISOString(),
				updated_at: new Date(shown.updatedAtMs).toISOString(),
				media_duration_seconds: null,
				credits_used: null,
				analysis: { language: null, dialect: null },
				links: {
					self: `/api/v1/transcriptions/${job.job_id}`,
					artifact: `/api/v1/transcriptions/${job.job_id}/artifact`,
				},
			};
		});
		return {
			items,
			total: matching.length,
			dateMs: this.sendsDate ? Math.floor(this.nowMs / 1000) * 1000 : undefined,
		};
	}

	private matching(status: string): SimJob[] {
		const key = `${this.version}:${this.order}:${status}`;
		if (this.cached?.key !== key) {
			this.cached = {
				key,
				jobs: this.ordered().filter((job) => this.shown(job).status === status),
			};
		}
		return this.cached.jobs;
	}

	private ordered(): SimJob[] {
		switch (this.order) {
			case 'newest_first':
				return [...this.jobs].reverse();
			case 'oldest_first':
				return [...this.jobs];
			case 'updated_first':
				return [...this.jobs].sort((a, b) => this.shown(b).updatedAtMs - this.shown(a).updatedAtMs);
			case 'scrambled':
				return [...this.jobs].sort((a, b) => (scramble(a.job_id) < scramble(b.job_id) ? -1 : 1));
		}
	}
}

const scrambleKeys = new Map<string, string>();

function scramble(jobId: string): string {
	let key = scrambleKeys.get(jobId);
	if (key === undefined) {
		key = createHash('sha256').update(jobId).digest('hex');
		scrambleKeys.set(jobId, key);
	}
	return key;
}

export interface PollRun extends PollOutcome {
	/** The requests this poll made. */
	made: ListRequest[];
}

export interface TriggerOptions {
	statuses?: PolledStatus[];
	maxRequests?: number;
	maxItems?: number;
	account?: string;
	credential?: string;
}

/** The trigger as n8n runs it: state in memory between polls, saved when a poll emits and after an activation. */
export class SimTrigger {
	/** The static data in n8n's memory. */
	memory: unknown;
	/** The static data in n8n's database. */
	saved: unknown;
	readonly emitted: Array<DueJob & { poll: number }> = [];
	readonly polls: PollRun[] = [];

	constructor(
		readonly service: SimService,
		private options: TriggerOptions = {},
	) {}

	/** The node's parameters are edited (n8n then reactivates the workflow: call activate()). */
	reconfigure(options: TriggerOptions): void {
		this.options = { ...this.options, ...options };
	}

	settings(overrides: Partial<PollSettings> = {}): PollSettings {
		return {
			statuses: this.options.statuses ?? ['completed', 'failed'],
			maxRequests: this.options.maxRequests ?? 10,
			maxItems: this.options.maxItems ?? 100,
			account: this.options.account ?? 'acct_sim',
			credential: this.options.credential ?? 'credential-fingerprint',
			...overrides,
		};
	}

	/** Activation (first or after a restart): a poll, then n8n saves the static data whatever the poll returned. */
	activate(overrides: Partial<PollSettings> = {}): PollRun {
		const run = this.poll({ settings: overrides });
		this.saved = clone(this.memory);
		return run;
	}

	/** n8n stops and starts again: memory goes back to the database, and the workflow is activated. */
	restart(overrides: Partial<PollSettings> = {}): PollRun {
		this.memory = clone(this.saved);
		return this.activate(overrides);
	}

	/** One scheduled poll. `failAt` makes that request (0-based, within this poll) fail like a 429 past the wait. */
	poll(options: { settings?: Partial<PollSettings>; failAt?: number } = {}): PollRun {
		const session = new PollSession(
			clone(this.memory),
			this.settings(options.settings),
			this.service.nowMs,
		);
		const made: ListRequest[] = [];
		for (let request = session.next(); request; request = session.next()) {
			if (options.failAt === made.length) {
				session.interrupt();
				break;
			}
			made.push(request);
			const page = this.service.list(request);
			session.apply(request, this.service.replaceAnswer?.(request, page) ?? page, page.dateMs);
		}
		const outcome = session.finish();
		this.memory = clone(outcome.state);
		if (outcome.emit.length > 0) this.saved = clone(this.memory);
		const run = { ...outcome, made };
		this.polls.push(run);
		for (const job of outcome.emit) this.emitted.push({ ...job, poll: this.polls.length });
		return run;
	}

	/** Polls until every counted job is accounted for, or `limit` polls. */
	pollUntilSettled(limit = 50): PollRun[] {
		const runs: PollRun[] = [];
		for (let index = 0; index < limit; index++) {
			const run = this.poll();
			runs.push(run);
			if (run.settled) break;
		}
		return runs;
	}

	emittedKeys(): string[] {
		return this.emitted.map((job) => `${job.status}:${job.job_id}`);
	}
}

/** Manual mode: the newest job of the statuses, within `maxRequests`. */
export function newestJob(
	service: SimService,
	statuses: PolledStatus[],
	maxRequests: number,
): { job: DueJob | undefined; requests: number } {
	const search = new NewestJobSearch(statuses, maxRequests);
	let requests = 0;
	for (let request = search.next(); request; request = search.next()) {
		requests++;
		search.apply(request, service.list(request));
	}
	return { job: search.newest(), requests };
}

export function clone<T>(value: T): T {
	return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}
