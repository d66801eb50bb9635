import type {
	IBinaryKeyData,
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import type { ArtifactFormat } from '../../../../src/artifacts';
import { artifactBinary, fetchArtifact, isTextFormat } from '../../../shared/artifact';
import { asItemFailure } from '../../../shared/errors';
import type { TranscriptionServiceClient } from '../../../shared/transport';
import { artifactFormatOptions } from '../../../shared/vocabulary';
import { inputBinaryFieldProperty, inputMedia } from '../../helpers/binary';
import { idempotencyKeyFor } from '../../helpers/idempotency';
import {
	createRequest,
	createTranscription,
	transcriptionOptionsProperty,
} from '../../helpers/transcription';
import { createUploadSlot, uploadMedia } from '../../helpers/upload';
import { assertCompleted, waitForJob } from '../../helpers/wait';

const MAX_CONCURRENCY = 10;

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
					'How many items are transcribed at the same time. All share one rate-limit pacer; the output keeps the input order.',
			},
			{
				displayName: 'Max Poll Interval (Seconds)',
				name: 'maxPollIntervalSeconds',
				type: 'number',
				typeOptions: { minValue: 0.1, numberPrecision: 1 },
				default: 30,
				description:
					'The longest pause between two status checks; the pause grows from Poll Interval up to this',
			},
			{
				displayName: 'Max Wait (Seconds)',
				name: 'maxWaitSeconds',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: 1800,
				description:
					'How long to wait for a job before the item fails with a timeout that names the job_id (the job keeps running)',
			},
			{
				displayName: 'Poll Interval (Seconds)',
				name: 'pollIntervalSeconds',
				type: 'number',
				typeOptions: { minValue: 0.1, numberPrecision: 1 },
				default: 2,
				description: 'The first pause between two status checks',
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

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	client: TranscriptionServiceClient,
): Promise<INodeExecutionData[]> {
	const propertyName = this.getNodeParameter('binaryPropertyName', itemIndex) as string;
	const formats = this.getNodeParameter('formats', itemIndex) as ArtifactFormat[];
	const additionalFields = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	if (formats.length === 0) {
		throw new NodeOperationError(this.getNode(), 'No download format is selected', {
			itemIndex,
			description: 'Choose at least one of SRT, TXT, PDF or DOCX under "Download Formats".',
		});
	}

	const media = await inputMedia(this, itemIndex, propertyName);
	if (media.sizeBytes === 0) {
		throw new NodeOperationError(
			this.getNode(),
			`The file in "${propertyName}" is empty (0 bytes)`,
			{
				itemIndex,
				description:
					"Check the node that produced the binary; the service needs the media's bytes.",
			},
		);
	}
	const slot = await createUploadSlot(
		client,
		{ filename: media.fileName, content_type: media.mimeType, size_bytes: media.sizeBytes },
		idempotencyKeyFor(this, itemIndex, 'slot'),
		itemIndex,
	);
	let created: Awaited<ReturnType<typeof createTranscription>>;
	try {
		await uploadMedia(this, client, slot.upload_id, media, itemIndex, true);
		created = await createTranscription(
			client,
			createRequest(slot.upload_id, additionalFields),
			idempotencyKeyFor(this, itemIndex, 'job'),
			itemIndex,
		);
	} catch (error) {
		throw asItemFailure(this.getNode(), error, itemIndex, { upload_id: slot.upload_id });
	}

	try {
		const job = await waitForJob(
			this,
			client,
			created.job_id,
			{
				maxWaitMs: Number(options.maxWaitSeconds ?? 1800) * 1000,
				initialIntervalMs: Number(options.pollIntervalSeconds ?? 2) * 1000,
				maxIntervalMs: Number(options.maxPollIntervalSeconds ?? 30) * 1000,
			},
			itemIndex,
		);
		assertCompleted(this, job, itemIndex);

		const binary: IBinaryKeyData = {};
		const texts: Partial<Record<ArtifactFormat, string>> = {};
		for (const format of formats) {
			const artifact = await fetchArtifact(this, client, job.job_id, format, itemIndex);
			binary[format] = await artifactBinary(this, artifact);
			if (isTextFormat(format)) texts[format] = artifact.bytes.toString('utf8');
		}
		const json: IDataObject = { ...job };
		const text = texts.txt ?? texts.srt;
		if (text !== undefined) json.text = text;
		return [{ json, binary }];
	} catch (error) {
		throw asItemFailure(this.getNode(), error, itemIndex, {
			upload_id: slot.upload_id,
			job_id: created.job_id,
		});
	}
}
