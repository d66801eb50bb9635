// Properties several transcription operations show.
import type { INodeProperties } from 'n8n-workflow';

export const jobIdProperty: INodeProperties = {
	displayName: 'Job ID',
	name: 'jobId',
	type: 'string',
	required: true,
	default: '={{ $json.job_id }}',
	placeholder: 'e.g. job_123',
	description: 'The job_id returned when the transcription was created',
};

export const jobUploadIdProperty: INodeProperties = {
	displayName: 'Upload ID',
	name: 'uploadId',
	type: 'string',
	required: true,
	default: '={{ $json.upload_id }}',
	placeholder: 'e.g. upl_123',
	description: 'The upload_id of a slot that holds the media bytes (after Send Media)',
};

export const idempotencyKeyOption: INodeProperties = {
	displayName: 'Idempotency Key',
	name: 'idempotencyKey',
	type: 'string',
	default: '',
	placeholder: 'e.g. {{ $json.upload_id }}',
	description:
		'1–200 characters. The same key with the same fields returns the same job for 24 hours instead of starting a second one. Left empty, the node derives one from the execution and the item, so a retry of the node never starts a second job.',
};
