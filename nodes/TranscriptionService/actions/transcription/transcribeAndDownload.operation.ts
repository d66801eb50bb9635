import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { asItemFailure } from '../../../shared/errors';
import type { TranscriptionServiceClient } from '../../../shared/transport';
import { artifactFormatOptions } from '../../../shared/vocabulary';
import { inputBinaryFieldProperty } from '../../helpers/binary';
import { maxWaitMs, readTranscribeItem, startJob } from '../../helpers/transcribe';
import { transcriptItem } from '../../helpers/transcript';
import { transcriptionOptionsProperty } from '../../helpers/transcription';
import { assertCompleted, waitForJob } from '../../helpers/wait';
import { isToolVariant, pauseUntilWebhook } from '../../pause/start';
import { runItems } from '../../helpers/items';

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
					"Pause the execution until the service's signed events say every job ended: no worker slot held, no status requests. n8n must be reachable from the service over public HTTPS.",
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
			"The execution pauses until the service's completion events arrive at its resume URL ($execution.resumeUrl): n8n's WEBHOOK_URL must be a public HTTPS address on port 443, and the credential needs the Signing Secret. Failures after the pause (a failed job, Max Wait) come out as items with an <code>error</code> field, whatever On Error says: n8n does not run the node again when it resumes.",
		name: 'pauseNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { waitMode: ['pauseUntilWebhook'] } },
	},
	transcriptionOptionsProperty,
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

export async function executeAll(
	this: IExecuteFunctions,
	client: TranscriptionServiceClient,
): Promise<INodeExecutionData[][]> {
	const waitMode = this.getNodeParameter('waitMode', 0, 'poll') as WaitMode;
	// As an AI agent's tool the node runs inside the agent's step, which cannot pause: it polls.
	if (waitMode === 'pauseUntilWebhook' && !isToolVariant(this)) {
		return await pauseUntilWebhook.call(this, client, concurrency.call(this));
	}
	const outcomes = await runItems(this, concurrency.call(this), async (itemIndex) => ({
		...(await execute.call(this, itemIndex, client))[0],
		pairedItem: { item: itemIndex },
	}));
	return [outcomes.map((outcome) => (outcome.ok ? outcome.value : outcome.failedItem))];
}

/** Poll mode, one item: start the job, wait for it with conditional status checks, download. */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	client: TranscriptionServiceClient,
): Promise<INodeExecutionData[]> {
	const item = readTranscribeItem(this, itemIndex);
	const { uploadId, created } = await startJob(this, client, itemIndex, item);
	try {
		const job = await waitForJob(
			this,
			client,
			created.job_id,
			{
				maxWaitMs: maxWaitMs(item.options),
				initialIntervalMs: Number(item.options.pollIntervalSeconds ?? 2) * 1000,
				maxIntervalMs: Number(item.options.maxPollIntervalSeconds ?? 30) * 1000,
			},
			itemIndex,
		);
		assertCompleted(this, job, itemIndex);
		return [await transcriptItem(this, client, job, item.formats, itemIndex)];
	} catch (error) {
		throw asItemFailure(this.getNode(), error, itemIndex, {
			upload_id: uploadId,
			job_id: created.job_id,
		});
	}
}
