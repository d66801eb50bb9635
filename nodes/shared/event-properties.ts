// What both triggers ask: which events start the workflow, and whether to attach the transcript.
import type { INodeProperties } from 'n8n-workflow';

import { artifactFormatOptions, triggerEventOptions } from './vocabulary';

export const eventsProperty: INodeProperties = {
	displayName: 'Events',
	name: 'events',
	type: 'multiOptions',
	required: true,
	default: ['transcription.completed', 'transcription.failed'],
	description: 'Events that start the workflow; other events are acknowledged and ignored',
	options: triggerEventOptions,
};

export const artifactProperties: INodeProperties[] = [
	{
		displayName: 'Download Artifact',
		name: 'downloadArtifact',
		type: 'boolean',
		default: false,
		description:
			"Whether to download the transcript of each completed job with the credential's API key and attach it as a file. If the download fails, the event still starts the workflow, with an artifact_error field.",
	},
	{
		displayName: 'Artifact Format',
		name: 'artifactFormat',
		type: 'options',
		default: 'srt',
		displayOptions: { show: { downloadArtifact: [true] } },
		options: artifactFormatOptions,
	},
	{
		displayName: 'Put Output File in Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		displayOptions: { show: { downloadArtifact: [true] } },
		hint: 'The name of the output binary field to put the transcript in',
	},
	{
		displayName: 'Include Cues',
		name: 'includeCues',
		type: 'boolean',
		default: false,
		displayOptions: { show: { downloadArtifact: [true] } },
		description:
			'Whether to also put the timed cues on the item\'s JSON as "cues": a list of {start, end, text}, times in seconds, read from the SRT (one more download when the Artifact Format is not SRT or WebVTT)',
	},
];
