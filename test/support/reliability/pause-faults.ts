// R5's Pause Until Webhook batch settings (formats, Max Wait), the sandbox fault rules it injects on the node's
// service calls, and how those are counted afterwards from the counting proxy's records (what answered in the
// service's place), never from the code under test. Shared by the engine matrix (test/reliability) and its CI profile
// on real n8n (test/queue).
import type { Exchange } from '../sandbox/counting-proxy';
import type { FaultRule } from '../../../sandbox/faults';
import { isTerminalStatus } from '../../../src/api';

export const PAUSE_FORMATS = ['srt', 'txt'] as const;
/** Long enough that no healthy run reaches it: a job output as max_wait_exceeded is a stall. */
export const MAX_WAIT_SECONDS = 1800;

/** A tenth of the requests on the faulted routes: a call's five attempts all failing is then ~1 in 100,000. */
export const FAULT_SHARE = 0.1;

export const STATUS_READ = /^\/api\/v1\/transcriptions\/[^/?]+(\?.*)?$/;
export const DOWNLOAD = /^\/api\/v1\/transcriptions\/[^/?]+\/artifact/;

export const ARTIFACT_ROUTES: FaultRule['route'][] = [
	'getTranscriptionArtifact',
	'getTranscriptionArtifactByExtension',
];

/**
 * On each route: its first two requests (so that even a quick run meets the fault), then `probability` of the rest.
 * Two in a row stay below a call's five attempts.
 */
export const rules = (
	routes: FaultRule['route'][],
	kind: FaultRule['kind'],
	probability = FAULT_SHARE,
) =>
	routes.flatMap((route): FaultRule[] => [
		{ route, kind, count: 2 },
		{ route, kind, probability },
	]);

/** Answers of `status` (or no answer) on requests whose path matches `path`. */
export function answered(exchanges: Exchange[], path: RegExp, status: Exchange['status']): number {
	return exchanges.filter(
		(exchange) =>
			exchange.method === 'GET' && path.test(exchange.url) && exchange.status === status,
	).length;
}

/** The item error of a job that ended without a transcript, by its status. */
const ERROR_OF: Record<string, string> = { failed: 'job_failed', cancelled: 'job_cancelled' };

/** What R5's pass rule found in a paused batch's outputs. */
export interface OutputJudgement {
	/** Jobs of the account that reached a terminal state at the service. */
	jobs: number;
	lost: string[];
	duplicated: string[];
	stalled: string[];
	/** Why each lost job counts as lost, and anything else that breaks the rule. */
	reasons: string[];
}

/**
 * R5's pass rule: every terminal job of the account (the sandbox's records) is output exactly once, as the service
 * has it — completed on the success output (`artifactsProblem` compares its bytes with the service's), failed or
 * cancelled on the error output naming its job_id (job_failed, job_cancelled). A job output as max_wait_exceeded
 * stalled.
 */
export async function judgeOutputs<Item extends { json: Record<string, unknown> }>(args: {
	jobs: ReadonlyArray<{ job_id: string; status: string }>;
	success: readonly Item[];
	errors: readonly Item[];
	/** Why a completed item's artifacts are not the service's; undefined when they are. */
	artifactsProblem: (item: Item) => Promise<string | undefined>;
}): Promise<OutputJudgement> {
	const terminal = new Map(
		args.jobs.filter((job) => isTerminalStatus(job.status)).map((job) => [job.job_id, job.status]),
	);
	const delivered = new Map<string, number>();
	const stalled = new Set<string>();
	const reasons: string[] = [];
	const deliver = (jobId: string) => delivered.set(jobId, (delivered.get(jobId) ?? 0) + 1);

	for (const item of args.success) {
		const jobId = String(item.json.job_id);
		const status = terminal.get(jobId);
		const problem =
			status !== 'completed'
				? `success output for a ${status ?? 'unknown'} job`
				: item.json.status !== 'completed'
					? `success output with status ${String(item.json.status)}`
					: await args.artifactsProblem(item);
		if (problem) reasons.push(`${jobId}: ${problem}`);
		else deliver(jobId);
	}
	for (const item of args.errors) {
		const error = (item.json.error ?? {}) as { code?: string; job_id?: string };
		const jobId = String(error.job_id);
		if (error.code === 'max_wait_exceeded') stalled.add(jobId);
		else if (error.code !== undefined && error.code === ERROR_OF[terminal.get(jobId) ?? ''])
			deliver(jobId);
		else reasons.push(`${jobId}: error output ${error.code} for a ${terminal.get(jobId)} job`);
	}

	const lost: string[] = [];
	const duplicated: string[] = [];
	for (const jobId of terminal.keys()) {
		const outputs = delivered.get(jobId) ?? 0;
		if (outputs === 0 && !stalled.has(jobId)) lost.push(jobId);
		for (let extra = 1; extra < outputs; extra++) duplicated.push(jobId);
	}
	return {
		jobs: terminal.size,
		lost,
		duplicated,
		stalled: [...stalled].filter((jobId) => terminal.has(jobId)),
		reasons,
	};
}
