// The item both triggers emit for a job's event: the event body (as the service sends it, or as the polling trigger
// builds it from a listed job), when it arrived, and with Download Artifact the transcript (and its cues, if asked).
// A failed download becomes the item's artifact_error instead of an exception, so the event itself is never lost.

import type {
	IDataObject,
	INodeExecutionData,
	IPollFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';

import { idProblem } from '../../src/api';
import type { DownloadFormat } from '../../src/artifacts';
import { DEFAULT_RETRY_POLICY } from '../../src/client';
import type { WebhookEventBody } from '../../src/webhooks';
import { artifactBinary, fetchTranscript } from './artifact';
import { itemErrorOf } from './errors';
import { TranscriptionServiceClient } from './transport';

// The workflow (or the poll) waits for this download: a shorter retry budget than the action node's.
export const EVENT_ARTIFACT_RETRY_POLICY = {
	...DEFAULT_RETRY_POLICY,
	maxAttempts: 3,
	maxRateLimitWaitMs: 30_000,
};

/** The emitted item: the body as the service sent it, plus when it arrived. */
export function eventItemJson(event: WebhookEventBody, receivedAtMs: number): IDataObject {
	return {
		...(event as unknown as IDataObject),
		received_at: new Date(receivedAtMs).toISOString(),
	};
}

export interface EventArtifact {
	format: DownloadFormat;
	/** Include Cues: the SRT's timed cues on the item as `cues`. */
	cues: boolean;
	/** Already trimmed; empty means the user cleared "Put Output File in Field". */
	binaryPropertyName: string;
}

/**
 * The item `json` with the job's transcript in `binaryPropertyName`, or with its artifact_error. GET
 * …/artifact.{format} is built from the credential's Base URL: the links in an event body are never followed with
 * the API key, so a forged link could not collect it. A job_id that is no id (".." would address another path) is
 * not fetched at all.
 */
export async function withEventArtifact(
	context: IWebhookFunctions | IPollFunctions,
	json: IDataObject,
	jobId: string,
	artifact: EventArtifact,
	client = new TranscriptionServiceClient(context, EVENT_ARTIFACT_RETRY_POLICY),
): Promise<INodeExecutionData> {
	const failed = (error: IDataObject): INodeExecutionData => ({
		json: { ...json, artifact_error: error },
	});
	if (artifact.binaryPropertyName === '') {
		const message = '"Put Output File in Field" is empty: the transcript was not downloaded';
		return failed({ code: 'invalid_parameter', message });
	}
	const problem = idProblem(jobId);
	if (problem !== undefined) {
		return failed({
			code: 'invalid_id',
			message: `The event's job_id is not a valid id: ${problem}`,
		});
	}
	try {
		const {
			files: [fetched],
			cues,
		} = await fetchTranscript(context, client, jobId, {
			choices: [artifact.format],
			cues: artifact.cues,
		});
		return {
			json: cues ? { ...json, cues } : json,
			binary: { [artifact.binaryPropertyName]: await artifactBinary(context, fetched) },
		};
	} catch (error) {
		const fields = itemErrorOf(error);
		return failed(
			fields
				? { ...fields }
				: { code: 'artifact_download_failed', message: (error as Error).message },
		);
	}
}
