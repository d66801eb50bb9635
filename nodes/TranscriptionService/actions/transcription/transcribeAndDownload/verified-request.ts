// What reached a paused execution's resume URL, verified: the pack's own check of this execution, signed with the
// pause's key (src/webhooks/pause-check.ts), or one of the service's signed job events (the trigger's checks: signature
// over the raw body with the credential's signing secrets, timestamp, headers that agree with the body). Anything else
// is refused with the reason.
import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import {
	DEFAULT_TOLERANCE_SECONDS,
	isPauseCheck,
	isWebhookTestDelivery,
	PAUSE_CHECK_ANSWER_KEY,
	verifyPauseCheck,
} from '../../../../../src/webhooks';
import { verifyDelivery } from '../../../../shared/delivery-verification';
import { readRawBody, signingSecrets } from '../../../../shared/webhook-request';
import type { PauseRequest } from './decision';
import type { PauseRecord } from './pause-record';
import { CHECK_LIFETIME_MS } from './timing';
import { useCheck } from './used-checks';

/** A verified check, before it is known whether Max Wait has run out. */
export interface VerifiedCheck {
	kind: 'check';
	/** When it arrived (this process's clock). */
	atMs: number;
	/** Sent by the watcher of the process that paused the execution (else by one that answered a request for it). */
	fromPauser: boolean;
}

/** A request refused, with the answer it gets and why. */
export interface Rejection {
	rejection: { status: number; body: IDataObject; message: string };
}

/** What verifying a request found: a service event, a check, or a rejection. */
export type Verification = Extract<PauseRequest, { kind: 'event' }> | VerifiedCheck | Rejection;

/**
 * The request as verified: a check of this execution, or a service event (signature, headers, shape). `records`: the
 * pause the execution holds, undefined when it holds none of this node's (a check then cannot be verified, and is told
 * so: the execution is not its pause).
 */
export async function verifyRequest(
	context: IWebhookFunctions,
	executionId: string,
	records: readonly PauseRecord[] | undefined,
): Promise<Verification> {
	const nowMs = Date.now();
	const body = await readRawBody(context.getRequestObject());
	if (!body.ok) {
		const { status, response, message } = body.rejection;
		return { rejection: { status, body: response, message } };
	}
	const headers = context.getHeaderData();
	if (isPauseCheck(headers)) {
		if (!records) {
			return {
				rejection: {
					status: 409,
					body: { error: 'not_paused', [PAUSE_CHECK_ANSWER_KEY]: 'not_paused' },
					message: `a check reached execution ${executionId}, which holds no pause of this node`,
				},
			};
		}
		const check = verifyPauseCheck({
			rawBody: body.rawBody,
			headers,
			executionId,
			key: records[0].check_key,
			toleranceSeconds: CHECK_LIFETIME_MS / 1000,
			now: Math.floor(nowMs / 1000),
		});
		if (!check.ok) {
			return { rejection: { status: 401, body: { error: check.reason }, message: check.message } };
		}
		if (!useCheck(check.checkId, check.timestamp * 1000, nowMs)) {
			return {
				rejection: {
					status: 401,
					body: { error: 'check_replayed' },
					message: `check ${check.checkId} was answered before`,
				},
			};
		}
		return { kind: 'check', atMs: nowMs, fromPauser: check.watcher === 'pauser' };
	}
	const verified = verifyDelivery({
		rawBody: body.rawBody,
		headers,
		secrets: await signingSecrets(context),
		toleranceSeconds: DEFAULT_TOLERANCE_SECONDS,
		nowMs,
	});
	if (verified.action === 'reject') {
		const { status, response, message } = verified;
		return { rejection: { status, body: response, message } };
	}
	const { event } = verified;
	if (isWebhookTestDelivery(event)) {
		return {
			rejection: {
				status: 409,
				body: { error: 'not_a_job_event' },
				message: 'a test delivery is no job event',
			},
		};
	}
	return {
		kind: 'event',
		jobId: event.job_id,
		status: event.status,
		createdAt: event.created_at,
	};
}
