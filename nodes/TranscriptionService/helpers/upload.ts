// Upload slot and media transfer (spec 4.2, 4.3), shared by Upload → Create Slot / Send Media and Transcribe and Download.
import type { IExecuteFunctions } from 'n8n-workflow';

import type {
	PublicUploadBinaryResponse,
	PublicUploadCreateRequest,
	PublicUploadCreateResponse,
} from '../../../src/api';
import { requireId } from './ids';
import {
	apiErrorFromResponse,
	apiErrorOf,
	type BinaryStream,
	type TranscriptionServiceClient,
} from '../../shared/transport';

export async function createUploadSlot(
	client: TranscriptionServiceClient,
	request: PublicUploadCreateRequest,
	idempotencyKey: string,
	itemIndex: number,
): Promise<PublicUploadCreateResponse> {
	const response = await client.request<PublicUploadCreateResponse>({
		operation: 'createUpload',
		body: { ...request },
		idempotencyKey,
		itemIndex,
	});
	return response.body;
}

/** What an upload sends: a binary field's bytes or a linked recording's. */
export interface MediaBody {
	sizeBytes: number;
	/** A fresh body for every attempt: a retried upload never reuses a consumed stream. */
	body: () => Promise<Buffer | BinaryStream>;
	/** Lets go of what the body holds open (a download not read to its end). */
	close?: () => void;
	/**
	 * Aborts, with the reason as its error, when the bytes' source fails (a media host that broke off): the upload under
	 * way is ended at once, not left waiting for them, and the item's error is the source's, not the upload's.
	 */
	sourceFailed?: AbortSignal;
}

export interface UploadResult extends PublicUploadBinaryResponse {
	/** An earlier attempt stored the bytes but its answer was lost. */
	already_stored?: boolean;
}

/**
 * PUT …/binary with the media streamed and an exact Content-Length. A slot takes bytes once, so a repeat after a lost
 * answer meets 409 upload_not_available: that means our earlier attempt stored them. `slotIsOurs` says the slot was
 * made by this very write (a key derived from the execution and item), so the 409 also means an earlier run of the
 * node stored them (n8n's Retry On Fail).
 */
export async function uploadMedia(
	context: IExecuteFunctions,
	client: TranscriptionServiceClient,
	uploadId: string,
	media: MediaBody,
	itemIndex: number,
	slotIsOurs = false,
): Promise<UploadResult> {
	const failedSource = () =>
		media.sourceFailed?.aborted ? (media.sourceFailed.reason as Error) : undefined;
	let response;
	try {
		response = await client.request<PublicUploadBinaryResponse>({
			operation: 'uploadBinary',
			pathParams: { upload_id: uploadId },
			rawBody: media.body,
			contentLength: media.sizeBytes,
			acceptStatuses: [409],
			abortSignal: media.sourceFailed,
			itemIndex,
		});
	} catch (error) {
		throw failedSource() ?? error;
	} finally {
		media.close?.();
	}
	// The service may have answered before the host's failure showed (more bytes than announced): no job starts.
	const sourceFailure = failedSource();
	if (sourceFailure) throw sourceFailure;
	if (response.status !== 409) return response.body;
	const bytesStored =
		apiErrorOf(response)?.code === 'upload_not_available' &&
		(slotIsOurs || response.unansweredAttempts > 0);
	if (!bytesStored) throw apiErrorFromResponse(context, response, itemIndex);
	return { ok: true, bytes_received: media.sizeBytes, already_stored: true };
}

/**
 * Send Media and Create take the upload_id or the slot's upload_url ("/api/v1/uploads/{upload_id}/binary", relative or
 * absolute). The id is checked after decoding, so "/uploads/%2e%2e/binary" is refused, not sent as "..".
 */
export function uploadIdFrom(
	context: IExecuteFunctions,
	reference: string,
	itemIndex: number,
	parameter = 'Upload',
): string {
	const trimmed = reference.trim();
	const match = /\/uploads\/([^/?#]+)\/binary\/?(?:[?#].*)?$/.exec(trimmed);
	let id = trimmed;
	if (match) {
		try {
			id = decodeURIComponent(match[1]);
		} catch {
			id = match[1];
		}
	}
	return requireId(context.getNode(), id, parameter, itemIndex);
}
