// One Pause Until Webhook batch of R5: a fresh account, N WAV items (every tenth not media, so its job fails), run in
// n8n-core's engine until it pauses (test/support/engine/waiting-harness.ts), the resume URL served by two webhook
// processors behind a front door (the queue suite's router) while the process that paused keeps its watcher; then
// judged against the sandbox's own records: every job that reached a terminal state must be output exactly once —
// completed on the success output with the bytes the service serves, failed or cancelled on the error output naming
// its job_id — and the batch resumed within 2 minutes of its last job's end.
import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

import type { SandboxAdmin } from '../../../sandbox/admin-client';
import { RESUME_WITHIN_MS } from '../../../nodes/TranscriptionService/actions/transcription/transcribeAndDownload/timing';
import { binaryBytes, binaryItem } from '../engine/harness';
import { PausedRun } from '../engine/waiting-harness';
import type { WebhookRouter } from '../n8n/webhook-router';
import { batchFiles } from '../fixtures/media';
import { JobHolder } from '../sandbox/client';
import { judgeOutputs, MAX_WAIT_SECONDS, PAUSE_FORMATS } from './pause-faults';

export function pauseParameters(): INodeParameters {
	return {
		resource: 'transcription',
		operation: 'transcribeAndDownload',
		binaryPropertyName: 'data',
		formats: [...PAUSE_FORMATS],
		waitMode: 'pauseUntilWebhook',
		options: { concurrency: 10, maxWaitSeconds: MAX_WAIT_SECONDS },
	};
}

/** `size` items named after the batch; in a batch of ten or more every tenth is not media (its job fails). */
export async function batchItems(size: number, name: string): Promise<INodeExecutionData[]> {
	return await Promise.all(
		batchFiles(size, name).map(
			async ({ fileName, data }) => await binaryItem({ data, fileName, mimeType: 'audio/wav' }),
		),
	);
}

export interface PausedBatch {
	size: number;
	accountId: string;
	apiKey: string;
	/** The account's signing secret (the newest, when a class rotates it). */
	signingSecret: string;
	run: PausedRun;
	/** Present when the batch's jobs are held from the moment they exist. */
	holder?: JobHolder;
}

export async function startPausedBatch(args: {
	admin: SandboxAdmin;
	/** Where the node sends its requests (the counting proxy before the sandbox). */
	serviceBaseUrl: string;
	size: number;
	name: string;
	holdJobs: boolean;
	/** Sets up the front door before the run starts. */
	frontDoor?: (router: WebhookRouter) => void;
}): Promise<PausedBatch> {
	const key = await args.admin.createKey({ mode: 'live', tier: 'platinum' });
	const holder = args.holdJobs ? new JobHolder(args.admin, key.account_id) : undefined;
	const run = await PausedRun.start({
		parameters: pauseParameters(),
		input: await batchItems(args.size, args.name),
		credentials: {
			apiKey: key.key,
			baseUrl: args.serviceBaseUrl,
			signingSecret: key.signing_secret as string,
		},
		onError: 'continueErrorOutput',
		processors: 2,
		frontDoor: args.frontDoor ?? true,
	});
	if (holder) await holder.stop();
	return {
		size: args.size,
		accountId: key.account_id,
		apiKey: key.key,
		signingSecret: key.signing_secret as string,
		run,
		holder,
	};
}

export interface BatchOutcome {
	/** Jobs of the batch that reached a terminal state at the service. */
	jobs: number;
	lost: string[];
	duplicated: string[];
	stalled: string[];
	/**
	 * Second resumes, by what asked for them (a service event or the node's own check): a second process collected the
	 * results and handed them to n8n, which refused them (n8n 2.x resumes a waiting execution once). Nothing is output
	 * twice, but every artifact was downloaded again.
	 */
	secondResumes: { event: number; check: number };
	/** From the last job's end to the resume's answer (undefined when no request resumed it). */
	resumedAfterMs: number | undefined;
	/** Why each lost job counts as lost. */
	reasons: string[];
}

/**
 * Waits for the batch to finish, `boundMs` at most; one that has not is ended by n8n's own timeout, so its items say
 * max_wait_exceeded (its jobs stalled).
 */
