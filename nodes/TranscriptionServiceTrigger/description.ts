import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { DEFAULT_TOLERANCE_SECONDS } from '../../src/webhooks';
import { artifactProperties, eventsProperty, readOption } from '../shared/event-properties';
import { MAX_TOLERANCE_SECONDS } from './dedupe';

export const properties: INodeProperties[] = [
	{
		displayName:
			"Each job sends its events to the Webhook URL it was created with; the service has no other registration. Copy this node's <b>Production URL</b> (open <i>Webhook URLs</i> above) into <b>Additional Fields → Webhook URL</b> of the Transcription Service node (Create or Transcribe and Download), then publish (activate) this workflow. The Test URL gets a job's events only while this node is listening. The service delivers to public HTTPS on port 443 only.",
		name: 'registrationNotice',
		type: 'notice',
		default: '',
	},
	eventsProperty,
	...artifactProperties,
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
				typeOptions: { minValue: 1, maxValue: MAX_TOLERANCE_SECONDS },
				description: `How far X-Service-Timestamp may be from this server's clock, either way, for an event to be accepted (at most ${MAX_TOLERANCE_SECONDS}, so a replay is refused before the duplicate check forgets its event ID). Older deliveries are rejected as replays.`,
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

/** The Options collection as the trigger reads it: each option as set, or else the default its field declares. */
export interface TriggerOptions {
	deduplicate: boolean;
	toleranceSeconds: number;
	verifyOnActivation: boolean;
}

export function readTriggerOptions(options: IDataObject): TriggerOptions {
	const option = (name: string) => readOption(options, properties, 'options', name);
	return {
		deduplicate: Boolean(option('deduplicate')),
		toleranceSeconds: Number(option('toleranceSeconds')),
		verifyOnActivation: option('verifyOnActivation') === true,
	};
}
