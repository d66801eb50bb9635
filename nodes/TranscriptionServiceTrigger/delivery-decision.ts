// What the trigger does with one webhook delivery, decided without I/O so it can be tested with the
// Python-signed vectors: reject (and why), acknowledge without starting anything, or accept.

import type { IDataObject } from 'n8n-workflow';

import { deliveryEventHeader, type WebhookEventBody } from '../../src/webhooks';
import {
	verifyDelivery,
	type ReceivedDelivery,
	type Rejection,
} from '../shared/delivery-verification';
import { DEFAULT_EVENTS } from '../shared/event-properties';
import {
	activeSeenEvents,
	boundedToleranceSeconds,
	hasSeenEvent,
	rememberEvent,
	type SeenEvent,
} from './dedupe';
import { readTriggerOptions } from './description';

const IGNORED_NOT_SELECTED = 'event not selected';
const IGNORED_DUPLICATE = 'duplicate event_id';

export interface DeliverySettings {
	/** X-Service-Event values to start the workflow for (`webhook.test` for test deliveries). */
	events: readonly string[];
	toleranceSeconds: number;
	deduplicate: boolean;
}

/** The Events parameter (undefined when unset) and the Options collection as n8n hands them, with their defaults. */
export function resolveSettings(
	events: readonly string[] | undefined,
	options: IDataObject,
): DeliverySettings {
	const { toleranceSeconds, deduplicate } = readTriggerOptions(options);
	return {
		events: events ?? DEFAULT_EVENTS,
		toleranceSeconds: boundedToleranceSeconds(toleranceSeconds),
		deduplicate,
	};
}

/** A received delivery as verifyDelivery takes it, with the trigger's settings in place of the tolerance. */
export interface Delivery extends Omit<ReceivedDelivery, 'toleranceSeconds'> {
	settings: DeliverySettings;
	/** The dedupe window as stored in static data (any shape; junk is ignored). */
	seenEvents: unknown;
}

export type DeliveryDecision =
	| Rejection
	| {
			action: 'ignore';
			status: 200;
			response: { received: true; ignored: string };
			eventId: string;
	  }
	| {
			action: 'accept';
			status: 200;
			response: { received: true };
			event: WebhookEventBody;
			/** The dedupe window to store, with this event_id added; absent when deduplication is off. */
			seenEvents?: SeenEvent[];
	  };

/** verifyDelivery first, then the trigger's own choices: the event selection and the dedupe window. */
export function decideDelivery(delivery: Delivery): DeliveryDecision {
	const { settings } = delivery;
	const verified = verifyDelivery({ ...delivery, toleranceSeconds: settings.toleranceSeconds });
	if (verified.action === 'reject') return verified;
	const { event } = verified;

	if (!settings.events.includes(deliveryEventHeader(event))) {
		return ignore(event.event_id, IGNORED_NOT_SELECTED);
	}
	if (!settings.deduplicate)
		return { action: 'accept', status: 200, response: { received: true }, event };

	const seen = activeSeenEvents(delivery.seenEvents, delivery.nowMs);
	if (hasSeenEvent(seen, event.event_id)) return ignore(event.event_id, IGNORED_DUPLICATE);
	return {
		action: 'accept',
		status: 200,
		response: { received: true },
		event,
		seenEvents: rememberEvent(seen, event.event_id, delivery.nowMs),
	};
}

function ignore(eventId: string, why: string): DeliveryDecision {
	return { action: 'ignore', status: 200, response: { received: true, ignored: why }, eventId };
}
