import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { TranscriptionServiceClient } from '../../transport';
import { jobIdProperty } from './common';

const properties: INodeProperties[] = [jobIdProperty];

export const description = updateDisplayOptions(
	{ show: { resource: ['transcription'], operation: ['get'] } },
	properties,
);

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	client: TranscriptionServiceClient,
): Promise<INodeExecutionData[]> {
	const jobId = (this.getNodeParameter('jobId', itemIndex) as string).trim();
	// Asked again within this execution, the job is fetched with If-None-Match and a 304 reuses the last snapshot.
	const job = await client.getTranscription(jobId, itemIndex);
	return [{ json: { ...job } }];
}
