// Artifact download (spec 4.7, 4.8): the bytes, their media type and the UTF-8 file name of Content-Disposition.
// Shared by the action node and the trigger's Download Artifact option.
import type { BinaryHelperFunctions, IBinaryData, INode } from 'n8n-workflow';

import { isTerminalStatus } from '../../../src/api';
import {
	ARTIFACT_MEDIA_TYPES,
	artifactFileName,
	formatForMediaType,
	parseContentDisposition,
	type ArtifactFormat,
} from '../../../src/artifacts';
import { apiErrorFieldsOf, buildNodeApiError, type TranscriptionServiceClient } from '../transport';
import { safeFileName } from './binary';

/** What a download needs of an n8n context (the action's execute, the trigger's webhook). */
export interface ArtifactContext {
	getNode(): INode;
	helpers: Pick<BinaryHelperFunctions, 'prepareBinaryData'>;
}

/** 'job_default' leaves the choice to the job's output_format. */
export type ArtifactChoice = ArtifactFormat | 'job_default';

export interface DownloadedArtifact {
	/** undefined only when the service answered with a media type that is none of the four. */
	format: ArtifactFormat | undefined;
	fileName: string;
	mimeType: string;
	bytes: Buffer;
}

export async function downloadArtifact(
	context: ArtifactContext,
	client: TranscriptionServiceClient,
	jobId: string,
	choice: ArtifactChoice,
	itemIndex?: number,
): Promise<DownloadedArtifact> {
	let response;
	try {
		response =
			choice === 'job_default'
				? await client.request<Buffer>({
						operation: 'getTranscriptionArtifact',
						pathParams: { job_id: jobId },
						// A wildcard leaves the selection to the job's output_format (4.7, step 4).
						headers: { Accept: '*/*' },
						itemIndex,
					})
				: await client.request<Buffer>({
						operation: 'getTranscriptionArtifactByExtension',
						pathParams: { job_id: jobId, path_format: choice },
						headers: { Accept: `${ARTIFACT_MEDIA_TYPES[choice]}, application/json;q=0.5` },
						itemIndex,
					});
	} catch (error) {
		throw await explainNotReady(context, client, error, jobId, itemIndex);
	}
	const mediaType = (response.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
	const format = choice === 'job_default' ? formatForMediaType(mediaType) : choice;
	const disposition = parseContentDisposition(response.headers['content-disposition']);
	// A blank or separator-only name from the header falls back to "<job_id>.<ext>".
	const sentName = safeFileName(disposition.filename ?? '').replace(/^[\s._]+$/, '');
	return {
		format,
		fileName: sentName || artifactFileName(jobId, format ?? 'txt'),
		mimeType: mediaType || (format ? ARTIFACT_MEDIA_TYPES[format] : 'application/octet-stream'),
		bytes: response.rawBody,
	};
}

/** 409 artifact_not_ready says only "not yet": add the job's current status, and whether waiting will help. */
async function explainNotReady(
	context: ArtifactContext,
	client: TranscriptionServiceClient,
	error: unknown,
	jobId: string,
	itemIndex: number | undefined,
): Promise<unknown> {
	const fields = apiErrorFieldsOf(error);
	if (fields?.code !== 'artifact_not_ready') return error;
	let status: string;
	try {
		status = (await client.getTranscription(jobId, itemIndex)).status;
	} catch {
		return error;
	}
	const outlook = isTerminalStatus(status)
		? 'it will not produce a transcript.'
		: 'download the transcript once it is "completed" (poll Transcription → Get, or let the Transcription Service Trigger tell you).';
	const explained = buildNodeApiError(
		context,
		{
			...fields,
			message: `The transcript of job ${jobId} is not ready: the job is "${status}"; ${outlook}`,
		},
		itemIndex,
	);
	explained.context.job_id = jobId;
	explained.context.status = status;
	return explained;
}

export function isTextFormat(format: ArtifactFormat | undefined): format is 'txt' | 'srt' {
	return format === 'txt' || format === 'srt';
}

export async function artifactBinary(
	context: ArtifactContext,
	artifact: DownloadedArtifact,
): Promise<IBinaryData> {
	return await context.helpers.prepareBinaryData(
		artifact.bytes,
		artifact.fileName,
		artifact.mimeType,
	);
}
