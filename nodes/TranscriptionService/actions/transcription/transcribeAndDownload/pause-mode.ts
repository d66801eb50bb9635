// Pause Until Webhook, the execute() side: every item's job is created with the execution's resume URL as its
// webhook_url, the items are stored on the execution's stack entry in the shape they must have if the wait runs
// out, and the execution is put to wait. The webhook() side (resume.ts) takes it from there.
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { isTerminalStatus } from '../../../../../src/api';
import { isLocalHost, webhookTargetProblem } from '../../../../../src/webhooks';
import { CREDENTIAL_TYPE } from '../../../../shared/credentials';
import {
	addItemContext,
	apiError,
	apiFieldsOf,
	itemErrorOf,
	operationError,
	type ItemError,
	type NodeError,
} from '../../../../shared/errors';
import type { TranscriptionServiceClient } from '../../../../shared/transport';
import type { ItemOutcome } from '../../../helpers/items';
import { maxWaitExceededError } from './job-errors';
import { ledgerOf, pausedItem, type PauseRecord } from './ledger';
import { collectResults } from './results';
import { maxWaitMs, readTranscribeItem, startJob } from './start-job';

/**
 * A job created this long before the pause may have ended before the execution was saved as waiting: its event
 * then met n8n's 409 ("running") and was not repeated, so the job's status is checked once before pausing.
 */
export const PRE_PAUSE_CHECK_AGE_MS = 3000;

/** How long a ledger outlives the wait: the service repeats a delivery for about three hours. */
const LEDGER_GRACE_MS = 4 * 60 * 60 * 1000;

/** When each item's job was created, for the check before pausing. */
const jobStartTimes = new WeakMap<IExecuteFunctions, Map<number, number>>();

/** One item's job, created with the execution's resume URL as its webhook_url; the item is its record. */
export async function startPausedJob(
	context: IExecuteFunctions,
	client: TranscriptionServiceClient,
	itemIndex: number,
): Promise<INodeExecutionData> {
	const resumeUrl = String(context.getWorkflowDataProxy(0).$execution.resumeUrl);
	// The same for every item, and said before its job exists.
	const refusal = await pauseRefusal(context, client, resumeUrl);
	if (refusal) throw refusal;
	const item = readTranscribeItem(context, itemIndex);
	const started = await startJob(context, client, itemIndex, item, {
		...item.additionalFields,
		webhook_url: resumeUrl,
	}).catch((error: unknown) => {
		throw explainRefusedResumeUrl(error, resumeUrl);
	});
	let startTimes = jobStartTimes.get(context);
	if (!startTimes) jobStartTimes.set(context, (startTimes = new Map()));
	startTimes.set(itemIndex, Date.now());
	const record: PauseRecord = {
		node_id: context.getNode().id,
		item: itemIndex,
		formats: item.formats,
		job_id: started.created.job_id,
		upload_id: started.uploadId,
		status: started.created.status,
	};
	return { json: record as unknown as IDataObject };
}

/** Once every item's job exists: pause the execution until they have all ended (or finish now if none runs). */
export async function pauseUntilWebhook(
	context: IExecuteFunctions,
	client: TranscriptionServiceClient,
	outcomes: Array<ItemOutcome<INodeExecutionData[]>>,
): Promise<INodeExecutionData[][]> {
	const node = context.getNode();
	const failures = new Map<number, ItemError>();
	const records: PauseRecord[] = outcomes.map((outcome, itemIndex) => {
		if (outcome.ok) return outcome.value[0].json as unknown as PauseRecord;
		failures.set(itemIndex, (outcome.failedItem.json as { error: ItemError }).error);
		return { node_id: node.id, item: itemIndex, formats: [] };
	});

	const startTimes = jobStartTimes.get(context);
	const pausingAt = Date.now();
	for (const record of records) {
		const age = pausingAt - (startTimes?.get(record.item) ?? pausingAt);
		if (record.job_id === undefined || isTerminalStatus(record.status ?? '')) continue;
		if (age >= PRE_PAUSE_CHECK_AGE_MS) {
			record.status = (await client.getTranscription(record.job_id, record.item)).status;
		}
	}

	const pending = records.filter(
		(record) => record.job_id !== undefined && !isTerminalStatus(record.status ?? ''),
	);
	if (pending.length === 0) {
		// Nothing to wait for (test keys end at once, or every item failed): finish as Poll mode would.
		const results = await collectResults(context, client, records, failures);
		const firstFailure = results.find((result) => !result.ok);
		if (firstFailure && !firstFailure.ok && !context.continueOnFail()) throw firstFailure.error;
		return [results.map((result) => result.item)];
	}

	const waitMs = maxWaitMs(context.getNodeParameter('options', 0, {}) as IDataObject);
	const waitTill = new Date(Date.now() + waitMs);
	// This process paused the execution: in a single n8n process every event for it arrives here.
	ledgerOf(context.getExecutionId(), waitTill.getTime() + LEDGER_GRACE_MS, true);
	const stored = records.map((record) =>
		pausedItem(record, failures.get(record.item) ?? timeoutError(context, record, waitMs)),
	);
	// n8n saves this stack entry with the waiting execution: the resume webhook reads it, and if the wait runs out
	// n8n hands these items on as they are.
	context.getExecuteData().data = { main: [stored] };
	await context.putExecutionToWait(waitTill);
	return [stored];
}

/** What an item says if n8n's wait runs out: Poll mode's max_wait_exceeded, naming the job. */
function timeoutError(context: IExecuteFunctions, record: PauseRecord, waitMs: number): ItemError {
	const jobId = record.job_id as string;
	const status = record.status ?? 'unknown';
	const ended = isTerminalStatus(status);
	const error = maxWaitExceededError(
		context.getNode(),
		{
			jobId,
			status,
			maxWaitMs: waitMs,
			uploadId: record.upload_id,
			description: ended
				? `This job had ended ("${status}"), but other jobs of this run had not when Max Wait ran out, so its transcript was not downloaded. Download it with Transcription → Download Artifact using this job_id.`
				: 'The execution was paused until Max Wait ran out without the completion event of this job. The job may still be running, or may have ended and its event been lost: check it with Transcription → Get and → Download Artifact using this job_id.',
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
	const explained = apiError(
		(error as NodeError).node,
		{
			...fields,
			message: `The service refused this n8n's resume URL ${resumeUrl} as a webhook target: ${fields.message}`,
		},
		(error as NodeError).context.itemIndex as number | undefined,
		". Set n8n's WEBHOOK_URL to its public HTTPS address (port 443) and restart n8n, or use Wait Mode: Poll. No job was started.",
	);
	return addItemContext(explained, itemErrorOf(error) ?? {});
}
