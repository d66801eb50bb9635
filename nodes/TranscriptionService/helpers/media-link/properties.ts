// The fields that take a recording by its link (Transcribe and Download, Send Media, Create Slot), and reading them.
import type {
	IDataObject,
	IDisplayOptions,
	IExecuteFunctions,
	INodeProperties,
} from 'n8n-workflow';

import { parseMediaLink } from '../../../../src/media';
import { operationError } from '../../../shared/errors';
import type { MediaLinkSettings } from './linked-media';

export type MediaSource = 'binary' | 'url';

/** Where the recording comes from (Transcribe and Download, Send Media; Create Slot has its own Media Details). */
export const mediaSourceProperty: INodeProperties = {
	displayName: 'Media Source',
	name: 'mediaSource',
	type: 'options',
	noDataExpression: true,
	options: [
		{
			name: 'Binary Field',
			value: 'binary',
			description: 'A binary field of the input item holds the recording',
		},
		{
			name: 'URL',
			value: 'url',
			description:
				'A link to the recording: downloaded and streamed into the upload, not stored in n8n when its host sends the length',
		},
	],
	default: 'binary',
};

const DEFAULT_IDLE_TIMEOUT_SECONDS = 30;
/** The upload slot expires 30 minutes after it is made: the download must be over well before. */
const DEFAULT_DEADLINE_SECONDS = 1500;

/** The link's fields, shown when `show` holds. */
export function mediaLinkProperties(show: NonNullable<IDisplayOptions['show']>): INodeProperties[] {
	return [
		{
			displayName: 'Media URL',
			name: 'mediaUrl',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'e.g. https://media.example.com/episodes/42.mp3',
			description:
				"Link to the recording (https:// or http://): a podcast episode, a pre-signed S3/GCS/Azure link, a direct download link. The node downloads it and streams it into the upload. A pre-signed link's query is its signature: errors and output show the link without it. As an AI agent's tool, let the model fill this in ($fromAI).",
			displayOptions: { show },
		},
		{
			displayName: 'Link Authentication',
			name: 'linkAuthentication',
			type: 'options',
			noDataExpression: true,
			options: [
				{
					name: 'Media Link Credential',
					value: 'mediaLinkCredential',
					description:
						'A header or user and password from a credential, sent only to the hosts it allows and never after a redirect to another host',
				},
				{
					name: 'None',
					value: 'none',
					description: 'The link opens without a login (public, or pre-signed)',
				},
			],
			default: 'none',
			displayOptions: { show },
		},
		{
			displayName: 'Link Options',
			name: 'linkOptions',
			type: 'collection',
			placeholder: 'Add Option',
			default: {},
			displayOptions: { show },
			options: [
				{
					displayName: 'Content Type',
					name: 'contentType',
					type: 'string',
					default: '',
					placeholder: 'e.g. audio/mpeg',
					description:
						"MIME type to declare instead of the one the host sends (or the file name's extension suggests)",
				},
				{
					displayName: 'Deadline (Seconds)',
					name: 'deadlineSeconds',
					type: 'number',
					typeOptions: { minValue: 1 },
					default: DEFAULT_DEADLINE_SECONDS,
					description:
						'How long the whole download may take. The upload slot expires 30 minutes after it is made, so the default leaves room for the rest.',
				},
				{
					displayName: 'File Name',
					name: 'fileName',
					type: 'string',
					default: '',
					placeholder: 'e.g. episode-42.mp3',
					description:
						"File name to declare instead of the host's (its Content-Disposition, else the link's last path segment); the transcript files are named after it",
				},
				{
					displayName: 'Idle Timeout (Seconds)',
					name: 'idleTimeoutSeconds',
					type: 'number',
					typeOptions: { minValue: 1 },
					default: DEFAULT_IDLE_TIMEOUT_SECONDS,
					description:
						'How long the host may send nothing, before its answer and between two parts of the file, before the download is given up',
				},
			],
		},
	];
}

/** The link fields of item `itemIndex`, the link checked (http/https, no user:password@, nothing that reads as another host). */
export function readMediaLinkSettings(
	context: IExecuteFunctions,
	itemIndex: number,
): MediaLinkSettings {
	const raw = context.getNodeParameter('mediaUrl', itemIndex, '') as unknown;
	const link = parseMediaLink(typeof raw === 'string' ? raw : String(raw ?? ''));
	if (!(link instanceof URL)) {
		throw operationError(context.getNode(), {
			code: link.code,
			message: link.message,
			description:
				'Set "Media URL" to the link of the recording, such as https://media.example.com/episodes/42.mp3.',
			itemIndex,
		});
	}
	const options = context.getNodeParameter('linkOptions', itemIndex, {}) as IDataObject;
	const seconds = (value: unknown, fallback: number) => {
		const number = Number(value ?? fallback);
		return Number.isFinite(number) && number > 0 ? number : fallback;
	};
	return {
		link,
		authenticate:
			context.getNodeParameter('linkAuthentication', itemIndex, 'none') === 'mediaLinkCredential',
		fileName: typeof options.fileName === 'string' ? options.fileName.trim() : undefined,
		contentType: typeof options.contentType === 'string' ? options.contentType.trim() : undefined,
		idleTimeoutMs: seconds(options.idleTimeoutSeconds, DEFAULT_IDLE_TIMEOUT_SECONDS) * 1000,
		deadlineMs: seconds(options.deadlineSeconds, DEFAULT_DEADLINE_SECONDS) * 1000,
	};
}

/** Where item `itemIndex`'s recording comes from. */
export function readMediaSource(context: IExecuteFunctions, itemIndex: number): MediaSource {
	return context.getNodeParameter('mediaSource', itemIndex, 'binary') === 'url' ? 'url' : 'binary';
}
