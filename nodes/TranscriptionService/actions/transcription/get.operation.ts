import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { TranscriptionServiceClient } from '../../../shared/transport';
import { jobIdParameter, jobProperty } from './job-locator';

const properties: INodeProperties[] = [jobProperty];

export const description = updateDisplayOptions(
	{ show: { resource: ['transcription'], operation: ['get'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	client: TranscriptionServiceClient,
): Promise<INodeExecutionData[]> {
	const jobId = jobIdParameter(this, itemIndex);
	// Asked again within this execution, the job is fetched with If-None-Match and a 304 reuses the last snapshot.
	const job = await client.getTranscription(jobId, itemIndex);
	return [{ json: { ...job } }];
}
