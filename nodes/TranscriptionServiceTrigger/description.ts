import type { INodeProperties } from 'n8n-workflow';

import { WEBHOOK_TEST_EVENT } from '../../src/api';
import { DEFAULT_TOLERANCE_SECONDS } from '../../src/webhooks';

export const properties: INodeProperties[] = [
	{
		displayName:
			"The service has no webhook registration: a job's Webhook URL is its registration. Copy this node's <b>Production URL</b> (Webhook URLs, above) into the Webhook URL field of the Transcription Service node (Create Transcription or Transcribe and Download), then activate this workflow. The service delivers only to public HTTPS on port 443.",
		name: 'registrationNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Events',
		name: 'events',
		type: 'multiOptions',
		required: true,
		default: ['transcription.completed', 'transcription.failed'],
		description: 'Events that start the workflow; other events are acknowledged and ignored',
		options: [
			{
				name: 'Transcription Completed',
				value: 'transcription.completed',
				description: 'A job finished; its transcript can be downloaded',
			},
			{
				name: 'Transcription Failed',
				value: 'transcription.failed',
				description: 'A job ended without a transcript',
			},
			{
				name: 'Webhook Test',
				value: WEBHOOK_TEST_EVENT,
				description: 'A synthetic event sent by the Test Webhook operation (test_mode is true)',
			},
		],
	},
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
		options: [
			{ name: 'DOCX', value: 'docx' },
			{ name: 'PDF', value: 'pdf' },
			{ name: 'SRT Subtitles', value: 'srt' },
			{ name: 'Plain Text', value: 'txt' },
		],
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
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		options: [
			{
				displayName: 'Deduplicate Events',
				name: 'deduplicate',
				type: 'boolean',
				default: true,
				description:
					'Whether to ignore an event whose event ID arrived before (the last 1,000 IDs within 24 hours are kept). Best effort: use the Remove Duplicates node when a duplicate must never get through.',
			},
			{
				displayName: 'Timestamp Tolerance (Seconds)',
				name: 'toleranceSeconds',
				type: 'number',
				default: DEFAULT_TOLERANCE_SECONDS,
				typeOptions: { minValue: 1 },
				description:
					"How far X-Service-Timestamp may be from this server's clock, either way, for an event to be accepted. Older deliveries are rejected as replays.",
			},
			{
				displayName: 'Verify on Activation',
				name: 'verifyOnActivation',
				type: 'boolean',
				default: false,
				description:
					"Whether activating the workflow first asks the service to send a signed test event to this node's Production URL (POST /webhooks/test), and fails if it cannot be delivered",
			},
		],
	},
];
