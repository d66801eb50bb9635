// Pause Until Webhook, the execute() side: every item's job is created with the execution's resume URL as its
// webhook_url; once all exist the items are stored on the execution's stack entry (pause-record.ts), the execution is
// put to wait, and this process starts its watcher (watcher.ts). The webhook() side (resume.ts) takes it from there.
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { isTerminalStatus } from '../../../../../src/api';
import { isLocalHost, webhookTargetProblem } from '../../../../../src/webhooks';
import { CREDENTIAL_TYPE } from '../../../../shared/credentials';
import {
	apiError,
	apiFieldsOf,
	itemErrorOf,
	operationError,
	type ItemContext,
	type ItemError,
	type NodeError,
} from '../../../../shared/errors';
import type { TranscriptionServiceClient } from '../../../../shared/transport';
import type { ItemOutcome } from '../../../helpers/item-loop';
import { maxWaitExceededError } from './job-errors';
import { ledgerOf } from './ledger';
import { readMaxWaitMs, readParameters } from './parameters';
import { newCheckKey, storedItem, type PauseRecord } from './pause-record';
import { collectResults } from './results';
import { startJob } from './start-job';
import { deadlineTimings, pauseTimes } from './timing';
import { watchPause } from './watcher';

/** One item's job, created with the execution's resume URL as its webhook_url: its part of the pause record. */
export type PausedItem = Required<
	Pick<PauseRecord, 'formats' | 'include_cues' | 'job_id' | 'upload_id' | 'status'>
>;

/** One item's job, created with the execution's resume URL as its webhook_url. */
export async function startPausedJob(
	context: IExecuteFunctions,
	client: TranscriptionServiceClient,
	itemIndex: number,
	created: ItemContext,
): Promise<PausedItem> {
	const resumeUrl = resumeUrlOf(context);
	// The same for every item, and said before its job exists.
	const refusal = await pauseRefusal(context, client, resumeUrl);
	if (refusal) throw refusal;
	const parameters = readParameters(context, itemIndex);
	const started = await startJob(context, client, itemIndex, parameters, created, {
		...parameters.additionalFields,
		webhook_url: resumeUrl,
	}).catch((error: unknown) => {
		throw explainRefusedResumeUrl(error, resumeUrl);
	});
	return {
		formats: parameters.formats,
		include_cues: parameters.cues,
		job_id: started.job.job_id,
		upload_id: started.uploadId,
		status: started.job.status,
	};
}

/**
 * Once every item's job exists: the execution waits until they have all ended (n8n's own timeout only as a backstop,
 * the backstop after Max Wait: deadlineTimings), or finishes now when none runs.
 */
export async function pauseUntilWebhook(
	context: IExecuteFunctions,
	client: TranscriptionServiceClient,
	outcomes: Array<ItemOutcome<PausedItem>>,
): Promise<INodeExecutionData[][]> {
	const waitMs = readMaxWaitMs(context);
	const pausedAtMs = Date.now();
	const deadlineAtMs = pausedAtMs + waitMs;
	const pause = {
		node_id: context.getNode().id,
		resume_url: resumeUrlOf(context),
		deadline_at: new Date(deadlineAtMs).toISOString(),
		paused_at: new Date(pausedAtMs).toISOString(),
		check_key: newCheckKey(),
	};
	const failures = new Map<number, ItemError>();
	const records: PauseRecord[] = outcomes.map((outcome, item) => {
		if (outcome.ok) return { ...pause, item, ...outcome.value };
		failures.set(item, (outcome.failedItem.json as { error: ItemError }).error);
		return { ...pause, item, formats: [] };
	});
	const running = (record: PauseRecord) =>
		record.job_id !== undefined && !isTerminalStatus(record.status ?? '');
	if (!records.some(running)) {
		// Nothing to wait for (test keys end at once, or every item failed): finish as Poll mode would.
		const results = await collectResults(context, client, {
			records,
			failures,
			snapshots: new Map(),
		});
		const firstFailure = results.find((result) => !result.ok);
		if (firstFailure && !firstFailure.ok && !context.continueOnFail()) throw firstFailure.error;
		return [results.map((result) => result.item)];
	}

	const { backstopMs } = deadlineTimings(records);
	const stored = records.map((record) =>
		storedItem(
			record,
			failures.get(record.item) ?? backstopError(context, record, waitMs, backstopMs),
		),
	);
	// n8n saves this stack entry with the waiting execution: every resume request reads it, and if n8n's own
	// timeout ends the wait it hands these items on as they are.
	context.getExecuteData().data = { main: [stored] };
	const times = pauseTimes(records);
	await context.putExecutionToWait(new Date(times.waitTillMs));
	watchPause({
		ledger: ledgerOf(context.getExecutionId(), times.forgetAtMs),
		records,
		role: 'pauser',
		httpRequest: context.helpers.httpRequest,
		logger: context.logger,
	});
	// A copy: n8n moves error items out of the returned lists (error output), and the stack entry must keep them.
	return [[...stored]];
}

