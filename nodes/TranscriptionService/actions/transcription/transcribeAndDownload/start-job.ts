// One item of Transcribe and Download up to a running job: its parameters, its slot, its bytes, its job.
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { ArtifactFormat } from '../../../../../src/artifacts';
import { asItemFailure } from '../../../../shared/errors';
import type { TranscriptionServiceClient } from '../../../../shared/transport';
import { inputMedia } from '../../../helpers/binary';
import { idempotencyKeyFor } from '../../../helpers/idempotency';
import {
	createRequest,
	createTranscription,
	type CreatedTranscription,
} from '../../../helpers/create-job';
import { createUploadSlot, uploadMedia } from '../../../helpers/upload';

export interface TranscribeItem {
	propertyName: string;
	formats: ArtifactFormat[];
	additionalFields: IDataObject;
	options: IDataObject;
}

export function readTranscribeItem(context: IExecuteFunctions, itemIndex: number): TranscribeItem {
	const formats = context.getNodeParameter('formats', itemIndex) as ArtifactFormat[];
	if (formats.length === 0) {
		throw new NodeOperationError(context.getNode(), 'No download format is selected', {
			itemIndex,
			description: 'Choose at least one of SRT, TXT, PDF or DOCX under "Download Formats".',
		});
	}
	return {
		propertyName: context.getNodeParameter('binaryPropertyName', itemIndex) as string,
		formats,
		additionalFields: context.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject,
		options: context.getNodeParameter('options', itemIndex, {}) as IDataObject,
	};
}

/** Max Wait, in both wait modes. */
export function maxWaitMs(options: IDataObject): number {
	return Number(options.maxWaitSeconds ?? 1800) * 1000;
}

export interface StartedJob {
	uploadId: string;
	created: CreatedTranscription;
}

/**
 * Slot from the binary's metadata, streamed upload, job. Idempotency-Keys come from the execution and the item, so a
 * retry of the node replays the slot and the job instead of making new ones. A failure after the slot exists names it.
 */
export async function startJob(
	context: IExecuteFunctions,
	client: TranscriptionServiceClient,
	itemIndex: number,
	item: TranscribeItem,
	fields: IDataObject = item.additionalFields,
): Promise<StartedJob> {
	const media = await inputMedia(context, itemIndex, item.propertyName);
	if (media.sizeBytes === 0) {
		throw new NodeOperationError(
			context.getNode(),
			`The file in "${item.propertyName}" is empty (0 bytes)`,
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
		idempotencyKeyFor(context, itemIndex, 'slot'),
		itemIndex,
	);
	try {
		await uploadMedia(context, client, slot.upload_id, media, itemIndex, true);
		const created = await createTranscription(
			client,
			createRequest(slot.upload_id, fields),
			idempotencyKeyFor(context, itemIndex, 'job'),
			itemIndex,
		);
		return { uploadId: slot.upload_id, created };
	} catch (error) {
		throw asItemFailure(context.getNode(), error, itemIndex, { upload_id: slot.upload_id });
	}
}
