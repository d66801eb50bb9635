// A recording behind a link, ready for an upload slot: its name, type and exact size, and its bytes. When the host
// announces the length, the bytes go from the host's answer straight into the upload (nothing in n8n's binary store,
// never the whole file in memory); without a length they are first stored in n8n's binary data store, in whatever mode
// this n8n runs it, and uploaded from there.
import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';

import { formatBytes } from '../../../../src/client';
import { mediaFileDetails, redactLink } from '../../../../src/media';
import type { BinaryStream } from '../../../shared/transport';
import type { MediaBody } from '../upload';
import { checkMediaLinkCredential } from './credential';
import { mediaError } from './errors';
import { requestMedia, type MediaAnswer } from './request';
import { MediaTransfer } from './transfer';

/**
 * The largest binary n8n's "database" mode hands back: node-postgres reads a bytea column as hex text ("\x" and two
 * characters a byte), and a V8 string stops at 2^29 − 24 characters (test/queue/transcribe-on-workers.test.ts).
 */
const DATABASE_MODE_LARGEST_READABLE_BYTES = 2 ** 28 - 13;

export interface MediaLinkSettings {
	link: URL;
	/** Send the Media Link credential with the request (to the link's own origin only). */
	authenticate: boolean;
	/** Declared instead of what the host says. */
	fileName?: string;
	contentType?: string;
	idleTimeoutMs: number;
	deadlineMs: number;
}

export interface LinkedMedia extends MediaBody {
	fileName: string;
	mimeType: string;
	sizeBytes: number;
	/** The link as errors and output may show it (no query). */
	shownLink: string;
	/** Closes a download still open (the item failed before its upload, or is done). */
	close(): void;
}

/**
 * GETs the link and reads what the upload slot needs from the answer's headers. `store: false` (Create Slot, which
 * sends no bytes) refuses a link without a length instead of downloading it into n8n's store.
 */
export async function openLinkedMedia(
	context: IExecuteFunctions,
	settings: MediaLinkSettings,
	itemIndex: number,
	options: { store: boolean } = { store: true },
): Promise<LinkedMedia> {
	if (settings.authenticate) await checkMediaLinkCredential(context, settings.link, itemIndex);
	const deadlineAtMs = Date.now() + settings.deadlineMs;
	const request = {
		link: settings.link,
		authenticate: settings.authenticate,
		idleTimeoutMs: settings.idleTimeoutMs,
		deadlineAtMs,
		itemIndex,
	};
	const answer = await requestMedia(context, request);
	const details = mediaFileDetails({
		url: answer.url,
		contentDisposition: answer.headers['content-disposition'],
		contentType: answer.headers['content-type'],
	});
	const fileName = settings.fileName || details.fileName;
	const mimeType = settings.contentType || details.contentType;
	const shownLink = redactLink(settings.link);
	const length = announcedLength(answer);

	if (length === 0) {
		answer.abort();
		throw mediaError(context, request, {
			code: 'media_empty',
			message: `The media host sent an empty file (Content-Length: 0) for ${shownLink}`,
			description: "The service needs the recording's bytes: check the link.",
		});
	}
	if (length !== undefined) {
		// One for all of the item's downloads: once one fails, the item does.
		const failing = new AbortController();
		let transfer = new MediaTransfer(
			context,
			answer.body,
			answer.abort,
			{ ...request, url: answer.url, expectedBytes: length },
			failing,
		);
		let unread: BinaryStream | undefined = answer.body;
		return {
			fileName,
			mimeType,
			sizeBytes: length,
			shownLink,
			body: async () => {
				// A host that broke off before the upload began: a dead stream would leave the upload waiting.
				if (transfer.failure) throw transfer.failure;
				if (unread) {
					const body = unread;
					unread = undefined;
					return body;
				}
				// An upload attempt failed, and the service failed it (a host that broke it off is the item's error,
				// above): the file is fetched again for the next attempt.
				transfer.close();
				const again = await requestMedia(context, request);
				const againLength = announcedLength(again);
				if (againLength !== length) {
					again.abort();
					throw mediaError(context, request, {
						code: 'media_changed',
						message: `The file behind ${shownLink} changed while it was being uploaded: ${againLength === undefined ? 'no length' : `${againLength} bytes`} now, ${length} bytes before`,
						description:
							'The upload slot was made for the first size. Run the item again once the file stays the same.',
					});
				}
				transfer = new MediaTransfer(
					context,
					again.body,
					again.abort,
					{ ...request, url: again.url, expectedBytes: length },
					failing,
				);
				return again.body;
			},
			sourceFailed: failing.signal,
			close: () => transfer.close(),
		};
	}
	if (!options.store) {
		answer.abort();
		throw mediaError(context, request, {
			code: 'media_length_unknown',
			message: `The media host sends ${shownLink} without a Content-Length, so its size is not known before it is downloaded`,
			description:
				"An upload slot needs the exact size. Send Media and Transcribe and Download take such a link: they store the file in n8n's binary data first.",
		});
	}
	const transfer = new MediaTransfer(context, answer.body, answer.abort, {
		...request,
		url: answer.url,
	});
	const stored = await storeInBinaryData(context, answer, transfer, fileName, mimeType, itemIndex);
	const sizeBytes = stored.id
		? (stored.bytes ?? (await context.helpers.getBinaryMetadata(stored.id)).fileSize)
		: Buffer.byteLength(stored.data, 'base64');
	if (stored.id?.startsWith('database:') && sizeBytes > DATABASE_MODE_LARGEST_READABLE_BYTES) {
		throw mediaError(context, request, {
			code: 'media_too_large_to_store',
			message: `The media host sends ${shownLink} without a Content-Length, so it was stored in n8n's binary data first; in "database" mode n8n cannot read back a file of ${formatBytes(sizeBytes)}`,
			description:
				'n8n reads a database-mode binary as one text of two characters per byte, which stops at 256 MiB. Run n8n with N8N_DEFAULT_BINARY_DATA_MODE=filesystem or s3, or use a link whose host sends a Content-Length: it is streamed into the upload without being stored.',
		});
	}
	if (sizeBytes === 0) {
		throw mediaError(context, request, {
			code: 'media_empty',
			message: `The media host sent an empty file for ${shownLink}`,
			description: "The service needs the recording's bytes: check the link.",
		});
	}
	const storedId = stored.id;
	return {
		fileName,
		mimeType,
		sizeBytes,
		shownLink,
		body: storedId
			? async () => await context.helpers.getBinaryStream(storedId)
			: async () => Buffer.from(stored.data, 'base64'),
		close: () => transfer.close(),
	};
}

