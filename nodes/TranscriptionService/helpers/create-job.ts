// Creating a job (spec 4.4): the Additional Fields collection, the request built from it, and the call. Shared by
// Transcription → Create and Transcribe and Download.
import type { IDataObject, INodeProperties } from 'n8n-workflow';

import {
	TRANSCRIPTION_CREATE_FIELDS,
	type PublicTranscriptionCreateRequest,
	type PublicTranscriptionCreateResponse,
} from '../../../src/api';
import type { TranscriptionServiceClient } from '../../shared/transport';
import { modelTierOptions, outputFormatOptions } from '../../shared/vocabulary';

/** The optional fields of the create request, named as the API names them; only those the user adds are sent. */
export const additionalFieldsProperty: INodeProperties = {
	displayName: 'Additional Fields',
	name: 'additionalFields',
	type: 'collection',
	placeholder: 'Add Field',
	default: {},
	options: [
		{
			displayName: 'Model Tier',
			name: 'model_tier',
			type: 'options',
			options: modelTierOptions,
			default: 'standard',
		},
		{
			displayName: 'Output Format',
			name: 'output_format',
			type: 'options',
			options: outputFormatOptions,
			default: 'srt',
			description: "The format the job's default artifact is downloaded in",
		},
		{
			displayName: 'Translate to Hebrew',
			name: 'translate_to_hebrew',
			type: 'boolean',
			default: false,
			description:
				'Whether to translate non-Hebrew speech into Hebrew. The language itself is detected automatically.',
		},
		{
			displayName: 'User Prompt',
			name: 'user_prompt',
			type: 'string',
			typeOptions: { rows: 3 },
			default: '',
			placeholder: 'e.g. Speakers: Dana Levi, Amir Cohen. Terms: n8n, Kubernetes.',
			description:
				'Vocabulary or guidance for the transcription, such as names and terms that occur in the media',
		},
		{
			displayName: 'Webhook URL',
			name: 'webhook_url',
			type: 'string',
			default: '',
			placeholder: 'e.g. https://n8n.example.com/webhook/4f1c…',
			description:
				'Public HTTPS URL (port 443) that receives a signed event when the job completes or fails: the Production URL of a Transcription Service Trigger. The job keeps this URL, so a Test URL (…/webhook-test/…) loses the event unless the trigger is still listening when the job ends.',
			// In Pause Until Webhook the job's webhook_url is the execution's resume URL.
			displayOptions: { hide: { '/waitMode': ['pauseUntilWebhook'] } },
		},
	],
};

export function createRequest(
	uploadId: string,
	additionalFields: IDataObject,
): PublicTranscriptionCreateRequest {
	const request: IDataObject = { upload_id: uploadId };
	for (const field of TRANSCRIPTION_CREATE_FIELDS) {
		if (field === 'upload_id') continue;
		const value = additionalFields[field];
		// An emptied text field means "not set"; the API rejects fields it does not know, so nothing else goes in.
		if (value === undefined || value === '') continue;
		request[field] = value;
	}
	return request as unknown as PublicTranscriptionCreateRequest;
}

export interface CreatedTranscription extends PublicTranscriptionCreateResponse {
	/** 202 for live keys (queued), 200 for test keys (completed at once). */
	http_status: number;
}

export async function createTranscription(
	client: TranscriptionServiceClient,
	request: PublicTranscriptionCreateRequest,
	idempotencyKey: string,
	itemIndex: number,
): Promise<CreatedTranscription> {
	const response = await client.request<PublicTranscriptionCreateResponse>({
		operation: 'createTranscription',
		body: { ...request },
		idempotencyKey,
		itemIndex,
	});
	return { ...response.body, http_status: response.status };
}
