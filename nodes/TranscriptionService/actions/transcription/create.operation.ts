import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import {
	additionalFieldsProperty,
	createRequest,
	createTranscription,
} from '../../helpers/create-job';
import { idempotencyKeyFor } from '../../helpers/idempotency';
import { uploadIdFrom } from '../../helpers/upload';
import type { TranscriptionServiceClient } from '../../../shared/transport';

const jobUploadIdProperty: INodeProperties = {
	displayName: 'Upload ID',
	name: 'uploadId',
	type: 'string',
	required: true,
	default: '={{ $json.upload_id }}',
	placeholder: 'e.g. upl_123',
	description:
		'The upload_id of a slot that holds the media bytes (after Send Media). Its upload_url works too.',
};

const idempotencyKeyOption: INodeProperties = {
	displayName: 'Idempotency Key',
	name: 'idempotencyKey',
	type: 'string',
	default: '',
	placeholder: 'e.g. {{ $json.upload_id }}',
	description:
		'1–200 characters. The same key with the same fields returns the same job for 24 hours instead of starting a second one. Left empty, the node derives one from the execution and the item, so a retry of the node never starts a second job.',
};

const properties: INodeProperties[] = [
	jobUploadIdProperty,
	additionalFieldsProperty,
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
