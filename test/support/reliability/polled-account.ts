// One Polling Trigger class of R5: a sandbox of its own (its clock driven by the test, so minutes of polling take
// seconds), an account with a history of jobs, and the trigger's real poll() in n8n-core's PollContext
// (test/support/engine/polling-harness.ts) reading it through a proxy that answers list requests in the service's
// place while the class's fault is on. A timeline of minutes — jobs ending, the clock moving on, a poll — healthy, then
// through the fault (longer than the trigger's 10-minute overlap), then healthy until the trigger has caught up; the
// emissions are then judged against the sandbox's own records. The loads and the first activation at the documented
// bounds are polled-load.ts's and polled-activation.ts's.
import type { IncomingMessage } from 'node:http';

import type { INodeExecutionData } from 'n8n-workflow';

import { SandboxAdmin } from '../../../sandbox/admin-client';
import type { ListOrder } from '../../../sandbox/list-order';
import { startSandbox, type RunningSandbox } from '../../../sandbox/server';
import {
	binaryBytes,
	startRecordingProxy,
	type ProxyReply,
	type RecordingProxy,
} from '../engine/harness';
import { PollingTriggerUnderTest } from '../engine/polling-harness';
import { servedArtifact } from './paused-batch';

const MINUTE_SECONDS = 60;
/** Jobs listed before the activation: the first page is not the whole list, and none of them may be emitted. */
const HISTORY_JOBS = 250;
const PAGE_LIMIT = 100;

/** A list request as the proxy sees it. */
export interface ListCall {
	status: string;
	cursor: number;
	limit: number;
}

export interface PolledAccountOptions {
	seed: number;
	listOrder?: ListOrder;
	/** While the fault is on: the answer to a list request in the service's place, or undefined to pass it on. */
	answer?: (call: ListCall, account: PolledAccount) => unknown;
	/** Download Artifact (on unless told). */
	downloadArtifact?: boolean;
}

export class PolledAccount {
	/** Faults the test made: answers given in the service's place, polls not run, keys revoked or rotated … */
	faults = 0;
	faultOn = false;
	/** Jobs that ended after the activation (created by the test), by job_id. */
	readonly ended = new Set<string>();
	/** Polls n8n ran (a poll not run while n8n was down is not counted). */
	polls = 0;
	/** Polls run since the fault began, this one included (0 before it). */
	pollsIntoFault = 0;
	/** The current key of the credential. */
	key: string;
	/** The full list of each status as the sandbox has it, read before each poll while a fault needs it. */
	lists = new Map<string, unknown[]>();
	/** Whether the trigger downloads artifacts (judge compares their bytes). */
	private downloads = true;

	private constructor(
		readonly sandbox: RunningSandbox,
		readonly admin: SandboxAdmin,
		readonly proxy: RecordingProxy,
		readonly trigger: PollingTriggerUnderTest,
		readonly accountId: string,
		firstKey: string,
		/** A key of the account the test reads with (never revoked): lists for the faults, artifacts to compare. */
		private readonly observerKey: string,
	) {
		this.key = firstKey;
	}

	static async start(options: PolledAccountOptions): Promise<PolledAccount> {
		const sandbox = await startSandbox({
			port: 0,
			quiet: true,
			seed: options.seed,
			rateLimits: { windowSeconds: 2, perTier: { platinum: 10_000, premium: 10_000 } },
		});
		const admin = new SandboxAdmin(sandbox.baseUrl);
		if (options.listOrder) await admin.setListOrder(options.listOrder);
		const key = await admin.createKey({ mode: 'live', tier: 'platinum' });
		// The proxy starts before the account exists: it answers in the service's place once the account is made.
		const made: { account?: PolledAccount } = {};
		const proxy = await startRecordingProxy(sandbox.baseUrl, (incoming) =>
			made.account && options.answer
				? made.account.answerInPlace(incoming, options.answer)
				: undefined,
		);
		const trigger = await PollingTriggerUnderTest.start({
			parameters: {
				events: ['transcription.completed', 'transcription.failed'],
				downloadArtifact: options.downloadArtifact ?? true,
				artifactFormat: 'srt',
				binaryPropertyName: 'data',
			},
			credentials: { apiKey: key.key, baseUrl: proxy.baseUrl },
		});
		const observer = await admin.createKey({ account_id: key.account_id });
		const account = new PolledAccount(
			sandbox,
			admin,
			proxy,
			trigger,
			key.account_id,
			key.key,
			observer.key,
		);
		made.account = account;
		account.downloads = options.downloadArtifact ?? true;
		await admin.seedJobs({ account_id: key.account_id, count: HISTORY_JOBS });
		await admin.seedJobs({ account_id: key.account_id, count: 20, status: 'failed' });
		// An hour of history: none of it within seconds of the activation.
		await admin.advanceClock(3600);
		await trigger.activate();
		// Past the second the activation started from, which its own class covers.
		await admin.advanceClock(5);
		return account;
	}

