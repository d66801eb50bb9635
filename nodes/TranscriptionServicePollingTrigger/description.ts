import type { INodeProperties } from 'n8n-workflow';

import { artifactProperties, eventsProperty } from '../shared/event-properties';
import { pollingEventOptions } from '../shared/vocabulary';

export const properties: INodeProperties[] = [
	{
		displayName:
			'Checks the service for finished transcriptions at the Poll Times below, so it works where the service cannot reach n8n (a laptop, a home server, a company network). Each job is emitted once, starting with the jobs that finish after activation. Where n8n has a public HTTPS URL, the Transcription Service Trigger (webhook) is faster and makes no requests.',
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
				displayName: 'Max Requests per Poll',
				name: 'maxRequests',
				type: 'number',
				default: 10,
				typeOptions: { minValue: 4, maxValue: 100 },
				description:
					'The most list requests one poll makes: one per selected event, and at least one more to search further. A search that needs more — a job that finished long after many newer ones, on an account with thousands of jobs — goes on at the next poll; no job is skipped.',
			},
		],
	},
];
