import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { inputBinaryFieldProperty } from '../../helpers/binary';
import { itemMedia } from '../../helpers/item-media';
import { mediaLinkProperties, mediaSourceProperty } from '../../helpers/media-link';
import { uploadIdFrom, uploadMedia } from '../../helpers/upload';
import { operationError } from '../../../shared/errors';
import type { TranscriptionServiceClient } from '../../../shared/transport';

const properties: INodeProperties[] = [
	{
		displayName: 'Upload',
		name: 'upload',
		type: 'string',
		required: true,
		default: '={{ $json.upload_id }}',
		placeholder: 'e.g. upl_123 or /api/v1/uploads/upl_123/binary',
		description:
			'The upload_id of the slot, or its upload_url. By default taken from a preceding Create Slot.',
	},
	mediaSourceProperty,
	{ ...inputBinaryFieldProperty, displayOptions: { show: { mediaSource: ['binary'] } } },
	...mediaLinkProperties({ mediaSource: ['url'] }),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Declared Size (Bytes)',
				name: 'declaredSize',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: 1,
				description:
					'The size_bytes given when the slot was created. A file of another size is refused before any byte is sent. When not set, the size_bytes of an input item that came from Create Slot for this upload is used.',
			},
		],
	},
];

export const description = updateDisplayOptions(
	{ show: { resource: ['upload'], operation: ['sendMedia'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	client: TranscriptionServiceClient,
): Promise<INodeExecutionData[]> {
	const reference = String(this.getNodeParameter('upload', itemIndex) ?? '').trim();
	if (reference === '') {
		throw new NodeOperationError(this.getNode(), 'The parameter "Upload" is empty', {
			itemIndex,
			description: 'Set it to the upload_id (or upload_url) that Create Slot returned.',
		});
	}
	const uploadId = uploadIdFrom(this, reference, itemIndex);
	// Hidden (and so absent) when the media comes from a link.
	const propertyName = this.getNodeParameter('binaryPropertyName', itemIndex, 'data') as string;
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const media = await itemMedia(this, itemIndex, propertyName);

	const declaredSize = declaredSizeOf(options, this.getInputData()[itemIndex].json, uploadId);
	if (declaredSize !== undefined && declaredSize !== media.sizeBytes) {
		media.close();
		throw operationError(this.getNode(), {
			code: 'upload_size_mismatch',
			message: `The file in ${media.origin} is ${media.sizeBytes} bytes but the slot was declared with ${declaredSize} bytes`,
			description:
				"The service stores a slot's bytes only when their count equals the declared size_bytes. Nothing was sent: create a new slot with the file's size (Create Slot → From Input Binary or From URL does that).",
			upload_id: uploadId,
			itemIndex,
		});
	}

	const result = await uploadMedia(this, client, uploadId, media, itemIndex);
	return [{ json: { upload_id: uploadId, ...result } }];
}

function declaredSizeOf(
	options: IDataObject,
	itemJson: IDataObject,
	uploadId: string,
): number | undefined {
	if (typeof options.declaredSize === 'number') return options.declaredSize;
	if (itemJson.upload_id === uploadId && typeof itemJson.size_bytes === 'number')
		return itemJson.size_bytes;
	return undefined;
}