function resumeUrlOf(context: IExecuteFunctions): string {
	return String(context.getWorkflowDataProxy(0).$execution.resumeUrl);
}

/**
 * What an item says if n8n's own timeout ends the wait. That happens only when no process was left to run the
 * deadline check at Max Wait (every n8n process that knew the paused execution restarted, and no event came after).
 */
function backstopError(
	context: IExecuteFunctions,
	record: PauseRecord,
	waitMs: number,
	backstopMs: number,
): ItemError {
	const error = maxWaitExceededError(
		context.getNode(),
		{
			jobId: record.job_id as string,
			status: record.status ?? 'unknown',
			maxWaitMs: waitMs,
			uploadId: record.upload_id,
			description: `n8n ended the wait ${backstopMs / 60_000} minutes after Max Wait without a last status check: every n8n process that knew this paused execution had restarted, and no completion event came after. The status is the one at the pause. The job may have completed since: check it with Transcription → Get and → Download Artifact using this job_id.`,
		},
		record.item,
	);
	return itemErrorOf(error) as ItemError;
}

/** Reasons the service could never resume this execution, known before starting a job. */
async function pauseRefusal(
	context: IExecuteFunctions,
	client: TranscriptionServiceClient,
	resumeUrl: string,
): Promise<NodeError | undefined> {
	const node = context.getNode();
	const credentials = await context.getCredentials(CREDENTIAL_TYPE);
	if (String(credentials.signingSecret ?? '').trim() === '') {
		return operationError(node, {
			code: 'signing_secret_missing',
			message: 'Pause Until Webhook needs the Signing Secret in the credential',
			description:
				"The execution resumes only on events signed with the account's signing secret. Add it to the Transcription Service API credential, or use Wait Mode: Poll. No job was started.",
		});
	}
	const { baseUrl } = await client.serviceSettings();
	// A service on this machine or network (the sandbox) may reach a local n8n; a public one may not.
	if (isLocalHost(new URL(baseUrl).hostname)) return undefined;
	const problem = webhookTargetProblem(resumeUrl);
	if (problem === undefined) return undefined;
	return operationError(node, {
		code: 'resume_url_not_public',
		message: `The service cannot reach this n8n's resume URL ${resumeUrl}: ${problem}`,
		description:
			"The service delivers events only to public HTTPS on port 443. Set n8n's WEBHOOK_URL to its public HTTPS address and restart n8n, or use Wait Mode: Poll. No job was started.",
	});
}

/** The service refused the resume URL when the job was created (400): say what to change. No job exists. */
function explainRefusedResumeUrl(error: unknown, resumeUrl: string): unknown {
	const fields = apiFieldsOf(error);
	if (fields?.code !== 'invalid_webhook_url' && fields?.code !== 'webhook_url_forbidden_target') {
		return error;
	}
	return apiError(
		(error as NodeError).node,
		{
			...fields,
			message: `The service refused this n8n's resume URL ${resumeUrl} as a webhook target: ${fields.message}`,
		},
		(error as NodeError).context.itemIndex as number | undefined,
		". Set n8n's WEBHOOK_URL to its public HTTPS address (port 443) and restart n8n, or use Wait Mode: Poll. No job was started.",
	);
}
