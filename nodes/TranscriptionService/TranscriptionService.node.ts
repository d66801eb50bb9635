import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
	type IWebhookDescription,
	type IWebhookFunctions,
	type IWebhookResponseData,
} from 'n8n-workflow';

import * as account from './actions/account/Account.resource';
import { router } from './actions/router';
import { searchJobs } from './methods/listSearch';
import { resumeOnRequest } from './actions/transcription/transcribeAndDownload/resume';
import * as transcription from './actions/transcription/Transcription.resource';
import * as upload from './actions/upload/Upload.resource';
import * as webhook from './actions/webhook/Webhook.resource';

/**
 * The resume URL of a paused execution ($execution.resumeUrl, no path suffix): the service's events for the jobs of
 * Transcribe and Download's Pause Until Webhook mode, and the pack's own signed checks. n8n registers nothing for a
 * restart webhook.
 */
const RESUME_WEBHOOKS: IWebhookDescription[] = [
	{
		name: 'default',
		httpMethod: 'POST',
		path: '',
		responseMode: 'onReceived',
		restartWebhook: true,
	},
];

export class TranscriptionService implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Transcription Service',
		name: 'transcriptionService',
		icon: {
			light: 'file:../../icons/transcriptionService.svg',
			dark: 'file:../../icons/transcriptionService.dark.svg',
		},
		group: ['transform'],
		// 2: Job (Get, Download Artifact) is a resource locator. Workflows saved with version 1 keep its Job ID string.
		version: [1, 2],
		defaultVersion: 2,
		// Labels rather than raw values under the node on the canvas. n8n's scanner requires a string literal here, so
		// this is where the canvas labels are written; a unit test keeps its keys equal to the operations offered.
		subtitle:
			'={{ {"account.get":"Get Account","transcription.create":"Create Transcription","transcription.downloadArtifact":"Download Artifact","transcription.get":"Get Transcription","transcription.getAll":"Get Many Transcriptions","transcription.transcribeAndDownload":"Transcribe and Download","upload.createSlot":"Create Upload Slot","upload.sendMedia":"Send Media","webhook.sendTestEvent":"Send Test Event"}[$parameter["resource"] + "." + $parameter["operation"]] }}',
		description:
			'Transcribe audio and video: upload media, create jobs, wait, and download SRT, TXT, PDF or DOCX',
		defaults: { name: 'Transcription Service' },
		// Written by the build from package.json (scripts/documentation-links.ts).
		documentationUrl:
			'https://github.com.invalid/OWNER/n8n-nodes-transcription-service/blob/HEAD/docs/nodes.md#operations',
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'transcriptionServiceApi', required: true }],
		webhooks: RESUME_WEBHOOKS,
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Account', value: 'account' },
					{ name: 'Transcription', value: 'transcription' },
					{ name: 'Upload', value: 'upload' },
					{ name: 'Webhook', value: 'webhook' },
				],
				default: 'transcription',
			},
			...transcription.description,
			...upload.description,
			...account.description,
			...webhook.description,
		],
	};

	methods = {
		listSearch: { searchJobs },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await resumeOnRequest.call(this);
	}
}
