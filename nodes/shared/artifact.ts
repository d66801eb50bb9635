// Fetching a job's transcript (spec 4.7, 4.8): the bytes, with the media type and extension of the format asked for
// and a safe file name whose stem comes from the service's Content-Disposition. The service's answer never chooses
// what kind of file the workflow gets. WebVTT and the item's cues are built here from the service's SRT, fetched once
// for both. Used by Download Artifact, Transcribe and Download and the triggers.
import type { BinaryHelperFunctions, IBinaryData, INode } from 'n8n-workflow';

import { isTerminalStatus } from '../../src/api';
import {
	ARTIFACT_MEDIA_TYPES,
	DOWNLOAD_MEDIA_TYPES,
	cleanFileName,
	formatForMediaType,
	formatWebVtt,
	parseContentDisposition,
	downloadSource,
	parseSubRip,
	timedCues,
	type ArtifactFormat,
	type DownloadFormat,
	type TranscriptRequest,
	type SubRipCue,
	type TimedCue,
} from '../../src/artifacts';
import { addItemContext, apiError, apiFieldsOf, operationError } from './errors';
import type { TranscriptionServiceClient } from './transport';

/** What a download needs of an n8n context (an execution, a webhook, a poll). */
export interface ArtifactContext {
	getNode(): INode;
	helpers: Pick<BinaryHelperFunctions, 'prepareBinaryData'>;
}

export interface FetchedArtifact {
	format: DownloadFormat;
	fileName: string;
	mimeType: string;
	bytes: Buffer;
}

/** The files in the order of the choices, and the cues when they were asked for. */
export interface Transcript {
	files: FetchedArtifact[];
	cues?: TimedCue[];
}

/**
 * Each of the service's artifacts a request needs is fetched once, side by side (the artifacts bucket's pacer still
 * spaces them): SRT and WebVTT share one SRT download, and the cues reuse it too. Only cues asked for beside no SRT,
 * WebVTT or Job Default answered as SRT cost one more download. An SRT that cannot be read as cues fails the step
 * with invalid_srt, naming the line.
 */
export async function fetchTranscript(
	context: ArtifactContext,
	client: TranscriptionServiceClient,
	jobId: string,
	request: TranscriptRequest,
	itemIndex?: number,
): Promise<Transcript> {
	const sources = [...new Set(request.choices.map(downloadSource))];
	const fetched = await Promise.all(
		sources.map(async (source) => await fetchArtifact(context, client, jobId, source, itemIndex)),
	);
	const bySource = new Map(sources.map((source, index) => [source, fetched[index]]));
	const servedSrt = () =>
		bySource.get('srt') ?? fetched.find((artifact) => artifact.format === 'srt');
	if (request.cues && servedSrt() === undefined) {
		bySource.set('srt', await fetchArtifact(context, client, jobId, 'srt', itemIndex));
	}
	let parsed: SubRipCue[] | undefined;
	const srtCues = () =>
		(parsed ??= readSubRip(context, servedSrt() as FetchedArtifact, jobId, itemIndex));
	const files = request.choices.map((choice) =>
		choice === 'vtt'
			? webVttFile(servedSrt() as FetchedArtifact, srtCues())
			: (bySource.get(choice) as FetchedArtifact),
	);
	return request.cues ? { files, cues: timedCues(srtCues()) } : { files };
}

function readSubRip(
	context: ArtifactContext,
	srt: FetchedArtifact,
	jobId: string,
	itemIndex: number | undefined,
): SubRipCue[] {
	try {
		return parseSubRip(srt.bytes.toString('utf8'));
	} catch (error) {
		// parseSubRip throws only its SubRipSyntaxError, which names the line.
		throw operationError(context.getNode(), {
			code: 'invalid_srt',
			message: `The SRT transcript of job ${jobId} cannot be read as subtitles: ${(error as Error).message}`,
			description:
				'WebVTT and Include Cues are built from the SRT the service serves. Download the SRT itself (Format SRT) to see it; the job and its other formats are unaffected.',
			job_id: jobId,
			itemIndex,
		});
	}
}

/** The WebVTT made from the SRT: its name is the SRT's with `.vtt` for `.srt`. */
function webVttFile(srt: FetchedArtifact, cues: SubRipCue[]): FetchedArtifact {
	return {
		format: 'vtt',
		fileName: `${srt.fileName.slice(0, -'.srt'.length)}.vtt`,
		mimeType: DOWNLOAD_MEDIA_TYPES.vtt,
		bytes: Buffer.from(formatWebVtt(cues), 'utf8'),
	};
}

/** One of the service's artifacts, as served. */
export async function fetchArtifact(
	context: ArtifactContext,
	client: TranscriptionServiceClient,
	jobId: string,
	choice: ArtifactFormat | 'job_default',
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
	if (format === undefined) {
		throw operationError(context.getNode(), {
			code: 'unexpected_media_type',
			message: `The service answered the job's default artifact with "${mediaType || 'no Content-Type'}", which is none of SRT, TXT, PDF or DOCX`,
			description:
				"Nothing was saved: the node takes only the four transcript formats. Choose the Format (SRT, TXT, PDF or DOCX) instead of Job Default; the file then has that format's type whatever the answer says.",
			job_id: jobId,
			itemIndex,
		});
	}
	return {
		format,
		fileName: artifactFileNameFrom(response.headers['content-disposition'], jobId, format),
		mimeType: ARTIFACT_MEDIA_TYPES[format],
		bytes: response.rawBody,
	};
}

/**
 * The service's file name with its extension replaced by the format's ("invoice.html" → "invoice.srt"), cleaned for
 * any file system; "<job_id>.<ext>" when the service gives no usable name. Only a short run of letters and digits after
 * the last dot counts as an extension, so a name without one keeps its dots (".._etc_passwd" → ".._etc_passwd.txt").
 */
export function artifactFileNameFrom(
	contentDisposition: string | undefined,
	jobId: string,
	format: ArtifactFormat,
): string {
	const served = cleanFileName(parseContentDisposition(contentDisposition).filename ?? '');
	const extension = /\.[\p{L}\p{N}]{1,10}$/u.exec(served);
	const stem = (extension ? served.slice(0, extension.index) : served).trim();
	// Cleaned again: the format's extension may be longer than the one it replaced.
	return cleanFileName(`${stem || jobId}.${format}`);
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

export function isTextFormat(format: DownloadFormat): format is 'txt' | 'srt' | 'vtt' {
	return format === 'txt' || format === 'srt' || format === 'vtt';
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
