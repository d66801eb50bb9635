// Transcribe and Download's parameters as one typed value: the one place that reads them. The Options collection is
// declared here too, so that each default is written once (in its field) and read from there.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { ArtifactFormat } from '../../../../../src/artifacts';

export type WaitMode = 'poll' | 'pauseUntilWebhook';

export const MAX_CONCURRENCY = 10;

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

/** The Options collection, in milliseconds. */
export interface TranscribeOptions {
	maxWaitMs: number;
	pollIntervalMs: number;
	maxPollIntervalMs: number;
}

/** One item's parameters. */
export interface TranscribeParameters extends TranscribeOptions {
	binaryPropertyName: string;
	formats: ArtifactFormat[];
	/** The fields the job is created with (Additional Fields). */
	additionalFields: IDataObject;
}

export function readParameters(
	context: IExecuteFunctions,
	itemIndex: number,
): TranscribeParameters {
	const formats = context.getNodeParameter('formats', itemIndex) as ArtifactFormat[];
	if (formats.length === 0) {
		throw new NodeOperationError(context.getNode(), 'No download format is selected', {
			itemIndex,
			description: 'Choose at least one of SRT, TXT, PDF or DOCX under "Download Formats".',
		});
	}
	return {
		// Hidden (and so absent) when the media comes from a link.
		binaryPropertyName: context.getNodeParameter('binaryPropertyName', itemIndex, 'data') as string,
		formats,
		additionalFields: context.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject,
		...readOptions(context.getNodeParameter('options', itemIndex, {}) as IDataObject),
	};
}

/** The Options collection as n8n hands it (also to the resume webhook, which has no item index). */
export function readOptions(options: IDataObject): TranscribeOptions {
	const seconds = (name: OptionName) => optionValue(options, name) * 1000;
	return {
		maxWaitMs: seconds('maxWaitSeconds'),
		pollIntervalMs: seconds('pollIntervalSeconds'),
		maxPollIntervalMs: seconds('maxPollIntervalSeconds'),
	};
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
	const waitMode = context.getNodeParameter('waitMode', 0, 'poll') as WaitMode;
	const isTool = context.getNode().type.endsWith('Tool');
	return waitMode === 'pauseUntilWebhook' && !isTool ? 'pauseUntilWebhook' : 'poll';
}
