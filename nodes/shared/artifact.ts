// Fetching a job's transcript (spec 4.7, 4.8): the bytes, their media type and a safe file name from the service's
// Content-Disposition. Used by Download Artifact, Transcribe and Download and the triggers.
import type { BinaryHelperFunctions, IBinaryData, INode } from 'n8n-workflow';

import { isTerminalStatus } from '../../src/api';
import {
	ARTIFACT_MEDIA_TYPES,
	artifactFileName,
	cleanFileName,
	formatForMediaType,
	parseContentDisposition,
	type ArtifactFormat,
} from '../../src/artifacts';
import { addItemContext, apiError, apiFieldsOf } from './errors';
import type { TranscriptionServiceClient } from './transport';

/** What a download needs of an n8n context (an execution, a webhook, a poll). */
export interface ArtifactContext {
	getNode(): INode;
	helpers: Pick<BinaryHelperFunctions, 'prepareBinaryData'>;
}

/** 'job_default' leaves the choice to the job's output_format. */
export type ArtifactChoice = ArtifactFormat | 'job_default';

export interface FetchedArtifact {
	/** undefined only when the service answered with a media type that is none of the four. */
	format: ArtifactFormat | undefined;
	fileName: string;
	mimeType: string;
	bytes: Buffer;
}

export async function fetchArtifact(
	context: ArtifactContext,
	client: TranscriptionServiceClient,
	jobId: string,
	choice: ArtifactChoice,
	itemIndex?: number,
): Promise<FetchedArtifact> {
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
	return {
		format,
		// A name with nothing usable left falls back to "<job_id>.<ext>".
		fileName:
			cleanFileName(disposition.filename ?? '') ||
			cleanFileName(artifactFileName(jobId, format ?? 'txt')),
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
	const fields = apiFieldsOf(error);
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
	const explained = apiError(
		context.getNode(),
		{
			...fields,
			message: `The transcript of job ${jobId} is not ready: the job is "${status}"; ${outlook}`,
		},
		itemIndex,
	);
	return addItemContext(explained, { job_id: jobId, status });
}

export function isTextFormat(format: ArtifactFormat | undefined): format is 'txt' | 'srt' {
	return format === 'txt' || format === 'srt';
}

export async function artifactBinary(
	context: ArtifactContext,
	artifact: FetchedArtifact,
): Promise<IBinaryData> {
	return await context.helpers.prepareBinaryData(
		artifact.bytes,
		artifact.fileName,
		artifact.mimeType,
	);
}
