// One item of Transcribe and Download up to a running job: its slot, its bytes, its job.
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { ItemContext } from '../../../../shared/errors';
import type { TranscriptionServiceClient } from '../../../../shared/transport';
import { itemMedia } from '../../../helpers/item-media';
import { idempotencyKeyFor } from '../../../helpers/idempotency';
import {
	createRequest,
	createTranscription,
	type CreatedTranscription,
} from '../../../helpers/create-job';
import { createUploadSlot, uploadMedia } from '../../../helpers/upload';
import type { TranscribeParameters } from './parameters';

export interface StartedJob {
	uploadId: string;
	/** The service's answer to the job's creation. */
	job: CreatedTranscription;
}

/**
 * Slot from the media's metadata (its binary's, or what its link's host announced), streamed upload, job.
 * Idempotency-Keys come from the execution and the item, never from the media's bytes, so a retry of the node replays
 * the slot and the job instead of making new ones. The slot is noted in `created` as soon
 * as it exists, so a failure after it names it.
 */
export async function startJob(
	context: IExecuteFunctions,
	client: TranscriptionServiceClient,
	itemIndex: number,
	parameters: TranscribeParameters,
	created: ItemContext,
	fields: IDataObject = parameters.additionalFields,
): Promise<StartedJob> {
	const propertyName = parameters.binaryPropertyName;
	const media = await itemMedia(context, itemIndex, propertyName);
	if (media.sizeBytes === 0) {
		throw new NodeOperationError(
			context.getNode(),
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
		idempotencyKeyFor(context, itemIndex, 'slot'),
		itemIndex,
	).catch((error: unknown) => {
		// A link's download is open, waiting for the upload that will not come.
		media.close();
		throw error;
	});
	created.upload_id = slot.upload_id;
	await uploadMedia(context, client, slot.upload_id, media, itemIndex, true);
	const job = await createTranscription(
		client,
		createRequest(slot.upload_id, fields),
		idempotencyKeyFor(context, itemIndex, 'job'),
		itemIndex,
	);
	created.job_id = job.job_id;
	return { uploadId: slot.upload_id, job };
}