export async function settleBatch(batch: PausedBatch, boundMs: number): Promise<void> {
	const { run } = batch;
	let timer: NodeJS.Timeout | undefined;
	const finished = await Promise.race([
		run.finished().then(() => true),
		new Promise<boolean>((resolve) => {
			timer = setTimeout(() => resolve(false), boundMs);
		}),
	]);
	clearTimeout(timer);
	if (!finished && run.status === 'waiting') await run.timeout();
}

/**
 * Every terminal job of the account (the sandbox's records) must be output exactly once, as the service has it:
 * completed → success output with each format's bytes as `sandboxBaseUrl` serves them (read with the faults cleared);
 * failed → error output naming its job_id (job_failed). Every input item must have exactly one output item.
 */
export async function judgeBatch(
	batch: PausedBatch,
	admin: SandboxAdmin,
	sandboxBaseUrl: string,
): Promise<BatchOutcome> {
	const { run } = batch;
	const [success = [], errors = []] = run.outputs();
	const { jobs } = await admin.records(batch.accountId);
	const judged = await judgeOutputs({
		jobs,
		success,
		errors,
		artifactsProblem: async (item) => await artifactsProblem(item, sandboxBaseUrl, batch.apiKey),
	});
	const reasons = [...judged.reasons];
	const stalled = new Set(judged.stalled);
	// Resumed (the claim's answer) more than RESUME_WITHIN_MS after the last job ended: every job of the batch waited too
	// long, as stalled.
	const lastEndMs = Math.max(...jobs.map((job) => Date.parse(job.updated_at)));
	const resumedBy = run.calls.find((call) => call.resumed);
	const resumedAfterMs = resumedBy
		? (resumedBy.answeredAtMs ?? resumedBy.receivedAtMs) - lastEndMs
		: undefined;
	if (resumedAfterMs !== undefined && resumedAfterMs > RESUME_WITHIN_MS) {
		reasons.push(
			`batch of ${batch.size} resumed ${Math.round(resumedAfterMs / 1000)} s after its last job ended`,
		);
		for (const job of jobs) stalled.add(job.job_id);
	}
	const outputsPerItem = new Map<number, number>();
	for (const item of [...success, ...errors]) {
		const index = (item.pairedItem as { item: number }).item;
		outputsPerItem.set(index, (outputsPerItem.get(index) ?? 0) + 1);
	}
	const itemsWithoutOneOutput = Array.from({ length: batch.size }, (_, index) => index).filter(
		(index) => outputsPerItem.get(index) !== 1,
	);
	if (itemsWithoutOneOutput.length > 0) {
		reasons.push(`input items without exactly one output: ${itemsWithoutOneOutput.join(', ')}`);
	}
	const otherErrors = run.errors.filter((error) => !/resumed twice/.test(error.message));
	for (const error of otherErrors) reasons.push(`serving a request failed: ${error.message}`);
	const second = run.calls.filter((call) => call.secondResume);
	return {
		jobs: judged.jobs,
		lost: judged.lost,
		duplicated: judged.duplicated,
		stalled: [...stalled],
		resumedAfterMs,
		secondResumes: {
			event: second.filter((call) => call.kind === 'event').length,
			check: second.filter((call) => call.kind === 'check').length,
		},
		reasons,
	};
}

/** Why a completed item's artifacts are not the bytes the service serves; undefined when they are. */
async function artifactsProblem(
	item: INodeExecutionData,
	sandboxBaseUrl: string,
	apiKey: string,
): Promise<string | undefined> {
	for (const format of PAUSE_FORMATS) {
		const binary = item.binary?.[format];
		if (!binary) return `no ${format} binary`;
		const served = await servedArtifact(sandboxBaseUrl, apiKey, String(item.json.job_id), format);
		if (!(await binaryBytes(binary)).equals(served))
			return `${format} bytes differ from the service's`;
	}
	return undefined;
}

/** The artifact as the service serves it, read straight from the sandbox (no proxy, faults cleared). */
export async function servedArtifact(
	sandboxBaseUrl: string,
	apiKey: string,
	jobId: string,
	format: string,
): Promise<Buffer> {
	const response = await fetch(
		`${sandboxBaseUrl}/api/v1/transcriptions/${encodeURIComponent(jobId)}/artifact.${format}`,
		{ headers: { authorization: `Bearer ${apiKey}` } },
	);
	if (!response.ok) throw new Error(`artifact ${jobId}.${format} → ${response.status}`);
	return Buffer.from(await response.arrayBuffer());
}
