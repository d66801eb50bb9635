// R5's pass rule (test/support/reliability/pause-faults.ts) for a Pause Until Webhook execution that ran on a
// queue-mode n8n: its node's success and error outputs, read through the main's API, judged against the sandbox's
// records; the completed items' binaries read back from n8n's database and compared with what the sandbox serves.
import type { SandboxAdmin } from '../../../sandbox/admin-client';
import { isTerminalStatus } from '../../../src/api';
import type { ArtifactFormat } from '../../../src/artifacts';
import { serviceArtifact } from '../n8n/executions';
import type { ExecutionItem, ExecutionWithData, N8nApi } from '../n8n/rest';
import { judgeOutputs, type OutputJudgement } from '../reliability/pause-faults';
import { emittedItems } from './executions';

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
}): Promise<OutputJudgement> {
	const { jobs } = await args.admin.records(args.accountId);
	if (!args.execution) {
		const stalled = jobs.filter((job) => isTerminalStatus(job.status)).map((job) => job.job_id);
		return {
			jobs: stalled.length,
			lost: [],
			duplicated: [],
			stalled,
			reasons: ['the execution never finished'],
		};
	}
	const success = emittedItems(args.execution, args.nodeName, 0);
	const errors = emittedItems(args.execution, args.nodeName, 1);
	const judged = await judgeOutputs({
		jobs,
		success,
		errors,
		artifactsProblem: async (item) => await artifactsProblem(item, args),
	});
	if (success.length + errors.length !== args.items) {
		judged.reasons.push(
			`${success.length + errors.length} output items for ${args.items} input items`,
		);
	}
	return judged;
}

/** Why a completed item's binaries are not the bytes the service serves; undefined when they are. */
async function artifactsProblem(
	item: ExecutionItem,
	args: { formats: readonly ArtifactFormat[]; api: N8nApi; sandboxBaseUrl: string; apiKey: string },
): Promise<string | undefined> {
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
