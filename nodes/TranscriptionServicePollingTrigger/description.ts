import type { INodeProperties } from 'n8n-workflow';

import { artifactProperties, eventsProperty } from '../shared/event-properties';
import { pollingEventOptions } from '../shared/vocabulary';

export const properties: INodeProperties[] = [
	{
		displayName:
			"Checks the service for finished transcriptions at the Poll Times below, so it works where the service cannot reach n8n (a laptop, a home server, a company network). Each job is emitted once, starting with the jobs that finish after activation. A backlog drains at the pace of the account's rate limits whatever the Poll Times: a poll keeps working until it has caught up or the next tick comes near. Where n8n has a public HTTPS URL, the Transcription Service Trigger (webhook) is faster and makes no requests.",
		name: 'pollingNotice',
		type: 'notice',
		default: '',
	},
	{
		...eventsProperty,
		description: 'Which finished jobs start the workflow',
		options: pollingEventOptions,
	},
	...artifactProperties,
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		options: [
			{
				displayName: 'Share of Rate Limits (%)',
				name: 'rateLimitShare',
				type: 'number',
				default: 50,
				typeOptions: { minValue: 1, maxValue: 100 },
				description:
					"How much of the account's per-minute rate limits this trigger may use to catch up: list reads and, with Download Artifact, transcript downloads. The rest of each minute is left to the account's other workflows. At 50% a backlog drains at half the account's download limit (30 transcripts a minute on a 60-a-minute plan), faster than one account can start jobs; between ticks of the Poll Times, a poll keeps working until it is caught up or the next tick comes near.",
			},
		],
	},
];
