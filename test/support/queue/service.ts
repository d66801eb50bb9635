// Talking to the service (the sandbox) the way an app outside n8n does: creating live jobs that report to a
// webhook URL, and signing webhook deliveries exactly as the service signs them (spec section 6) to send copies of
// an event where a test wants them.
import { randomUUID } from 'node:crypto';

import { buildSignedDelivery } from '../../../src/service';
export { createJob } from '../n8n/service-jobs';

export interface JobEvent {
	event: 'transcription.completed' | 'transcription.failed';
	event_id: string;
	job_id: string;
	status: 'completed' | 'failed';
	created_at: string;
	links: { self: string; artifact: string | null };
}

export interface Answer {
	status: number;
	body: unknown;
}

async function answerOf(response: Response): Promise<Answer> {
	const text = await response.text();
	try {
		return { status: response.status, body: JSON.parse(text) as unknown };
	} catch {
		return { status: response.status, body: text };
	}
}

/** A completion event as the service would send it for a job of its own. */
export function completionEvent(serviceBaseUrl: string, jobId = `job_${randomUUID()}`): JobEvent {
	return {
		event: 'transcription.completed',
		event_id: `evt_${randomUUID()}`,
		job_id: jobId,
		status: 'completed',
		created_at: new Date().toISOString(),
		links: {
			self: `${serviceBaseUrl}/api/v1/transcriptions/${jobId}`,
			artifact: `${serviceBaseUrl}/api/v1/transcriptions/${jobId}/artifact`,
		},
	};
}

/**
 * POSTs one delivery of `event` signed with `secret`, with a fresh timestamp — as every attempt of the service is —
 * or with the headers `tamper` makes of the signed ones.
 */
export async function deliver(
	url: string,
	secret: string,
	event: object & { event: string; event_id: string },
	tamper: (headers: Record<string, string>) => Record<string, string> = (headers) => headers,
): Promise<Answer> {
	const signed = buildSignedDelivery({ secret, timestamp: Math.floor(Date.now() / 1000), event });
	const response = await fetch(url, {
		method: 'POST',
		headers: { 'content-type': 'application/json', ...tamper(signed.headers) },
		body: signed.body,
	});
	return await answerOf(response);
}
