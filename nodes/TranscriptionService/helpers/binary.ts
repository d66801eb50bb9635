// Input media from an item's binary property: its name, type and exact size, and a body factory that streams the
// bytes from n8n's binary store (buffers only binaries that already live in memory).
import type { IBinaryData, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { BinaryStream } from '../../shared/transport';

/** The parameter that names the input item's media binary (Create Slot, Send Media, Transcribe and Download). */
export const inputBinaryFieldProperty: INodeProperties = {
	displayName: 'Input Binary Field',
	name: 'binaryPropertyName',
	type: 'string',
	required: true,
	default: 'data',
	description: 'The name of the input binary field containing the file to be uploaded',
};

export interface InputMedia {
	propertyName: string;
	binary: IBinaryData;
	fileName: string;
	mimeType: string;
	sizeBytes: number;
	/** A fresh body for every attempt: a retried upload never reuses a consumed stream. */
	body: () => Promise<Buffer | BinaryStream>;
}

export async function inputMedia(
	context: IExecuteFunctions,
	itemIndex: number,
	propertyName: string,
): Promise<InputMedia> {
	const item = context.getInputData()[itemIndex];
	const binary = item?.binary?.[propertyName];
	if (!binary) {
		const present = Object.keys(item?.binary ?? {});
		throw new NodeOperationError(
			context.getNode(),
			`The item has no binary field "${propertyName}"`,
			{
				itemIndex,
				description: present.length
					? `Its binary fields are: ${present.map((name) => `"${name}"`).join(', ')}. Set "Input Binary Field" to one of them.`
					: 'It has no binary fields at all. Read the media file first (e.g. with "Read/Write Files from Disk" or "HTTP Request").',
			},
		);
	}
	const binaryId = binary.id;
	const sizeBytes = binaryId
		? (await context.helpers.getBinaryMetadata(binaryId)).fileSize
		: Buffer.byteLength(binary.data, 'base64');
	return {
		propertyName,
		binary,
		fileName: binary.fileName || fallbackFileName(propertyName, binary.fileExtension),
		mimeType: binary.mimeType || 'application/octet-stream',
		sizeBytes,
		body: binaryId
			? async () => await context.helpers.getBinaryStream(binaryId)
			: async () => await context.helpers.getBinaryDataBuffer(itemIndex, propertyName),
	};
}

function fallbackFileName(propertyName: string, extension: string | undefined): string {
	return extension ? `${propertyName}.${extension}` : propertyName;
}
