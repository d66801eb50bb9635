// Transcribe and Download: one input file in, its transcript out (a binary per format), waiting for the job in one of
// two modes. This file holds the operation's fields (its Options in parameters.ts) and the Wait Mode switch; each mode
// lives beside it.
import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { ItemContext } from '../../../../shared/errors';
import type { TranscriptionServiceClient } from '../../../../shared/transport';
import { downloadFormatOptions } from '../../../../shared/vocabulary';
import { inputBinaryFieldProperty } from '../../../helpers/binary';
import { mediaLinkProperties, mediaSourceProperty } from '../../../helpers/media-link';
import type { ItemOutcome } from '../../../helpers/item-loop';
import { additionalFieldsProperty } from '../../../helpers/create-job';
import { optionsProperty, readConcurrency, readWaitMode, waitModeProperty } from './parameters';
import { pauseUntilWebhook, startPausedJob, type PausedItem } from './pause-mode';
import { pollItem } from './poll-mode';
import { MIN_BACKSTOP_MS } from './timing';

const properties: INodeProperties[] = [
	mediaSourceProperty,
	{ ...inputBinaryFieldProperty, displayOptions: { show: { mediaSource: ['binary'] } } },
	...mediaLinkProperties({ mediaSource: ['url'] }),
	{
		displayName: 'Download Formats',
		name: 'formats',
		type: 'multiOptions',
		required: true,
		options: downloadFormatOptions,
		default: ['srt'],
		description:
			'Each format becomes a binary field of the same name (srt, txt, pdf, docx, vtt) on the output item. WebVTT is made from the SRT, which is downloaded once for both.',
		hint: 'With SRT, TXT or WebVTT the transcript text is also put on the item as "text"',
	},
	waitModeProperty,
	{
		displayName: `The execution pauses until the service's completion events arrive at its resume URL ($execution.resumeUrl): n8n's WEBHOOK_URL must be a public HTTPS address on port 443, and the credential needs the Signing Secret. n8n also checks the jobs now and then (for an event that got lost) and once at Max Wait. Failures after the pause (a failed job, Max Wait) come out as items with an <code>error</code> field, on the error output with On Error → Continue (using error output). Should every n8n process that knew the paused execution restart and no event come after, n8n ends the wait itself ${MIN_BACKSTOP_MS / 60_000} minutes after Max Wait (more for a large batch): its items then say max_wait_exceeded with the status at the pause, even for jobs that completed.`,
		name: 'pauseNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { waitMode: ['pauseUntilWebhook'] } },
	},
	additionalFieldsProperty,
	optionsProperty,
];

export const description = updateDisplayOptions(
	{ show: { resource: ['transcription'], operation: ['transcribeAndDownload'] } },
	properties,
);

export function concurrency(this: IExecuteFunctions): number {
	return readConcurrency(this);
}

/** What one item hands the batch step: its output item (Poll), or its job, started (Pause Until Webhook). */
export type ItemValue =
	| { waitMode: 'poll'; item: INodeExecutionData }
	| { waitMode: 'pauseUntilWebhook'; paused: PausedItem };

/** One item: Poll mode runs it to its transcript; Pause Until Webhook starts its job and leaves the wait to the batch. */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	client: TranscriptionServiceClient,
	created: ItemContext,
): Promise<ItemValue> {
	if (readWaitMode(this) === 'pauseUntilWebhook') {
		const paused = await startPausedJob(this, client, itemIndex, created);
		return { waitMode: 'pauseUntilWebhook', paused };
	}
	const item = await pollItem(this, client, itemIndex, created);
	return { waitMode: 'poll', item };
}

/**
 * Poll mode outputs each item as it ended; Pause Until Webhook waits for the whole batch at once: the execution is
 * paused until every job has ended.
 */
export async function afterItems(
	this: IExecuteFunctions,
	client: TranscriptionServiceClient,
	outcomes: Array<ItemOutcome<ItemValue>>,
): Promise<INodeExecutionData[][]> {
	const polled: INodeExecutionData[] = [];
	const paused: Array<ItemOutcome<PausedItem>> = [];
	for (const [itemIndex, outcome] of outcomes.entries()) {
		if (!outcome.ok) {
			polled.push(outcome.failedItem);
			paused.push(outcome);
		} else if (outcome.value.waitMode === 'poll') {
			polled.push({ ...outcome.value.item, pairedItem: { item: itemIndex } });
		} else {
			paused.push({ ok: true, value: outcome.value.paused });
		}
	}
	if (readWaitMode(this) !== 'pauseUntilWebhook') return [polled];
	return await pauseUntilWebhook(this, client, paused);
}
