// R5's pass rule for a Pause Until Webhook execution that ran on a queue-mode n8n: every job of the account that
// reached a terminal state (the sandbox's own records) is output exactly once as the service has it — completed on
// the success output with each format's bytes as the sandbox serves them, failed on the error output naming its
// job_id — and every input item has exactly one output item. A job output as max_wait_exceeded stalled.
import type { SandboxAdmin } from '../../../sandbox/admin-client';
import type { ArtifactFormat } from '../../../src/artifacts';
import { serviceArtifact } from '../n8n/executions';
import type { ExecutionItem, ExecutionWithData, N8nApi } from '../n8n/rest';
import { TERMINAL } from '../reliability/pause-faults';
import { emittedItems } from './executions';

export interface PausedOutcome {
	/** Jobs of the account that reached a terminal state at the service. */
	jobs: number;
	lost: string[];
	duplicated: string[];
	stalled: string[];
	/** Why each lost job counts as lost, and anything else that breaks the rule. */
	reasons: string[];
}

export async function judgePausedExecution(args: {
	/** The finished execution, or undefined when it never finished (every terminal job then stalled). */
	execution: ExecutionWithData | undefined;
	nodeName: string;
	items: number;
	formats: readonly ArtifactFormat[];
	api: N8nApi;
	admin: SandboxAdmin;
	accountId: string;
	/** The sandbox itself (faults cleared), to read the artifacts as the service serves them. */
	sandboxBaseUrl: string;
	apiKey: string;
}): Promise<PausedOutcome> {
	const records = await args.admin.records(args.accountId);
	const terminal = new Map(
		records.jobs.filter((job) => TERMINAL.has(job.status)).map((job) => [job.job_id, job.status]),
	);
	if (!args.execution) {
		return {
			jobs: terminal.size,
			lost: [],
			duplicated: [],
			stalled: [...terminal.keys()],
			reasons: ['the execution never finished'],
		};
	}
	const success = emittedItems(args.execution, args.nodeName, 0);
	const errors = emittedItems(args.execution, args.nodeName, 1);
	const delivered = new Map<string, number>();
	const stalled = new Set<string>();
	const reasons: string[] = [];
	const deliver = (jobId: string) => delivered.set(jobId, (delivered.get(jobId) ?? 0) + 1);

	for (const item of success) {
		const jobId = String(item.json.job_id);
		const problem = await completedItemProblem(item, terminal.get(jobId), args);
		if (problem) reasons.push(`${jobId}: ${problem}`);
		else deliver(jobId);
	}
	for (const item of errors) {
		const error = (item.json.error ?? {}) as { code?: string; job_id?: string };
		const jobId = String(error.job_id);
		if (error.code === 'max_wait_exceeded') stalled.add(jobId);
		else if (error.code === 'job_failed' && terminal.get(jobId) === 'failed') deliver(jobId);
		else reasons.push(`${jobId}: error output ${error.code} for a ${terminal.get(jobId)} job`);
	}
	if (success.length + errors.length !== args.items) {
		reasons.push(`${success.length + errors.length} output items for ${args.items} input items`);
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

/** Why a success-output item is not its completed job as the service serves it; undefined when it is. */
async function completedItemProblem(
	item: ExecutionItem,
	jobStatus: string | undefined,
	args: { formats: readonly ArtifactFormat[]; api: N8nApi; sandboxBaseUrl: string; apiKey: string },
): Promise<string | undefined> {
	if (jobStatus !== 'completed') return `success output for a ${jobStatus ?? 'unknown'} job`;
	if (item.json.status !== 'completed')
		return `success output with status ${String(item.json.status)}`;
	for (const format of args.formats) {
		const binary = item.binary?.[format];
		if (!binary) return `no ${format} binary`;
		const stored = await args.api.binaryData(binary);
		const served = await serviceArtifact(
			args.sandboxBaseUrl,
			args.apiKey,
			String(item.json.job_id),
			format,
		);
		if (!stored.equals(served)) return `${format} bytes differ from the service's`;
	}
	return undefined;
}
