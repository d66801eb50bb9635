import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { PublicWebhookTestResponse } from '../../../../src/api';
import type { TranscriptionServiceClient } from '../../../shared/transport';
import { webhookEventOptions } from '../../../shared/vocabulary';

const properties: INodeProperties[] = [
	{
		displayName: 'Webhook URL',
		name: 'webhookUrl',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. https://n8n.example.com/webhook-test/4f1c…',
		description:
			'Public HTTPS address (port 443) that should receive the signed test event. For a Transcription Service Trigger: its Test URL while it listens for a test event, or its Production URL once the workflow is published; it starts the workflow for test events only with Webhook Test among its Events.',
	},
	{
		displayName: 'Event Type',
		name: 'eventType',
		type: 'options',
		options: webhookEventOptions,
		default: 'transcription.completed',
		description: 'The event type placed in the signed test payload',
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['webhook'], operation: ['sendTestEvent'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	client: TranscriptionServiceClient,
): Promise<INodeExecutionData[]> {
	const body: IDataObject = {
		webhook_url: (this.getNodeParameter('webhookUrl', itemIndex) as string).trim(),
		event_type: this.getNodeParameter('eventType', itemIndex) as string,
	};
	const response = await client.request<PublicWebhookTestResponse>({
		operation: 'testWebhook',
		body,
		itemIndex,
	});
	// A target that refused the event is a finding, not a node failure: `delivered`, `status_code` and `error` say why.
	return [{ json: { ...response.body } }];
}
