// The item errors of a job that gave no transcript, the same in both wait modes: it ended otherwise (failed,
// cancelled), or Max Wait ran out first. Each names the job, so the user can fetch it later.
import type { INode, NodeOperationError } from 'n8n-workflow';

import { operationError } from '../../../../shared/errors';

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
