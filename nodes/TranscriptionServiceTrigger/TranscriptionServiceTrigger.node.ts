import {
	NodeConnectionTypes,
	type IDataObject,
	type IHookFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
	type IWebhookFunctions,
	type IWebhookResponseData,
} from 'n8n-workflow';

import { isWebhookTestDelivery, type WebhookEventBody } from '../../src/webhooks';
import { assertSigningSecret, requestTestDelivery } from './activation';
import { mergeSeenEvents, processSeenEvents, rememberInProcess } from './dedupe';
import { eventItemJson, withEventArtifact } from '../shared/event-item';
import { readArtifactDownload } from '../shared/event-properties';
import { readRawBody, signingSecrets } from '../shared/webhook-request';
import { decideDelivery, resolveSettings, type DeliverySettings } from './delivery-decision';
import { properties, readTriggerOptions } from './description';

export class TranscriptionServiceTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Transcription Service Trigger',
		name: 'transcriptionServiceTrigger',
		icon: {
			light: 'file:../../icons/transcriptionService.svg',
			dark: 'file:../../icons/transcriptionService.dark.svg',
		},
		group: ['trigger'],
		version: 1,
		subtitle: '={{ $parameter["events"].join(", ") }}',
		description:
			'Starts the workflow when a transcription completes or fails (signed webhook events)',
		defaults: { name: 'Transcription Service Trigger' },
		// Written by the build from package.json (scripts/documentation-links.ts).
		documentationUrl:
			'https://github.com.invalid/OWNER/n8n-nodes-transcription-service/blob/HEAD/docs/nodes.md#trigger',
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'transcriptionServiceApi', required: true }],
		webhooks: [
			{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' },
		],
		properties,
	};

	// The API has no webhook registration (a job's webhook_url is the registration): activation records the URL,
	// checks the credential and, if asked, has the service send a test event to it.
	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return this.getWorkflowStaticData('node').webhookUrl === this.getNodeWebhookUrl('default');
			},
			async create(this: IHookFunctions): Promise<boolean> {
				const webhookUrl = this.getNodeWebhookUrl('default') ?? '';
				await assertSigningSecret(this);
				const options = readTriggerOptions(this.getNodeParameter('options', {}) as IDataObject);
				// A test listener ("Listen for test event") is not an activation, and its URL is not yet live here.
				if (options.verifyOnActivation && this.getMode() !== 'manual') {
					await requestTestDelivery(this, webhookUrl);
				}
				this.getWorkflowStaticData('node').webhookUrl = webhookUrl;
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				// The dedupe window stays: the service may still redeliver events accepted before a reactivation.
				delete this.getWorkflowStaticData('node').webhookUrl;
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const receivedAtMs = Date.now();
		const response = this.getResponseObject();
		const body = await readRawBody(this.getRequestObject());
		const staticData = this.getWorkflowStaticData('node');
		const secrets = body.ok ? await signingSecrets(this) : [];
		// From here to remembering the event there is no await: within this process the dedupe check is exact.
		// The Test URL keeps no memory, as n8n keeps no static data for it: a test event can be replayed.
		const dedupeKey =
			this.getMode() === 'manual'
				? undefined
				: `${this.getWorkflow().id ?? ''}:${this.getNode().id}`;
		const decision = body.ok
			? decideDelivery({
					rawBody: body.rawBody,
					headers: this.getHeaderData(),
					secrets,
					settings: readSettings(this),
					nowMs: receivedAtMs,
					seenEvents: dedupeKey
						? mergeSeenEvents(staticData.seenEvents, processSeenEvents(dedupeKey), receivedAtMs)
						: staticData.seenEvents,
				})
			: body.rejection;
		if (decision.action === 'accept' && decision.seenEvents) {
			staticData.seenEvents = decision.seenEvents;
			if (dedupeKey) rememberInProcess(dedupeKey, decision.seenEvents);
		}

		// Answered before any download: the service counts a slow answer as a failed delivery.
		response.status(decision.status).json(decision.response);
		if (decision.action === 'reject') {
			this.logger.warn(
				`Transcription Service Trigger refused a delivery (${decision.status}): ${decision.message}`,
			);
			return { noWebhookResponse: true };
		}
		if (decision.action === 'ignore') return { noWebhookResponse: true };

		const item = await eventItem(this, decision.event, receivedAtMs);
		return { noWebhookResponse: true, workflowData: [[item]] };
	}
}

function readSettings(context: IWebhookFunctions): DeliverySettings {
	return resolveSettings(
		context.getNodeParameter('events', undefined) as string[] | undefined,
		context.getNodeParameter('options', {}) as IDataObject,
	);
}

async function eventItem(
	context: IWebhookFunctions,
	event: WebhookEventBody,
	receivedAtMs: number,
): Promise<INodeExecutionData> {
	const json: IDataObject = eventItemJson(event, receivedAtMs);
	const artifact = readArtifactDownload((name, unset) => context.getNodeParameter(name, unset));
	if (
		!artifact.download ||
		event.event !== 'transcription.completed' ||
		isWebhookTestDelivery(event)
	)
		return { json };

	return await withEventArtifact(context, json, event.job_id, artifact);
}
