// Transcribe and Download's parameters as one typed value: the one place that reads them. Wait Mode and the Options
// collection are declared here too, so that each default is written once (in its field) and read from there.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { isDownloadFormat, type DownloadFormat } from '../../../../../src/artifacts';

export type WaitMode = 'poll' | 'pauseUntilWebhook';

export const MAX_CONCURRENCY = 10;

export const waitModeProperty: INodeProperties = {
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
};

export const optionsProperty: INodeProperties = {
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
			displayName: 'Include Cues',
			name: 'includeCues',
			type: 'boolean',
			default: false,
			description:
				'Whether to also put the timed cues on the item\'s JSON as "cues": a list of {start, end, text}, times in seconds, read from the SRT (one more download when neither SRT nor WebVTT is a Download Format)',
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
				"How long to wait for the jobs before the ones still running fail with max_wait_exceeded, naming each job_id (the jobs keep running). One value for all items, the first item's: Poll gives each job this long from its start, Pause Until Webhook the whole batch this long from the pause.",
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
};

type OptionName =
	'concurrency' | 'maxWaitSeconds' | 'pollIntervalSeconds' | 'maxPollIntervalSeconds';

/** An option's value as n8n hands it, or else the default its field declares. */
function optionValue(options: IDataObject, name: OptionName): number {
	const field = (optionsProperty.options as INodeProperties[]).find(
		(option) => option.name === name,
	);
	return Number(options[name] ?? field?.default);
}

/** The Options that shape one item's wait, in milliseconds. */
export interface TranscribeOptions {
	/** Max Wait, the run's (the first item's value): readMaxWaitMs. */
	maxWaitMs: number;
	pollIntervalMs: number;
	maxPollIntervalMs: number;
}

/** One item's parameters. */
export interface TranscribeParameters extends TranscribeOptions {
	binaryPropertyName: string;
	formats: DownloadFormat[];
	/** Options → Include Cues. */
	cues: boolean;
	/** The fields the job is created with (Additional Fields). */
	additionalFields: IDataObject;
}

export function readParameters(
	context: IExecuteFunctions,
	itemIndex: number,
): TranscribeParameters {
	const selected = context.getNodeParameter('formats', itemIndex) as unknown;
	const formats = (Array.isArray(selected) ? selected : [selected]).map(String);
	if (formats.length === 0) {
		throw new NodeOperationError(context.getNode(), 'No download format is selected', {
			itemIndex,
			description: 'Choose at least one of SRT, WebVTT, TXT, PDF or DOCX under "Download Formats".',
		});
	}
	// An expression can hand in anything; a bad value is refused before a job is started for it.
	const unknown = formats.find((format) => !isDownloadFormat(format));
	if (unknown !== undefined) {
		throw new NodeOperationError(
			context.getNode(),
			`"Download Formats" has ${JSON.stringify(unknown)}, which is no download format`,
			{ itemIndex, description: 'Use srt, vtt, txt, pdf or docx. No job was started.' },
		);
	}
	const options = context.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const seconds = (name: OptionName) => optionValue(options, name) * 1000;
	return {
		// Hidden (and so absent) when the media comes from a link.
		binaryPropertyName: context.getNodeParameter('binaryPropertyName', itemIndex, 'data') as string,
		formats: formats as DownloadFormat[],
		cues: options.includeCues === true,
		additionalFields: context.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject,
		maxWaitMs: readMaxWaitMs(context),
		pollIntervalMs: seconds('pollIntervalSeconds'),
		maxPollIntervalMs: seconds('maxPollIntervalSeconds'),
	};
}

/**
 * Max Wait: one value for the run, the first item's, in both wait modes. Poll gives each job this long from its start;
 * Pause Until Webhook waits once for the whole batch, this long from the pause.
 */
export function readMaxWaitMs(context: IExecuteFunctions): number {
	const options = context.getNodeParameter('options', 0, {}) as IDataObject;
	return optionValue(options, 'maxWaitSeconds') * 1000;
}

/** How many items run at once: the first item's Concurrency, within 1 and MAX_CONCURRENCY. */
export function readConcurrency(context: IExecuteFunctions): number {
	const options = context.getNodeParameter('options', 0, {}) as IDataObject;
	const requested = optionValue(options, 'concurrency');
	return Number.isFinite(requested)
		? Math.min(MAX_CONCURRENCY, Math.max(1, Math.floor(requested)))
		: 1;
}

/**
 * The mode this run waits in. As an AI agent's tool the node runs inside the agent's step, which cannot pause: it
 * polls.
 */
export function readWaitMode(context: IExecuteFunctions): WaitMode {
	const waitMode = context.getNodeParameter('waitMode', 0, waitModeProperty.default) as WaitMode;
	const isTool = context.getNode().type.endsWith('Tool');
	return waitMode === 'pauseUntilWebhook' && !isTool ? 'pauseUntilWebhook' : 'poll';
}
