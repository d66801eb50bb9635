// An item's recording, wherever it lives: a binary field of the item, or a link (Media Source). What an upload slot
// and its upload need from it, the same for both.
import type { IExecuteFunctions } from 'n8n-workflow';

import { inputMedia } from './binary';
import { openLinkedMedia, readMediaLinkSettings, readMediaSource } from './media-link';
import type { MediaBody } from './upload';

export interface ItemMedia extends MediaBody {
	fileName: string;
	mimeType: string;
	sizeBytes: number;
	/** Where the bytes come from, as an error may name it: `"data"` (a binary field) or the link without its query. */
	origin: string;
	/** Lets go of what the media holds open (a download not read to its end). */
	close(): void;
}

/** The recording of item `itemIndex`, from its binary field `binaryPropertyName` or from the link in "Media URL". */
export async function itemMedia(
	context: IExecuteFunctions,
	itemIndex: number,
	binaryPropertyName: string,
): Promise<ItemMedia> {
	if (readMediaSource(context, itemIndex) === 'url') {
		const linked = await openLinkedMedia(
			context,
			readMediaLinkSettings(context, itemIndex),
			itemIndex,
		);
		return { ...linked, origin: linked.shownLink };
	}
	const media = await inputMedia(context, itemIndex, binaryPropertyName);
	return { ...media, origin: `"${binaryPropertyName}"`, close: () => undefined };
}
