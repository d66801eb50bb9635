// Wait Mode "Poll", one item: start its job, check the job with conditional status requests that back off from Poll
// Interval to Max Poll Interval until it reaches a terminal state (completed, failed, cancelled) or Max Wait runs
// out — stopped at once when the execution is cancelled — then download the transcript.
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import {
	isCompletedStatus,
	isTerminalStatus,
	type PublicTranscriptionResponse,
} from '../../../../../src/api';
import { abortableSleep } from '../../../../shared/abortable-sleep';
import type { ItemContext } from '../../../../shared/errors';
import type { TranscriptionServiceClient } from '../../../../shared/transport';
import { jobEndedError, maxWaitExceededError } from './job-errors';
import { readParameters, type TranscribeOptions } from './parameters';
import { startJob } from './start-job';
import { completedJobItem } from './completed-job-item';

const BACKOFF_FACTOR = 1.5;

export async function pollItem(
	context: IExecuteFunctions,
	client: TranscriptionServiceClient,
	itemIndex: number,
	created: ItemContext,
): Promise<INodeExecutionData> {
	const parameters = readParameters(context, itemIndex);
	const started = await startJob(context, client, itemIndex, parameters, created);
	const job = await waitForJob(context, client, started.job.job_id, parameters, itemIndex);
	if (!isCompletedStatus(job.status)) {
		throw jobEndedError(context.getNode(), job.job_id, job.status, itemIndex);
	}
	return await completedJobItem(context, client, job, parameters, itemIndex);
}

async function waitForJob(
	context: IExecuteFunctions,
	client: TranscriptionServiceClient,
	jobId: string,
	options: TranscribeOptions,
	itemIndex: number,
): Promise<PublicTranscriptionResponse> {
	const deadline = Date.now() + options.maxWaitMs;
	let interval = options.pollIntervalMs;
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
		interval = Math.min(interval * BACKOFF_FACTOR, options.maxPollIntervalMs);
		job = await client.getTranscription(jobId, itemIndex);
	}
	return job;
}
