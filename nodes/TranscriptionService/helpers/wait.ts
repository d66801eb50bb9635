// Waiting for a job to reach a terminal state (design.md: completed, failed, cancelled): conditional polls that back
// off from a short interval to a maximum, bounded by Max Wait, and stopped at once when the execution is cancelled.
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { isTerminalStatus, type PublicTranscriptionResponse } from '../../../src/api';
import { pause, type TranscriptionServiceClient } from '../transport';

export interface WaitOptions {
	maxWaitMs: number;
	initialIntervalMs: number;
	maxIntervalMs: number;
}

const BACKOFF_FACTOR = 1.5;

export async function waitForJob(
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
		if (remaining <= 0) throw maxWaitExceeded(context, job, options.maxWaitMs, itemIndex);
		await pause(Math.min(interval, remaining), client.cancelSignal());
		interval = Math.min(interval * BACKOFF_FACTOR, options.maxIntervalMs);
		job = await client.getTranscription(jobId, itemIndex);
	}
	return job;
}

/** A job that ended without a transcript becomes the item's error, carrying job_id and status. */
export function assertCompleted(
	context: IExecuteFunctions,
	job: PublicTranscriptionResponse,
	itemIndex: number,
): void {
	const status = job.status.toLowerCase();
	if (status === 'completed') return;
	const cancelled = status === 'cancelled';
	const error = new NodeOperationError(
		context.getNode(),
		`Transcription job ${job.job_id} ${cancelled ? 'was cancelled' : 'failed'}`,
		{
			itemIndex,
			description: cancelled
				? 'The job was cancelled before it completed, so there is no transcript. Start a new job to try again.'
				: 'The service could not transcribe the media. Check that the file is audio or video in a common format, then start a new job.',
		},
	);
	Object.assign(error.context, {
		code: cancelled ? 'job_cancelled' : 'job_failed',
		job_id: job.job_id,
		status,
	});
	throw error;
}

function maxWaitExceeded(
	context: IExecuteFunctions,
	job: PublicTranscriptionResponse,
	maxWaitMs: number,
	itemIndex: number,
): NodeOperationError {
	const error = new NodeOperationError(
		context.getNode(),
		`Transcription job ${job.job_id} did not finish within the Max Wait of ${formatSeconds(maxWaitMs)} (status "${job.status}")`,
		{
			itemIndex,
			description:
				'The job keeps running on the service. Raise "Max Wait", or fetch the result later with Transcription → Get and → Download Artifact using this job_id.',
		},
	);
	Object.assign(error.context, {
		code: 'max_wait_exceeded',
		job_id: job.job_id,
		status: job.status,
	});
	return error;
}

function formatSeconds(ms: number): string {
	const seconds = ms / 1000;
	return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}