	/** `count` jobs end now, every fourth one failed. */
	async endJobs(count: number): Promise<void> {
		const failed = Math.floor(count / 4);
		for (const [status, n] of [
			['completed', count - failed],
			['failed', failed],
		] as const) {
			if (n === 0) continue;
			const { job_ids } = await this.admin.seedJobs({
				account_id: this.accountId,
				count: n,
				status,
			});
			for (const jobId of job_ids) this.ended.add(jobId);
		}
	}

	/** A job that ended after many newer ones: started now, held, ended by `end()` later. */
	async longJob(): Promise<{ end(): Promise<void> }> {
		const { job_ids } = await this.admin.seedJobs({
			account_id: this.accountId,
			count: 1,
			status: 'processing',
			held: true,
		});
		return {
			end: async () => {
				await this.admin.completeJob(job_ids[0]);
				this.ended.add(job_ids[0]);
			},
		};
	}

	/** A minute passes on the service's clock; n8n polls unless it is down. */
	async minute(options: { n8nDown?: boolean } = {}): Promise<INodeExecutionData[] | null> {
		await this.admin.advanceClock(MINUTE_SECONDS);
		if (options.n8nDown) return null;
		if (this.faultOn) {
			await this.readLists();
			this.pollsIntoFault++;
		}
		this.polls++;
		const items = await this.trigger.poll();
		return items;
	}

	/** n8n starts again: what it held in memory is gone, the workflow is activated from the static data it saved. */
	async restartN8n(): Promise<void> {
		await this.admin.advanceClock(MINUTE_SECONDS);
		this.polls++;
		await this.trigger.restart();
	}

	/** The credential gets another key (n8n reads it afresh at the next poll). */
	useKey(key: string): void {
		this.key = key;
		this.trigger.editCredentials({ apiKey: key, baseUrl: this.proxy.baseUrl });
	}

	/**
	 * Polls on, a minute apart, until every ended job was emitted and two polls in a row emitted nothing, `maxPolls` at
	 * most: the trigger has caught up, or what it has not emitted by then is stalled or lost.
	 */
	async catchUp(maxPolls: number): Promise<void> {
		let quiet = 0;
		for (let poll = 0; poll < maxPolls && quiet < 2; poll++) {
			const emitted = await this.minute();
			const emittedIds = this.emittedIds();
			const everything = [...this.ended].every((jobId) => emittedIds.has(jobId));
			quiet = emitted === null && everything ? quiet + 1 : 0;
		}
	}

	async close(): Promise<void> {
		await this.proxy.close();
		await this.sandbox.close();
	}

	/**
	 * Each ended job emitted once: completed with the SRT bytes the service serves, failed as a transcription.failed
	 * item naming its job_id. Not emitted: stalled while the trigger still searches for it or holds it for a later
	 * poll, otherwise lost.
	 */
	async judge(): Promise<{
		jobs: number;
		lost: string[];
		duplicated: string[];
		stalled: string[];
		reasons: string[];
	}> {
		const records = await this.admin.records(this.accountId);
		const statusOf = new Map(records.jobs.map((job) => [job.job_id, job.status]));
		const emitted = new Map<string, INodeExecutionData[]>();
		for (const item of this.trigger.items()) {
			const jobId = String(item.json.job_id);
			emitted.set(jobId, [...(emitted.get(jobId) ?? []), item]);
		}
		const reasons: string[] = [];
		const lost: string[] = [];
		const stalled: string[] = [];
		const duplicated: string[] = [];
		const state = this.trigger.storedState();
		const stillOwed = Object.values(state?.statuses ?? {}).some(
			(status) => status?.scan !== undefined || (status?.pending?.length ?? 0) > 0,
		);
		for (const [jobId, items] of emitted) {
			if (!this.ended.has(jobId))
				reasons.push(`${jobId}: emitted, but it ended before the activation`);
			for (let extra = 1; extra < items.length; extra++) duplicated.push(jobId);
		}
		for (const jobId of this.ended) {
			const [item] = emitted.get(jobId) ?? [];
			if (!item) {
				(stillOwed ? stalled : lost).push(jobId);
				continue;
			}
			const problem = await this.itemProblem(item, statusOf.get(jobId));
			if (problem) {
				lost.push(jobId);
				reasons.push(`${jobId}: ${problem}`);
			}
		}
		return { jobs: this.ended.size, lost, duplicated, stalled, reasons };
	}

