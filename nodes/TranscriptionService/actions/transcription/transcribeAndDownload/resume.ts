// Pause Until Webhook, the webhook() side: n8n calls it for every request to the execution's resume URL. Each
// request is verified like the trigger verifies deliveries; an event for a job this pause did not start is refused;
// the execution resumes (with Poll mode's output) only once every job has ended. It never throws: n8n would answer
// 500 and then run the rest of the workflow with an empty item.
import type { INodeExecutionData, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { isTerminalStatus } from '../../../../../src/api';
import { DEFAULT_TOLERANCE_SECONDS, isWebhookTestDelivery } from '../../../../../src/webhooks';
import { verifyDelivery } from '../../../../shared/delivery';
import type { ItemError } from '../../../../shared/errors';
import { TranscriptionServiceClient } from '../../../../shared/transport';
import { readRawBody, signingSecrets } from '../../../../shared/webhook-request';
import { collectResults } from './results';
import {
	decideAfterCheck,
	decideOnEvent,
	forgetLedger,
	ledgerOf,
	readPause,
	type EventDecision,
	type Ledger,
	type PauseRecord,
} from './ledger';

/** n8n keeps no waitTill on the webhook side; an unowned ledger is kept as long as deliveries may come. */
const UNOWNED_LEDGER_MS = 4 * 60 * 60 * 1000;

type Answer = (status: number, body: Record<string, unknown>) => void;

export async function resumeOnEvent(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const response = this.getResponseObject();
	const answer: Answer = (status, body) => {
		if (!response.headersSent) response.status(status).json(body);
	};
	try {
		return await handleEvent(this, answer);
	} catch (error) {
		this.logger.error(
			`Transcription Service: a resume request failed and the execution keeps waiting: ${(error as Error).message}`,
		);
		// 5xx: the service delivers the event again later.
		answer(500, { error: 'internal_error' });
		return { noWebhookResponse: true };
	}
}

async function handleEvent(
	context: IWebhookFunctions,
	answer: Answer,
): Promise<IWebhookResponseData> {
	const nowMs = Date.now();
	const body = await readRawBody(context.getRequestObject());
	const verified = body.ok
		? verifyDelivery({
				rawBody: body.rawBody,
				headers: context.getHeaderData(),
				secrets: await signingSecrets(context),
				toleranceSeconds: DEFAULT_TOLERANCE_SECONDS,
				nowMs,
			})
		: body.rejection;
	if (verified.action === 'reject') {
		context.logger.warn(
			`Transcription Service refused a resume request (${verified.status}): ${verified.message}`,
		);
		answer(verified.status, verified.response);
		return { noWebhookResponse: true };
	}
	const { event } = verified;
	if (isWebhookTestDelivery(event)) {
		answer(409, { error: 'not_a_job_event' });
		return { noWebhookResponse: true };
	}

	const stored = context.evaluateExpression('{{ $input.all() }}') as INodeExecutionData[];
	const records = readPause(stored, context.getNode().id);
	if (!records) {
		answer(409, { error: 'not_paused' });
		return { noWebhookResponse: true };
	}
	const executionId = context.getExecutionId();
	const ledger = ledgerOf(executionId, nowMs + UNOWNED_LEDGER_MS);
	let decision = decideOnEvent(records, ledger, event.job_id, event.status);
	switch (decision.action) {
		case 'refuse':
			context.logger.warn(
				`Transcription Service: a signed event for job ${event.job_id} reached execution ${executionId}, which did not start that job`,
			);
			answer(409, { error: 'unknown_job' });
			return { noWebhookResponse: true };
		case 'acknowledge':
			answer(200, { received: true, ignored: 'already resuming' });
			return { noWebhookResponse: true };
		case 'wait':
			answer(200, { received: true, waiting_for: decision.pending.length });
			return { noWebhookResponse: true };
	}

	// Answered before any further request: the service counts a slow answer as a failed delivery.
	answer(200, { received: true });
	const client = new TranscriptionServiceClient(context);
	if (decision.action === 'check') {
		decision = await checkPending(client, records, ledger, decision.pending);
		if (decision.action !== 'resume') return { noWebhookResponse: true };
	}
	return await resume(context, client, stored, records, ledger, executionId);
}

/** This process may have missed events (restart, another webhook processor): ask the service, once per job. */
async function checkPending(
	client: TranscriptionServiceClient,
	records: readonly PauseRecord[],
	ledger: Ledger,
	pending: readonly string[],
): Promise<EventDecision> {
	for (const jobId of pending) {
		const job = await client.getTranscription(jobId);
		if (isTerminalStatus(job.status)) ledger.terminal.set(jobId, job.status);
	}
	return decideAfterCheck(records, ledger);
}

async function resume(
	context: IWebhookFunctions,
	client: TranscriptionServiceClient,
	stored: INodeExecutionData[],
	records: readonly PauseRecord[],
	ledger: Ledger,
	executionId: string,
): Promise<IWebhookResponseData> {
	try {
		const failures = new Map<number, ItemError>();
		for (const [index, record] of records.entries()) {
			if (record.job_id === undefined) {
				failures.set(record.item, (stored[index].json as { error: ItemError }).error);
			}
		}
		const results = await collectResults(context, client, records, failures);
		forgetLedger(executionId);
		return { noWebhookResponse: true, workflowData: [results.map((result) => result.item)] };
	} catch (error) {
		// Nothing is lost: the execution keeps waiting, and a later event (or the service's repeat of one) tries again.
		ledger.resuming = false;
		context.logger.error(
			`Transcription Service: execution ${executionId} could not resume and keeps waiting: ${(error as Error).message}`,
		);
		return { noWebhookResponse: true };
	}
}
