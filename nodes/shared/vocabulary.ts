// The words of the editor, each said once and built from the API's own constants (src/), so a value the API adds
// cannot be missing from one list and present in another.
import type { INodePropertyOptions } from 'n8n-workflow';

import {
	MODEL_TIERS,
	OUTPUT_FORMATS,
	TERMINAL_STATUSES,
	TRANSCRIPTION_STATUSES,
	WEBHOOK_EVENT_TYPES,
	WEBHOOK_TEST_EVENT,
	type ModelTier,
	type OutputFormat,
	type TerminalStatus,
	type TranscriptionStatus,
	type WebhookEventType,
} from '../../src/api';
import { DOWNLOAD_FORMATS, type DownloadFormat } from '../../src/artifacts';

type Label = { name: string; description?: string };

const DOWNLOAD_FORMAT_LABELS: Record<DownloadFormat, Label> = {
	docx: { name: 'DOCX (Word)' },
	pdf: { name: 'PDF' },
	srt: { name: 'SRT (Subtitles)' },
	txt: { name: 'TXT (Plain Text)' },
	vtt: {
		name: 'WebVTT (Web Subtitles)',
		description: "For HTML5 video's track element and web players; made from the SRT",
	},
};

const MODEL_TIER_LABELS: Record<ModelTier, Label> = {
	fast_low_cost: { name: 'Fast Low Cost', description: 'Quicker and cheaper' },
	premium_quality: {
		name: 'Premium Quality',
		description: 'Best accuracy; needs a Basic plan or higher and costs twice the output format',
	},
	standard: { name: 'Standard' },
};

const OUTPUT_FORMAT_LABELS: Record<OutputFormat, Label> = {
	plain_text: { name: 'TXT (Plain Text)' },
	srt: { name: 'SRT (Subtitles)' },
};

const STATUS_LABELS: Record<TranscriptionStatus, Label> = {
	cancelled: { name: 'Cancelled' },
	completed: { name: 'Completed' },
	failed: { name: 'Failed' },
	pending: { name: 'Pending' },
	processing: { name: 'Processing' },
	queued: { name: 'Queued' },
};

const EVENT_LABELS: Record<WebhookEventType | typeof WEBHOOK_TEST_EVENT, Label> = {
	'transcription.completed': {
		name: 'Transcription Completed',
		description: 'A job finished; its transcript can be downloaded',
	},
	'transcription.failed': {
		name: 'Transcription Failed',
		description: 'A job ended without a transcript',
	},
	'webhook.test': {
		name: 'Webhook Test',
		description: 'A synthetic event sent by the Send Test Event operation (test_mode is true)',
	},
};

/** The polling trigger's events: a job found in a terminal state, named the way the service names its webhook events. */
export type PollingEventType = `transcription.${TerminalStatus}`;

export function pollingEventType(status: TerminalStatus): PollingEventType {
	return `transcription.${status}`;
}

const POLLING_EVENT_LABELS: Record<PollingEventType, Label> = {
	'transcription.completed': EVENT_LABELS['transcription.completed'],
	'transcription.failed': EVENT_LABELS['transcription.failed'],
	'transcription.cancelled': {
		name: 'Transcription Cancelled',
		description: 'A job was cancelled before it finished (the service sends no webhook for it)',
	},
};

/** n8n's lint and editor want option lists sorted by name. */
function options<V extends string>(
	values: readonly V[],
	labels: Record<V, Label>,
): INodePropertyOptions[] {
	return values
		.map((value) => ({ ...labels[value], value }))
		.sort((left, right) => left.name.localeCompare(right.name));
}

export const downloadFormatOptions = options(DOWNLOAD_FORMATS, DOWNLOAD_FORMAT_LABELS);
export const modelTierOptions = options(MODEL_TIERS, MODEL_TIER_LABELS);
export const outputFormatOptions = options(OUTPUT_FORMATS, OUTPUT_FORMAT_LABELS);
export const statusOptions = options(TRANSCRIPTION_STATUSES, STATUS_LABELS);
export const webhookEventOptions = options(WEBHOOK_EVENT_TYPES, EVENT_LABELS);
export const triggerEventOptions = options(
	[...WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_EVENT] as const,
	EVENT_LABELS,
);

export const pollingEventOptions = options(
	TERMINAL_STATUSES.map(pollingEventType),
	POLLING_EVENT_LABELS,
);
