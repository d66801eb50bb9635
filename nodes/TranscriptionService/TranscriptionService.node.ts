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

/**
 * What n8n's AI workflow builder reads (n8n-workflow 2.4x's IBuilderHint; the project builds against 2.8, which lacks
 * the field). Older n8n ignores it.
 */
interface BuilderHint {
	searchHint: string;
	relatedNodes: Array<{ nodeType: string; relationHint: string }>;
}

export class TranscriptionService implements INodeType {
	description: INodeTypeDescription & { builderHint: BuilderHint } = {
		displayName: 'Transcription Service',
		name: 'transcriptionService',
		icon: {
			light: 'file:../../icons/transcriptionService.svg',
			dark: 'file:../../icons/transcriptionService.dark.svg',
		},
		group: ['transform'],
		version: 1,
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
		// As an AI agent's tool, n8n shows this description instead (and offers it as the tool's description); n8n 1.123
		// and later read the replacements.
		usableAsTool: {
			replacements: {
				description:
					'Transcribes speech in audio and video recordings with the Transcription Service and looks up transcription jobs. Depending on its operation it turns a recording into its transcript text and SRT, TXT, PDF or DOCX files, starts a job, reads a job by its job ID (status, detected language and dialect), lists recent jobs, or downloads a finished job\'s transcript. To transcribe, give it the recording\'s URL (an https:// link to the audio or video file, such as a podcast episode or a shared download link): it downloads the file, waits for the transcript and returns its text in the field "text". The service detects the language itself; a job that has not finished has no transcript yet.',
			},
		},
		builderHint: {
			searchHint:
				'To transcribe a recording, use Transcription > Transcribe and Download on items that hold the recording in a binary field (for example from a Form Trigger file field or a file read from disk), or with Media Source URL on a link to it (a podcast enclosure, a pre-signed S3 link; streamed, not stored in n8n): it uploads it, waits for the job and outputs the transcript in json.text plus one binary per chosen format (srt, txt, pdf, docx). Wait Mode Poll works anywhere; Pause Until Webhook needs n8n reachable at a public HTTPS URL. No language setting exists: the service detects it.',
			relatedNodes: [
				{
					nodeType: 'n8n-nodes-transcription-service.transcriptionServiceTrigger',
					relationHint:
						"Starts a workflow on the service's signed event when a job completes or fails",
				},
				{
					nodeType: 'n8n-nodes-transcription-service.transcriptionServicePollingTrigger',
					relationHint:
						'Starts a workflow for every job of the account that ends, for an n8n the service cannot reach',
				},
			],
		},
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{ name: 'transcriptionServiceApi', required: true },
			{
				name: 'transcriptionServiceMediaLinkApi',
				required: true,
				displayOptions: { show: { linkAuthentication: ['mediaLinkCredential'] } },
			},
		],
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
