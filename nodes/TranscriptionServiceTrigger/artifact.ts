// Download Artifact: fetches a completed job's transcript for the emitted item. A failure becomes the item's
// artifact_error instead of an exception, so the event itself is never lost.

import type { IBinaryData, IDataObject, IWebhookFunctions } from 'n8n-workflow';

import type { ArtifactFormat } from '../../src/artifacts';
import { DEFAULT_RETRY_POLICY } from '../../src/client';
import {
	artifactBinary,
	downloadArtifact as fetchArtifact,
} from '../TranscriptionService/helpers/artifact';
import { apiErrorFieldsOf, TranscriptionServiceClient } from '../TranscriptionService/transport';

// The workflow waits for this download; a shorter retry budget than the action node's keeps it from stalling.
const ARTIFACT_RETRY_POLICY = {
	...DEFAULT_RETRY_POLICY,
	maxAttempts: 3,
	maxRateLimitWaitMs: 30_000,
};

export type ArtifactResult = { ok: true; binary: IBinaryData } | { ok: false; error: IDataObject };

/**
 * GET …/artifact.{format} for the job, built from the credential's Base URL: the links in the event body are
 * never followed with the API key, so a forged link could not collect it.
 */
export async function downloadArtifact(
	context: IWebhookFunctions,
	jobId: string,
	format: ArtifactFormat,
): Promise<ArtifactResult> {
	try {
		const client = new TranscriptionServiceClient(context, ARTIFACT_RETRY_POLICY);
		const artifact = await fetchArtifact(context, client, jobId, format);
		return { ok: true, binary: await artifactBinary(context, artifact) };
	} catch (error) {
		const apiError = apiErrorFieldsOf(error);
		if (apiError) return { ok: false, error: { ...apiError } as IDataObject };
		return {
			ok: false,
			error: { code: 'artifact_download_failed', message: (error as Error).message },
		};
	}
}