/**
 * The answer's Content-Length, when it is the file's size: a body the host encoded (Content-Encoding) has another
 * length than the file, so it counts as none.
 */
function announcedLength(answer: MediaAnswer): number | undefined {
	const encoding = (answer.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
	if (encoding !== 'identity' && encoding !== '') return undefined;
	const raw = answer.headers['content-length'];
	if (raw === undefined || !/^\d+$/.test(raw.trim())) return undefined;
	const length = Number(raw.trim());
	return Number.isSafeInteger(length) ? length : undefined;
}

/** Downloads the answer into n8n's binary data store; a store that refuses names the setting that decides. */
async function storeInBinaryData(
	context: IExecuteFunctions,
	answer: MediaAnswer,
	transfer: MediaTransfer,
	fileName: string,
	mimeType: string,
	itemIndex: number,
): Promise<IBinaryData> {
	try {
		const stored = await context.helpers.prepareBinaryData(answer.body, fileName, mimeType);
		if (transfer.failure) throw transfer.failure;
		return stored;
	} catch (error) {
		transfer.close();
		if (transfer.failure) throw transfer.failure;
		throw storeError(context, error, transfer.receivedBytes, redactLink(answer.url), itemIndex);
	}
}

function storeError(
	context: IExecuteFunctions,
	error: unknown,
	receivedBytes: number,
	shownLink: string,
	itemIndex: number,
) {
	const message = error instanceof Error ? error.message : String(error);
	const prefix = `The media host sends ${shownLink} without a Content-Length, so it is stored in n8n's binary data first, and n8n's store refused it after ${formatBytes(receivedBytes)}`;
	const fix =
		'A link whose host sends a Content-Length is streamed into the upload without being stored.';
	if (/max size limit/i.test(message) && /database/i.test(message)) {
		return mediaError(
			context,
			{ itemIndex },
			{
				code: 'media_too_large_to_store',
				message: `${prefix}: ${message}`,
				description: `In binary data mode "database" (n8n's default in queue mode) a file may take at most N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE MiB (512 by default, 1,024 at most). Raise it, or run n8n with N8N_DEFAULT_BINARY_DATA_MODE=filesystem or s3. ${fix}`,
			},
		);
	}
	if (
		/string longer than|array buffer allocation|heap out of memory|buffer\.constants\.MAX_LENGTH/i.test(
			message,
		)
	) {
		return mediaError(
			context,
			{ itemIndex },
			{
				code: 'media_too_large_to_store',
				message: `${prefix}: ${message}`,
				description: `This n8n keeps binary data in memory (N8N_DEFAULT_BINARY_DATA_MODE=default), which holds at most about 512 MiB per file. Set N8N_DEFAULT_BINARY_DATA_MODE=filesystem. ${fix}`,
			},
		);
	}
	if (/ENOSPC|no space left/i.test(message)) {
		return mediaError(
			context,
			{ itemIndex },
			{
				code: 'media_too_large_to_store',
				message: `${prefix}: the disk is full`,
				description: `Free space where n8n stores binary data (N8N_BINARY_DATA_STORAGE_PATH, by default ~/.n8n/storage or ~/.n8n/binaryData). ${fix}`,
			},
		);
	}
	return mediaError(
		context,
		{ itemIndex },
		{
			code: 'media_store_failed',
			message: `${prefix}: ${message}`,
			description: fix,
		},
	);
}
