import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';

import * as account from './actions/account/Account.resource';
import { router, subtitleExpression } from './actions/router';
import * as transcription from './actions/transcription/Transcription.resource';
import * as upload from './actions/upload/Upload.resource';
import * as webhook from './actions/webhook/Webhook.resource';

export class TranscriptionService implements INodeType {
	// The subtitle lint rule wants a string literal, i.e. every operation label written out a second time; the
	// subtitle is built from the operation entries instead (n8n's community scanner does not run that rule).
	// eslint-disable-next-line n8n-nodes-base/node-class-description-missing-subtitle
	description: INodeTypeDescription = {
		displayName: 'Transcription Service',
		name: 'transcriptionService',
		icon: {
			light: 'file:../../icons/transcriptionService.svg',
			dark: 'file:../../icons/transcriptionService.dark.svg',
		},
		group: ['transform'],
		version: 1,
		// Labels rather than raw values under the node on the canvas, built from each operation's own entry.
		subtitle: subtitleExpression(),
		description:
			'Transcribe audio and video: upload media, create jobs, wait, and download SRT, TXT, PDF or DOCX',
		defaults: { name: 'Transcription Service' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'transcriptionServiceApi', required: true }],
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

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
