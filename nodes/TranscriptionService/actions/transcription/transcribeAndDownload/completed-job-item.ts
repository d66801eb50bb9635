// The output item of a completed job in Transcribe and Download: the job snapshot, the transcript text (TXT, else
// SRT, else WebVTT), the timed cues when asked for, and one binary per format. The same for Poll and Pause Until
// Webhook, so both modes output the same items.
import type { IBinaryKeyData, IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { PublicTranscriptionResponse } from '../../../../../src/api';
import type { DownloadFormat } from '../../../../../src/artifacts';
import {
	artifactBinary,
	fetchTranscript,
	isTextFormat,
	type ArtifactContext,
} from '../../../../shared/artifact';
import type { TranscriptionServiceClient } from '../../../../shared/transport';

/** What an item asks of its completed job: a binary per format, and the cues or not (Options → Include Cues). */
export interface CompletedJobRequest {
	formats: readonly DownloadFormat[];
	cues: boolean;
}

export async function completedJobItem(
	context: ArtifactContext,
	client: TranscriptionServiceClient,
	job: PublicTranscriptionResponse,
	request: CompletedJobRequest,
	itemIndex: number,
): Promise<INodeExecutionData> {
	const transcript = await fetchTranscript(
		context,
		client,
		job.job_id,
		{ choices: request.formats, cues: request.cues },
		itemIndex,
	);
	const binary: IBinaryKeyData = {};
	const texts: Partial<Record<DownloadFormat, string>> = {};
	for (const file of transcript.files) {
		binary[file.format] = await artifactBinary(context, file);
		if (isTextFormat(file.format)) texts[file.format] = file.bytes.toString('utf8');
	}
	const json: IDataObject = { ...job };
	const text = texts.txt ?? texts.srt ?? texts.vtt;
	if (text !== undefined) json.text = text;
	if (transcript.cues) json.cues = transcript.cues;
	return { json, binary };
}
