// Download Artifact: fetches a completed job's transcript for the emitted item. A failure becomes the item's
// artifact_error instead of an exception, so the event itself is never lost.

import type { IBinaryData, IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { idProblem } from '../../src/api';
import type { ArtifactFormat } from '../../src/artifacts';
import { DEFAULT_RETRY_POLICY } from '../../src/client';
import { artifactBinary, fetchArtifact } from '../shared/artifact';
import { itemErrorOf } from '../shared/errors';
import { TranscriptionServiceClient } from '../shared/transport';

// The workflow waits for this download; a shorter retry budget than the action node's keeps it from stalling.
const ARTIFACT_RETRY_POLICY = {
	...DEFAULT_RETRY_POLICY,
	maxAttempts: 3,
	maxRateLimitWaitMs: 30_000,
};

export type ArtifactResult = { ok: true; binary: IBinaryData } | { ok: false; error: IDataObject };

/**
 * GET …/artifact.{format} for the job, built from the credential's Base URL: the links in the event body are
 * never followed with the API key, so a forged link could not collect it. A job_id that is no id (".." would
 * address another path) is not fetched at all.
 */
export async function eventArtifact(
	context: IWebhookFunctions,
	jobId: string,
	format: ArtifactFormat,
): Promise<ArtifactResult> {
	const problem = idProblem(jobId);
	if (problem !== undefined) {
		return {
			ok: false,
			error: { code: 'invalid_id', message: `The event's job_id is not a valid id: ${problem}` },
		};
	}
	try {
		const client = new TranscriptionServiceClient(context, ARTIFACT_RETRY_POLICY);
		const artifact = await fetchArtifact(context, client, jobId, format);
		return { ok: true, binary: await artifactBinary(context, artifact) };
	} catch (error) {
		const fields = itemErrorOf(error);
		if (fields) return { ok: false, error: { ...fields } };
		return {
			ok: false,
			error: { code: 'artifact_download_failed', message: (error as Error).message },
		};
	}
}
