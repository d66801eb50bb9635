// Pause Until Webhook, the webhook() side: n8n calls it for every request to the paused execution's resume URL — the
// service's signed events and this pack's signed checks (watcher.ts). Per request, one decision procedure
// (decision.ts), run one request at a time per execution in this process:
// - an event records its job as ended; an event for a job this pause did not start, or a test delivery: 409;
// - the jobs this process does not know to have ended are read, older first, stopping at the first one still running
//   (a deadline check reads them all, over as many tries as the rate limit takes, each going on where the last one
//   stopped); what ended is remembered with its snapshot;
// - every read happens before the answer: a read that fails, or reads that would make the answer late, answer 503
//   and claim nothing (the service delivers the event again; a check tries again later): the request is to be tried
//   again;
// - a job still running: 200, waiting; every job ended: the resume is claimed, the answer goes out at once, then the
//   results are collected and handed to n8n — except that a check leaves a recent end to its event for a while
//   (decision.ts, checkResumesFrom): 200, settling.
// It never throws: n8n would answer 500 and then run the rest of the workflow with an empty item.
import type {
	IDataObject,
	INodeExecutionData,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import type { PublicTranscriptionResponse as JobSnapshot } from '../../../../../src/api';
import {
	isPauseCheck,
	PAUSE_CHECK_ANSWER_KEY,
	type PauseCheckAnswer,
} from '../../../../../src/webhooks';
import { CREDENTIAL_TYPE } from '../../../../shared/credentials';
import type { ItemError } from '../../../../shared/errors';
import { TranscriptionServiceClient } from '../../../../shared/transport';
import {
	hearEvent,
	jobsToRead,
	knownSnapshots,
	learnSnapshot,
	verdict,
	type PauseRequest,
	type Verdict,
} from './decision';
import { forgetLedger, ledgerOf, serialised, type Ledger } from './ledger';
import { maxWaitMsOf, readPause, storedError, type PauseRecord } from './pause-record';
import { collectResults } from './results';
import {
	CHECK_LIMITS,
	CHECK_READ_POLICY,
	DEADLINE_SKEW_MS,
	EVENT_LIMITS,
	EVENT_READ_POLICY,
	pauseTimes,
} from './timing';
import { verifyRequest } from './verified-request';
import { watchPause } from './watcher';

type Answer = (status: number, body: IDataObject) => void;
/** An answer that is the same for an event and a check; a check's also says `outcome` (PAUSE_CHECK_ANSWER_KEY). */
type Reply = (status: number, body: IDataObject, outcome: PauseCheckAnswer) => void;

export async function resumeOnRequest(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const receivedAtMs = Date.now();
	const response = this.getResponseObject();
	const answer: Answer = (status, body) => {
		if (!response.headersSent) response.status(status).json(body);
	};
	try {
		return await handleRequest(this, answer, receivedAtMs);
	} catch (error) {
		this.logger.error(
			`Transcription Service: a resume request failed and the execution keeps waiting: ${(error as Error).message}`,
		);
		// 5xx: the service delivers the event again later; a check tries again, knowing the execution still waits.
		const failed: PauseCheckAnswer = 'failed';
		const check = isPauseCheck(this.getHeaderData()) ? { [PAUSE_CHECK_ANSWER_KEY]: failed } : {};
		answer(500, { error: 'internal_error', ...check });
		return { noWebhookResponse: true };
	}
}

async function handleRequest(
	context: IWebhookFunctions,
	answer: Answer,
	receivedAtMs: number,
): Promise<IWebhookResponseData> {
	const executionId = context.getExecutionId() as string;
	const stored = context.evaluateExpression('{{ $input.all() }}') as INodeExecutionData[];
	const records = readPause(stored, context.getNode().id);
	const verified = await verifyRequest(context, executionId, records);
	if ('rejection' in verified) {
		context.logger.warn(
			`Transcription Service refused a resume request (${verified.rejection.status}): ${verified.rejection.message}`,
		);
		answer(verified.rejection.status, verified.rejection.body);
		return { noWebhookResponse: true };
	}
	const reply: Reply =
		verified.kind === 'check' ? checkAnswer(answer) : (status, body) => answer(status, body);
	if (!records) {
		reply(409, { error: 'not_paused' }, 'not_paused');
		return { noWebhookResponse: true };
	}
	// A check is verified without the credential, but its reads and the collection need it: a process that cannot read
	// it (n8n unable to decrypt it) fails here, answering 500, before it claims anything.
	if (verified.kind === 'check') await context.getCredentials(CREDENTIAL_TYPE);
	const deadlineAtMs = Date.parse(records[0].deadline_at);
	const request: PauseRequest =
		verified.kind === 'check'
			? { ...verified, atDeadline: Date.now() >= deadlineAtMs - DEADLINE_SKEW_MS }
			: verified;
	if (request.kind === 'event' && !records.some((record) => record.job_id === request.jobId)) {
		context.logger.warn(
			`Transcription Service: a signed event for job ${request.jobId} reached execution ${executionId}, which did not start that job`,
		);
		answer(409, { error: 'unknown_job' });
		return { noWebhookResponse: true };
	}

	const ledger = ledgerOf(executionId, pauseTimes(records).forgetAtMs);
	const decided = await serialised(
		ledger,
		async () => await readAndClaim(context, records, ledger, request, receivedAtMs),
	);
	if (decided.outcome !== 'resume') {
		if (decided.outcome === 'try_again') {
			context.logger.warn(
				`Transcription Service: execution ${executionId} keeps waiting: ${decided.message}`,
			);
			reply(503, { error: 'status_unavailable' }, 'read_failed');
		} else if (decided.outcome === 'resuming') {
			reply(200, { received: true, ignored: 'already resuming' }, 'resuming');
		} else if (decided.verdict.action === 'wait') {
			reply(200, { received: true, waiting_for: decided.verdict.pendingJobs }, 'waiting');
		} else if (decided.verdict.action === 'defer') {
			reply(200, { received: true, deferred: decided.verdict.laterJobId }, 'waiting');
		} else if (decided.verdict.action === 'settle') {
			const until = new Date(decided.verdict.untilMs).toISOString();
			reply(200, { received: true, settling_until: until }, 'waiting');
		}
		watchFromHere(context, ledger, records);
		return { noWebhookResponse: true };
	}

	// The answer goes out once the resume is claimed, before any download.
	reply(200, { received: true }, 'resumed');
	return await resume(context, stored, records, ledger, request);
}

type Decided =
	| { outcome: 'resuming' }
	/** No verdict now (a read failed, or the reads or the claim would come too late): 503, the sender tries again. */
	| { outcome: 'try_again'; message: string }
	| { outcome: 'answer'; verdict: Exclude<Verdict, { action: 'resume' }> }
	| { outcome: 'resume' };

/**
 * One request's reads, its verdict (decision.ts) and, when every job has ended in time, its claim of the resume (the
 * ledger's `resuming`); runs alone for this execution in this process (ledger.ts, `serialised`).
 */
async function readAndClaim(
	context: IWebhookFunctions,
	records: readonly PauseRecord[],
	ledger: Ledger,
	request: PauseRequest,
	receivedAtMs: number,
): Promise<Decided> {
	if (ledger.resuming) return { outcome: 'resuming' };
	if (request.kind === 'event') hearEvent(ledger, request);
	const [limits, policy] =
		request.kind === 'event'
			? [EVENT_LIMITS, EVENT_READ_POLICY]
			: [CHECK_LIMITS, CHECK_READ_POLICY];
	const client = new TranscriptionServiceClient(context, policy);
	for (const jobId of jobsToRead(records, ledger, request)) {
		if (Date.now() > receivedAtMs + limits.readsMs) {
			return { outcome: 'try_again', message: 'the reads took longer than an answer may' };
		}
		let job: JobSnapshot;
		try {
			job = await client.getTranscription(jobId);
		} catch (error) {
			return { outcome: 'try_again', message: `a status read failed: ${(error as Error).message}` };
		}
		if (learnSnapshot(ledger, job)) continue;
		if (!(request.kind === 'check' && request.atDeadline)) break;
		// Kept, so the next try of the deadline check (the rate limit may stop this one) reads on from here.
		ledger.runningAtDeadline.set(jobId, job);
	}
	const reached = verdict(records, ledger, request);
	if (reached.action !== 'resume') return { outcome: 'answer', verdict: reached };
	if (Date.now() > receivedAtMs + limits.claimMs) {
		// What was learned stays: the next delivery or check resumes at once.
		return {
			outcome: 'try_again',
			message: 'the answer would come after the request stopped waiting for it',
		};
	}
	ledger.resuming = true;
	return { outcome: 'resume' };
}

async function resume(
	context: IWebhookFunctions,
	stored: INodeExecutionData[],
	records: readonly PauseRecord[],
	ledger: Ledger,
	request: PauseRequest,
): Promise<IWebhookResponseData> {
	try {
		const failures = new Map<number, ItemError>();
		for (const [index, record] of records.entries()) {
			if (record.job_id === undefined) failures.set(record.item, storedError(stored[index]));
		}
		const snapshots = knownSnapshots(ledger);
		const atDeadline = request.kind === 'check' && request.atDeadline;
		const results = await collectResults(context, new TranscriptionServiceClient(context), {
			records,
			failures,
			snapshots,
			maxWaitMs: atDeadline ? maxWaitMsOf(records) : undefined,
		});
		forgetLedger(ledger.executionId);
		return { noWebhookResponse: true, workflowData: [results.map((result) => result.item)] };
	} catch (error) {
		// Nothing is lost: the execution keeps waiting, and a later event or check tries again.
		ledger.resuming = false;
		context.logger.error(
			`Transcription Service: execution ${ledger.executionId} could not resume and keeps waiting: ${(error as Error).message}`,
		);
		return { noWebhookResponse: true };
	}
}

/** This process answered without resuming: it watches the execution too, in case the one that paused it is gone. */
function watchFromHere(
	context: IWebhookFunctions,
	ledger: Ledger,
	records: readonly PauseRecord[],
): void {
	watchPause({
		ledger,
		records,
		role: 'answerer',
		httpRequest: context.helpers.httpRequest,
		logger: context.logger,
	});
}

/** Answers to a check carry PAUSE_CHECK_ANSWER_KEY, so the watcher tells them from n8n's own. */
function checkAnswer(answer: Answer): Reply {
	return (status, body, outcome) => answer(status, { ...body, [PAUSE_CHECK_ANSWER_KEY]: outcome });
}
