// The output item of a completed job in Transcribe and Download: the job snapshot, the transcript text (TXT, else
// SRT) and one binary per format. The same for Poll and Pause Until Webhook, so both modes output the same items.
import type { IBinaryKeyData, IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { PublicTranscriptionResponse } from '../../../src/api';
import type { ArtifactFormat } from '../../../src/artifacts';
import {
	artifactBinary,
	fetchArtifact,
	isTextFormat,
	type ArtifactContext,
} from '../../shared/artifact';
import type { TranscriptionServiceClient } from '../../shared/transport';

export async function transcriptItem(
	context: ArtifactContext,
	client: TranscriptionServiceClient,
	job: PublicTranscriptionResponse,
	formats: readonly ArtifactFormat[],
	itemIndex: number,
): Promise<INodeExecutionData> {
	const binary: IBinaryKeyData = {};
	const texts: Partial<Record<ArtifactFormat, string>> = {};
	for (const format of formats) {
		const artifact = await fetchArtifact(context, client, job.job_id, format, itemIndex);
		binary[format] = await artifactBinary(context, artifact);
		if (isTextFormat(format)) texts[format] = artifact.bytes.toString('utf8');
	}
	const json: IDataObject = { ...job };
	const text = texts.txt ?? texts.srt;
	if (text !== undefined) json.text = text;
	return { json, binary };
}
