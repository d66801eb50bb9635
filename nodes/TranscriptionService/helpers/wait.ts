// Waiting for a job to reach a terminal state (design.md: completed, failed, cancelled): conditional polls that back
// off from a short interval to a maximum, bounded by Max Wait, and stopped at once when the execution is cancelled.
import type { IExecuteFunctions, INode, NodeOperationError } from 'n8n-workflow';

import { isTerminalStatus, type PublicTranscriptionResponse } from '../../../src/api';
import { operationError } from '../../shared/errors';
import { pause } from '../../shared/pause';
import type { TranscriptionServiceClient } from '../../shared/transport';

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
		if (remaining <= 0) {
			throw maxWaitExceededError(
				context.getNode(),
				{ jobId: job.job_id, status: job.status, maxWaitMs: options.maxWaitMs },
				itemIndex,
			);
		}
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
	if (job.status.toLowerCase() === 'completed') return;
	throw jobEndedError(context.getNode(), job.job_id, job.status, itemIndex);
}

/** The item error of a job that reached a terminal state other than completed. */
export function jobEndedError(
	node: INode,
	jobId: string,
	jobStatus: string,
	itemIndex: number,
): NodeOperationError {
	const status = jobStatus.toLowerCase();
	const cancelled = status === 'cancelled';
	return operationError(node, {
		code: cancelled ? 'job_cancelled' : 'job_failed',
		message: `Transcription job ${jobId} ${cancelled ? 'was cancelled' : 'failed'}`,
		description: cancelled
			? 'The job was cancelled before it completed, so there is no transcript. Start a new job to try again.'
			: 'The service could not transcribe the media. Check that the file is audio or video in a common format, then start a new job.',
		job_id: jobId,
		status,
		itemIndex,
	});
}

/** The item error of a job that was still running when the wait ran out. */
export function maxWaitExceededError(
	node: INode,
	args: {
		jobId: string;
		status: string;
		maxWaitMs: number;
		uploadId?: string;
		description?: string;
	},
	itemIndex: number,
): NodeOperationError {
	return operationError(node, {
		code: 'max_wait_exceeded',
		message: `Transcription job ${args.jobId} did not finish within the Max Wait of ${formatSeconds(args.maxWaitMs)} (status "${args.status}")`,
		description:
			args.description ??
			'The job keeps running on the service. Raise "Max Wait", or fetch the result later with Transcription → Get and → Download Artifact using this job_id.',
		job_id: args.jobId,
		upload_id: args.uploadId,
		status: args.status,
		itemIndex,
	});
}

function formatSeconds(ms: number): string {
	const seconds = ms / 1000;
	return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}