	private emittedIds(): Set<string> {
		return new Set(this.trigger.items().map((item) => String(item.json.job_id)));
	}

	private async itemProblem(
		item: INodeExecutionData,
		status: string | undefined,
	): Promise<string | undefined> {
		if (item.json.status !== status)
			return `emitted as ${String(item.json.status)}, the job is ${status}`;
		if (item.json.event !== `transcription.${status}`) return `event ${String(item.json.event)}`;
		if (status !== 'completed' || !this.downloads) return undefined;
		const binary = item.binary?.data;
		if (!binary) return `no transcript (${JSON.stringify(item.json.artifact_error ?? null)})`;
		const served = await servedArtifact(
			this.sandbox.baseUrl,
			this.key,
			String(item.json.job_id),
			'srt',
		);
		return (await binaryBytes(binary)).equals(served)
			? undefined
			: 'SRT bytes differ from the service’s';
	}

	/** Reads each polled status's whole list from the sandbox (the fault's answers are built from it). */
	private async readLists(): Promise<void> {
		for (const status of ['completed', 'failed']) {
			const items: unknown[] = [];
			for (let cursor = 0; ; cursor += PAGE_LIMIT) {
				const response = await fetch(
					`${this.sandbox.baseUrl}/api/v1/transcriptions?status=${status}&limit=${PAGE_LIMIT}&cursor=${cursor}`,
					{ headers: { authorization: `Bearer ${this.observerKey}` } },
				);
				const page = (await response.json()) as { items: unknown[]; total: number };
				items.push(...page.items);
				if (items.length >= page.total || page.items.length === 0) break;
			}
			this.lists.set(status, items);
		}
	}

	private answerInPlace(
		incoming: IncomingMessage,
		answer: NonNullable<PolledAccountOptions['answer']>,
	): ProxyReply | undefined {
		if (!this.faultOn) return undefined;
		const url = new URL(incoming.url ?? '/', 'http://proxy.invalid');
		if (incoming.method !== 'GET' || url.pathname !== '/api/v1/transcriptions') return undefined;
		const call: ListCall = {
			status: url.searchParams.get('status') ?? '',
			cursor: Number(url.searchParams.get('cursor') ?? 0),
			limit: Number(url.searchParams.get('limit') ?? 20),
		};
		const body = answer(call, this);
		if (body === undefined) return undefined;
		this.faults++;
		const headers = {
			'content-type': 'application/json',
			date: new Date(this.sandbox.clock.now()).toUTCString(),
		};
		if (body instanceof ServiceError) {
			return { status: body.status, headers, body: JSON.stringify(body.envelope) };
		}
		return { status: 200, headers, body: JSON.stringify(body) };
	}
}

/** An error answer given in the service's place (spec 2.7's envelope). */
export class ServiceError {
	readonly envelope: unknown;

	constructor(
		readonly status: number,
		message: string,
	) {
		this.envelope = {
			error: { code: 'service_unavailable', message, request_id: null, details: {} },
		};
	}
}

/** The list answer the sandbox would give for `call`, from the whole list read before the poll. */
export function listAnswer(
	call: ListCall,
	account: PolledAccount,
	items = account.lists.get(call.status) ?? [],
): { items: unknown[]; total: number; links: Record<string, string | null> } {
	return {
		items: items.slice(call.cursor, call.cursor + call.limit),
		total: items.length,
		links: { self: `/api/v1/transcriptions?cursor=${call.cursor}`, next: null, prev: null },
	};
}
