// What reached a paused execution's resume URL, verified: the pack's own signed check of this execution
// (src/webhooks/pause-check.ts), or one of the service's signed job events (the trigger's checks: signature over the
// raw body, timestamp, headers that agree with the body). Anything else is refused with the reason.
import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import {
	DEFAULT_TOLERANCE_SECONDS,
	isPauseCheck,
	isWebhookTestDelivery,
	verifyPauseCheck,
} from '../../../../../src/webhooks';
import { verifyDelivery } from '../../../../shared/delivery';
import { readRawBody, signingSecrets } from '../../../../shared/webhook-request';
import type { PauseRequest } from './decision';

/** A verified check, before it is known whether Max Wait has run out. */
export interface VerifiedCheck {
	kind: 'check';
	/** When it arrived (this process's clock). */
	atMs: number;
}

export type VerifiedRequest =
	| Extract<PauseRequest, { kind: 'event' }>
	| VerifiedCheck
	| { rejection: { status: number; body: IDataObject; message: string } };

/** The request as verified: a check of this execution, or a service event (signature, headers, shape). */
export async function verifiedRequest(
	context: IWebhookFunctions,
	executionId: string,
): Promise<VerifiedRequest> {
	const nowMs = Date.now();
	const body = await readRawBody(context.getRequestObject());
	if (!body.ok) {
		const { status, response, message } = body.rejection;
		return { rejection: { status, body: response, message } };
	}
	const headers = context.getHeaderData();
	const secrets = await signingSecrets(context);
	if (isPauseCheck(headers)) {
		const check = verifyPauseCheck({
			rawBody: body.rawBody,
			headers,
			executionId,
			secrets,
			toleranceSeconds: DEFAULT_TOLERANCE_SECONDS,
			now: Math.floor(nowMs / 1000),
		});
		if (!check.ok) {
			return { rejection: { status: 401, body: { error: check.reason }, message: check.message } };
		}
		return { kind: 'check', atMs: nowMs };
	}
	const verified = verifyDelivery({
		rawBody: body.rawBody,
		headers,
		secrets,
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
