// The output item of a completed job in Transcribe and Download: the job snapshot, the transcript text (TXT, else
// SRT) and one binary per format. The same for Poll and Pause Until Webhook, so both modes output the same items.
import type { IBinaryKeyData, IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { PublicTranscriptionResponse } from '../../../../../src/api';
import type { ArtifactFormat } from '../../../../../src/artifacts';
import {
	artifactBinary,
	fetchArtifact,
	isTextFormat,
	type ArtifactContext,
} from '../../../../shared/artifact';
import type { TranscriptionServiceClient } from '../../../../shared/transport';

export async function completedJobItem(
	context: ArtifactContext,
	client: TranscriptionServiceClient,
	job: PublicTranscriptionResponse,
	formats: readonly ArtifactFormat[],
	itemIndex: number,
): Promise<INodeExecutionData> {
	// The formats are fetched side by side (the artifacts bucket's pacer still spaces them); the output keeps their order.
	const artifacts = await Promise.all(
		formats.map(
			async (format) => await fetchArtifact(context, client, job.job_id, format, itemIndex),
		),
	);
	const binary: IBinaryKeyData = {};
	const texts: Partial<Record<ArtifactFormat, string>> = {};
	for (const [index, format] of formats.entries()) {
		binary[format] = await artifactBinary(context, artifacts[index]);
		if (isTextFormat(format)) texts[format] = artifacts[index].bytes.toString('utf8');
	}
	const json: IDataObject = { ...job };
	const text = texts.txt ?? texts.srt;
	if (text !== undefined) json.text = text;
	return { json, binary };
}
