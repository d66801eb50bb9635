import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import type { PublicUploadCreateRequest } from '../../../../src/api';
import { inputBinaryFieldProperty, inputMedia } from '../../helpers/binary';
import {
	mediaLinkProperties,
	openLinkedMedia,
	readMediaLinkSettings,
} from '../../helpers/media-link';
import { idempotencyKeyFor } from '../../helpers/idempotency';
import { createUploadSlot } from '../../helpers/upload';
import type { TranscriptionServiceClient } from '../../../shared/transport';

const properties: INodeProperties[] = [
	{
		displayName: 'Media Details',
		name: 'source',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'From Input Binary',
				value: 'binary',
				description: 'Take file name, MIME type and size from a binary field of the input item',
			},
			{
				name: 'From URL',
				value: 'url',
				description:
					"Take them from what the link's host announces (its Content-Length, file name and type), without downloading the file",
			},
			{
				name: 'Typed In',
				value: 'manual',
				description: 'Enter file name, MIME type and size yourself',
			},
		],
		default: 'binary',
	},
	{ ...inputBinaryFieldProperty, displayOptions: { show: { source: ['binary'] } } },
	...mediaLinkProperties({ source: ['url'] }),
	{
		displayName: 'File Name',
		name: 'filename',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. interview.mp3',
		description: 'Original media file name including its extension',
		displayOptions: { show: { source: ['manual'] } },
	},
	{
		displayName: 'Content Type',
		name: 'content_type',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. audio/mpeg',
		description: 'MIME type of the media',
		displayOptions: { show: { source: ['manual'] } },
	},
	{
		displayName: 'Size (Bytes)',
		name: 'size_bytes',
		type: 'number',
		required: true,
		typeOptions: { minValue: 1 },
		default: 1,
		description: 'Exact byte length of the file that Send Media will upload',
		displayOptions: { show: { source: ['manual'] } },
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Content Type',
				name: 'content_type',
				type: 'string',
				default: '',
				placeholder: 'e.g. audio/wav',
				description: "MIME type to declare instead of the binary's own",
				displayOptions: { show: { '/source': ['binary'] } },
			},
			{
				displayName: 'File Name',
				name: 'filename',
				type: 'string',
				default: '',
				placeholder: 'e.g. interview.wav',
				description:
					"File name to declare instead of the binary's own; the transcript files are named after it",
				displayOptions: { show: { '/source': ['binary'] } },
			},
			{
				displayName: 'Idempotency Key',
				name: 'idempotencyKey',
				type: 'string',
				default: '',
				placeholder: 'e.g. {{ $json.fileId }}',
				description:
					'1–200 characters. The same key with the same details returns the same slot for 24 hours instead of a new one. Left empty, the node generates one per item.',
			},
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['upload'], operation: ['createSlot'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	client: TranscriptionServiceClient,
): Promise<INodeExecutionData[]> {
	const source = this.getNodeParameter('source', itemIndex) as 'binary' | 'url' | 'manual';
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const idempotencyKey = idempotencyKeyFor(
		this,
		itemIndex,
		'slot',
		options.idempotencyKey as string | undefined,
	);

	let request: PublicUploadCreateRequest;
	if (source === 'binary') {
		const propertyName = this.getNodeParameter('binaryPropertyName', itemIndex) as string;
		const media = await inputMedia(this, itemIndex, propertyName);
		request = {
			filename: (options.filename as string) || media.fileName,
			content_type: (options.content_type as string) || media.mimeType,
			size_bytes: media.sizeBytes,
		};
	} else if (source === 'url') {
		// The answer's headers say it all; the connection is closed before the file's bytes are read.
		const media = await openLinkedMedia(this, readMediaLinkSettings(this, itemIndex), itemIndex, {
			store: false,
		});
		media.close();
		request = {
			filename: media.fileName,
			content_type: media.mimeType,
			size_bytes: media.sizeBytes,
		};
	} else {
		request = {
			filename: this.getNodeParameter('filename', itemIndex) as string,
			content_type: this.getNodeParameter('content_type', itemIndex) as string,
			size_bytes: this.getNodeParameter('size_bytes', itemIndex) as number,
		};
	}
	if (!(Number.isInteger(request.size_bytes) && request.size_bytes > 0)) {
		const description =
			source === 'binary'
				? 'The input binary is empty. Check the node that produced it.'
				: 'Set "Size (Bytes)" to the file\'s exact length.';
		throw new NodeOperationError(
			this.getNode(),
			`The media is ${request.size_bytes} bytes; a slot needs at least 1 byte`,
			{ itemIndex, description },
		);
	}

	const slot = await createUploadSlot(client, request, idempotencyKey, itemIndex);
	// The declared details and the item's binaries travel along, so Send Media can check the size before sending.
	const json: IDataObject = { ...slot, ...request };
	const { binary } = this.getInputData()[itemIndex];
	return [binary ? { json, binary } : { json }];
}
