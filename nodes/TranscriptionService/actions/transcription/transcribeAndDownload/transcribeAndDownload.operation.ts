// Transcribe and Download: one input file in, its transcript out (a binary per format), waiting for the job in one of
// two modes. This file holds the operation's parameters and the Wait Mode switch; each mode lives beside it.
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { TranscriptionServiceClient } from '../../../../shared/transport';
import { artifactFormatOptions } from '../../../../shared/vocabulary';
import { inputBinaryFieldProperty } from '../../../helpers/binary';
import type { ItemOutcome } from '../../../helpers/item-loop';
import { additionalFieldsProperty } from '../../../helpers/create-job';
import { pauseUntilWebhook, startPausedJob } from './pause-mode';
import { pollItem } from './poll-mode';

const MAX_CONCURRENCY = 10;

export type WaitMode = 'poll' | 'pauseUntilWebhook';

const properties: INodeProperties[] = [
	inputBinaryFieldProperty,
	{
		displayName: 'Download Formats',
		name: 'formats',
		type: 'multiOptions',
		required: true,
		options: artifactFormatOptions,
		default: ['srt'],
		description:
			'Each format becomes a binary field of the same name (srt, txt, pdf, docx) on the output item',
		hint: 'With SRT or TXT the transcript text is also put on the item as "text"',
	},
	{
		displayName: 'Wait Mode',
		name: 'waitMode',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Pause Until Webhook',
				value: 'pauseUntilWebhook',
				description:
					"Pause the execution until the service's signed events say every job ended: no worker slot held, a few status checks in all. n8n must be reachable from the service over public HTTPS.",
			},
			{
				name: 'Poll',
				value: 'poll',
				description:
					'Keep the execution running and check each job until it ends. Works on any n8n, also one the service cannot reach.',
			},
		],
		default: 'poll',
	},
	{
		displayName:
			"The execution pauses until the service's completion events arrive at its resume URL ($execution.resumeUrl): n8n's WEBHOOK_URL must be a public HTTPS address on port 443, and the credential needs the Signing Secret. n8n also checks the jobs now and then (for an event that got lost) and once at Max Wait. Failures after the pause (a failed job, Max Wait) come out as items with an <code>error</code> field, on the error output with On Error → Continue (using error output). Should every n8n process that knew the paused execution restart and no event come after, n8n ends the wait itself 10 minutes after Max Wait: its items then say max_wait_exceeded with the status at the pause, even for jobs that completed.",
		name: 'pauseNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { waitMode: ['pauseUntilWebhook'] } },
	},
	additionalFieldsProperty,
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Concurrency',
				name: 'concurrency',
				type: 'number',
				typeOptions: { minValue: 1, maxValue: MAX_CONCURRENCY },
				default: 1,
				description:
					'How many items are uploaded and transcribed at the same time. All share one rate-limit pacer; the output keeps the input order.',
			},
			{
				displayName: 'Max Poll Interval (Seconds)',
				name: 'maxPollIntervalSeconds',
				type: 'number',
				typeOptions: { minValue: 0.1, numberPrecision: 1 },
				default: 30,
				description:
					'The longest pause between two status checks; the pause grows from Poll Interval up to this',
				displayOptions: { show: { '/waitMode': ['poll'] } },
			},
			{
				displayName: 'Max Wait (Seconds)',
				name: 'maxWaitSeconds',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: 1800,
				description:
					'How long to wait for the jobs before the items fail with max_wait_exceeded, naming each job_id (the jobs keep running)',
			},
			{
				displayName: 'Poll Interval (Seconds)',
				name: 'pollIntervalSeconds',
				type: 'number',
				typeOptions: { minValue: 0.1, numberPrecision: 1 },
				default: 2,
				description: 'The first pause between two status checks',
				displayOptions: { show: { '/waitMode': ['poll'] } },
			},
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['transcription'], operation: ['transcribeAndDownload'] } },
	properties,
);

export function concurrency(this: IExecuteFunctions): number {
	const options = this.getNodeParameter('options', 0, {}) as IDataObject;
	const requested = Number(options.concurrency ?? 1);
	return Number.isFinite(requested)
		? Math.min(MAX_CONCURRENCY, Math.max(1, Math.floor(requested)))
		: 1;
}

/**
 * The mode this run waits in. As an AI agent's tool the node runs inside the agent's step, which cannot pause: it
 * polls.
 */
function waitModeOf(context: IExecuteFunctions): WaitMode {
	const waitMode = context.getNodeParameter('waitMode', 0, 'poll') as WaitMode;
	const isTool = context.getNode().type.endsWith('Tool');
	return waitMode === 'pauseUntilWebhook' && !isTool ? 'pauseUntilWebhook' : 'poll';
}

/** One item: Poll mode runs it to its transcript; Pause Until Webhook starts its job and leaves the wait to the batch. */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	client: TranscriptionServiceClient,
): Promise<INodeExecutionData[]> {
	return waitModeOf(this) === 'pauseUntilWebhook'
		? [await startPausedJob(this, client, itemIndex)]
		: [await pollItem(this, client, itemIndex)];
}

/** Pause Until Webhook waits for the whole batch at once: the execution is paused until every job has ended. */
export async function afterItems(
	this: IExecuteFunctions,
	client: TranscriptionServiceClient,
	outcomes: Array<ItemOutcome<INodeExecutionData[]>>,
): Promise<INodeExecutionData[][] | undefined> {
	if (waitModeOf(this) !== 'pauseUntilWebhook') return undefined;
	return await pauseUntilWebhook(this, client, outcomes);
}
