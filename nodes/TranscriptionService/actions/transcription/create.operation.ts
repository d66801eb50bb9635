import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { idempotencyKeyFor } from '../../helpers/idempotency';
import { uploadIdFrom } from '../../helpers/upload';
import {
	createRequest,
	createTranscription,
	transcriptionOptionsProperty,
} from '../../helpers/transcription';
import type { TranscriptionServiceClient } from '../../../shared/transport';
import { idempotencyKeyOption, jobUploadIdProperty } from './common';

const properties: INodeProperties[] = [
	jobUploadIdProperty,
	transcriptionOptionsProperty,
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [idempotencyKeyOption],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['transcription'], operation: ['create'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	client: TranscriptionServiceClient,
): Promise<INodeExecutionData[]> {
	const uploadId = uploadIdFrom(
		this,
		String(this.getNodeParameter('uploadId', itemIndex) ?? ''),
		itemIndex,
		'Upload ID',
	);
	const additionalFields = this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const idempotencyKey = idempotencyKeyFor(
		this,
		itemIndex,
		'job',
		options.idempotencyKey as string | undefined,
	);
	const created = await createTranscription(
		client,
		createRequest(uploadId, additionalFields),
		idempotencyKey,
		itemIndex,
	);
	return [{ json: { ...created } }];
}
