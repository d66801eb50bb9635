import {
	NodeConnectionTypes,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
	type IPollFunctions,
} from 'n8n-workflow';

import { properties } from './description';
import { poll } from './poll';

export class TranscriptionServicePollingTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Transcription Service Polling Trigger',
		name: 'transcriptionServicePollingTrigger',
		icon: {
			light: 'file:../../icons/transcriptionService.svg',
			dark: 'file:../../icons/transcriptionService.dark.svg',
		},
		group: ['trigger'],
		version: 1,
		subtitle: '={{ $parameter["events"].join(", ") }}',
		description:
			'Starts the workflow when a transcription completes or fails, by checking the service on a schedule (no public URL needed)',
		defaults: { name: 'Transcription Service Polling Trigger' },
		// Written by the build from package.json (scripts/documentation-links.ts).
		documentationUrl:
			'https://github.com.invalid/OWNER/n8n-nodes-transcription-service/blob/HEAD/docs/polling-trigger.md#using-it',
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'transcriptionServiceApi', required: true }],
		properties,
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		return await poll(this);
	}
}
