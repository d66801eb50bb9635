// The file name and media type a linked recording is declared with (its upload slot's filename and content_type): from
// what the media host says, in the order a browser saving the link would use.
import { cleanFileName } from '../artifacts/file-name';
import { parseContentDisposition } from '../artifacts/parse-content-disposition';

/** Extensions of the recordings people transcribe, with the media type each is served as. */
const MEDIA_TYPES: ReadonlyArray<[extension: string, mediaType: string, ...aliases: string[]]> = [
	['mp3', 'audio/mpeg', 'audio/mp3'],
	['wav', 'audio/wav', 'audio/x-wav', 'audio/wave', 'audio/vnd.wave'],
	['m4a', 'audio/mp4', 'audio/x-m4a', 'audio/m4a'],
	['aac', 'audio/aac'],
	['ogg', 'audio/ogg', 'application/ogg'],
	['opus', 'audio/opus'],
	['flac', 'audio/flac', 'audio/x-flac'],
	['weba', 'audio/webm'],
	['amr', 'audio/amr'],
	['wma', 'audio/x-ms-wma'],
	['mp4', 'video/mp4'],
	['m4v', 'video/x-m4v'],
	['mov', 'video/quicktime'],
	['webm', 'video/webm'],
	['mkv', 'video/x-matroska'],
	['avi', 'video/x-msvideo'],
	['mpeg', 'video/mpeg'],
	['3gp', 'video/3gpp', 'audio/3gpp'],
];

/** Types that say nothing about the content: the extension decides instead. */
const UNINFORMATIVE_TYPES = new Set([
	'',
	'application/octet-stream',
	'binary/octet-stream',
	'application/binary',
	'application/x-download',
	'application/force-download',
]);

export const FALLBACK_MEDIA_NAME = 'media';
export const FALLBACK_MEDIA_TYPE = 'application/octet-stream';

export interface MediaFileDetails {
	fileName: string;
	contentType: string;
}

export interface MediaResponseFacts {
	/** The URL that answered with the media (after redirects). */
	url: URL;
	contentDisposition?: string;
	contentType?: string;
}

/**
 * File name: Content-Disposition's filename, else the last segment of the URL's path, else "media"; given the media
 * type's extension when it has none. Media type: Content-Type, unless it is a generic one
 * (application/octet-stream …), where the file name's extension decides.
 */
export function mediaFileDetails(facts: MediaResponseFacts): MediaFileDetails {
	const headerType = (facts.contentType ?? '').split(';')[0].trim().toLowerCase();
	let fileName =
		cleanFileName(parseContentDisposition(facts.contentDisposition).filename ?? '') ||
		cleanFileName(lastPathSegment(facts.url)) ||
		FALLBACK_MEDIA_NAME;
	const extension = extensionOf(fileName);
	const contentType = UNINFORMATIVE_TYPES.has(headerType)
		? (mediaTypeOfExtension(extension) ?? (headerType || FALLBACK_MEDIA_TYPE))
		: headerType;
	if (extension === undefined) {
		const typeExtension = extensionOfMediaType(contentType);
		if (typeExtension) fileName = `${fileName}.${typeExtension}`;
	}
	return { fileName, contentType };
}

function lastPathSegment(url: URL): string {
	const segment =
		url.pathname
			.split('/')
			.filter((part) => part !== '')
			.pop() ?? '';
	try {
		return decodeURIComponent(segment);
	} catch {
		return segment;
	}
}

function extensionOf(fileName: string): string | undefined {
	const match = /\.([a-z0-9]{1,8})$/i.exec(fileName);
	return match ? match[1].toLowerCase() : undefined;
}

export function mediaTypeOfExtension(extension: string | undefined): string | undefined {
	return MEDIA_TYPES.find(([known]) => known === extension)?.[1];
}

export function extensionOfMediaType(mediaType: string): string | undefined {
	const type = mediaType.split(';')[0].trim().toLowerCase();
	return MEDIA_TYPES.find(
		([, primary, ...aliases]) => primary === type || aliases.includes(type),
	)?.[0];
}
