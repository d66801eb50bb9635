// Webhook bodies (spec 2.5, 2.6) and their consistency with the delivery headers (section 6).

import {
	WEBHOOK_EVENT_TYPES,
	WEBHOOK_TEST_EVENT,
	type PublicTranscriptionWebhookEvent,
	type PublicWebhookTestDelivery,
} from '../api';
import { readWebhookHeader, WEBHOOK_HEADER_NAMES, type IncomingHeaders } from './headers';

export type WebhookEventBody = PublicTranscriptionWebhookEvent | PublicWebhookTestDelivery;

export type ParseWebhookEventResult =
	| { ok: true; event: WebhookEventBody }
	| { ok: false; reason: 'invalid_json' | 'invalid_event'; message: string };

export type CheckEventHeadersResult = { ok: true } | { ok: false; message: string };

/** A 2.6 test delivery; its `event` is whatever event type the test operation was asked to send. */
export function isWebhookTestDelivery(event: object): event is PublicWebhookTestDelivery {
	return (event as { test_mode?: unknown }).test_mode === true;
}

/** The X-Service-Event value that goes with a body: `webhook.test` for a test delivery, else the body's event. */
export function deliveryEventHeader(event: { event: string } & object): string {
	return isWebhookTestDelivery(event) ? WEBHOOK_TEST_EVENT : event.event;
}

/** Parses a verified body and checks it has the shape of 2.5 or 2.6; unknown extra fields are kept. */
export function parseWebhookEvent(rawBody: Uint8Array | string): ParseWebhookEventResult {
	const text =
		typeof rawBody === 'string'
			? rawBody
			: Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength).toString('utf8');
	let parsed: unknown;
	try {
		parsed = JSON.parse(text);
	} catch (error) {
		return {
			ok: false,
			reason: 'invalid_json',
			message: `The body is not JSON: ${(error as Error).message}`,
		};
	}
	const problem = shapeProblem(parsed);
	if (problem !== undefined) return { ok: false, reason: 'invalid_event', message: problem };
	return { ok: true, event: parsed as WebhookEventBody };
}

/** X-Service-Event must announce the body's event (`webhook.test` for a test delivery) and X-Service-Event-ID its event_id. */
export function checkEventHeaders(
	headers: IncomingHeaders,
	event: WebhookEventBody,
): CheckEventHeadersResult {
	const expectations = [
		{
			name: WEBHOOK_HEADER_NAMES.event,
			actual: readWebhookHeader(headers, 'event'),
			expected: deliveryEventHeader(event),
		},
		{
			name: WEBHOOK_HEADER_NAMES.eventId,
			actual: readWebhookHeader(headers, 'eventId'),
			expected: event.event_id,
		},
	];
	for (const { name, actual, expected } of expectations) {
		if (actual === undefined) return { ok: false, message: `The ${name} header is missing` };
		if (actual !== expected) {
			return { ok: false, message: `${name} is "${actual}" but the body says "${expected}"` };
		}
	}
	return { ok: true };
}

function shapeProblem(body: unknown): string | undefined {
	if (!isRecord(body)) return 'The body is not a JSON object';
	for (const field of ['event', 'event_id', 'job_id', 'status'] as const) {
		if (!isNonEmptyString(body[field])) return `"${field}" must be a non-empty string`;
	}
	const links = body.links;
	if (!isRecord(links) || !isNonEmptyString(links.self))
		return '"links.self" must be a non-empty string';

	if (isWebhookTestDelivery(body)) {
		if (body.status !== 'completed')
			return `A test delivery has status "completed", not "${String(body.status)}"`;
		if (!isNonEmptyString(links.artifact)) return '"links.artifact" must be a non-empty string';
		return undefined;
	}

	const event = body.event as string;
	if (!(WEBHOOK_EVENT_TYPES as readonly string[]).includes(event))
		return `Unknown event "${event}"`;
	const expectedStatus = event === 'transcription.completed' ? 'completed' : 'failed';
	if (body.status !== expectedStatus)
		return `A ${event} event has status "${expectedStatus}", not "${String(body.status)}"`;
	if (!isNonEmptyString(body.created_at) || Number.isNaN(Date.parse(body.created_at))) {
		return '"created_at" must be a date-time';
	}
	if (expectedStatus === 'completed' && !isNonEmptyString(links.artifact)) {
		return '"links.artifact" must be the artifact URL of the completed job';
	}
	if (expectedStatus === 'failed' && links.artifact !== null) {
		return '"links.artifact" must be null for a failed job';
	}
	return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNonEmptyString(value: unknown): value is string {
	return typeof value === 'string' && value !== '';
}
