// Wait Mode "Poll", one item: start its job, check the job with conditional status requests that back off from Poll
// Interval to Max Poll Interval until it reaches a terminal state (completed, failed, cancelled) or Max Wait runs
// out — stopped at once when the execution is cancelled — then download the transcript.
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import {
	isCompletedStatus,
	isTerminalStatus,
	type PublicTranscriptionResponse,
} from '../../../../../src/api';
import { asItemFailure } from '../../../../shared/errors';
import { abortableSleep } from '../../../../shared/abortable-sleep';
import type { TranscriptionServiceClient } from '../../../../shared/transport';
import { jobEndedError, maxWaitExceededError } from './job-errors';
import { maxWaitMs, readTranscribeItem, startJob } from './start-job';
import { transcriptItem } from './transcript';

interface WaitOptions {
	maxWaitMs: number;
	initialIntervalMs: number;
	maxIntervalMs: number;
}

const BACKOFF_FACTOR = 1.5;

export async function pollItem(
	context: IExecuteFunctions,
	client: TranscriptionServiceClient,
	itemIndex: number,
): Promise<INodeExecutionData> {
	const item = readTranscribeItem(context, itemIndex);
	const { uploadId, created } = await startJob(context, client, itemIndex, item);
	try {
		const job = await waitForJob(
			context,
			client,
			created.job_id,
			{
				maxWaitMs: maxWaitMs(item.options),
				initialIntervalMs: Number(item.options.pollIntervalSeconds ?? 2) * 1000,
				maxIntervalMs: Number(item.options.maxPollIntervalSeconds ?? 30) * 1000,
			},
			itemIndex,
		);
		if (!isCompletedStatus(job.status)) {
			throw jobEndedError(context.getNode(), job.job_id, job.status, itemIndex);
		}
		return await transcriptItem(context, client, job, item.formats, itemIndex);
	} catch (error) {
		throw asItemFailure(context.getNode(), error, itemIndex, {
			upload_id: uploadId,
			job_id: created.job_id,
		});
	}
}

async function waitForJob(
	context: IExecuteFunctions,
	client: TranscriptionServiceClient,
	jobId: string,
	options: WaitOptions,
	itemIndex: number,
): Promise<PublicTranscriptionResponse> {
	const deadline = Date.now() + options.maxWaitMs;
	let interval = options.initialIntervalMs;
	let job = await client.getTranscription(jobId, itemIndex);
	while (!isTerminalStatus(job.status)) {
		const remaining = deadline - Date.now();
		if (remaining <= 0) {
			throw maxWaitExceededError(
				context.getNode(),
				{ jobId: job.job_id, status: job.status, maxWaitMs: options.maxWaitMs },
				itemIndex,
			);
		}
		await abortableSleep(Math.min(interval, remaining), client.cancelSignal());
		interval = Math.min(interval * BACKOFF_FACTOR, options.maxIntervalMs);
		job = await client.getTranscription(jobId, itemIndex);
	}
	return job;
}
