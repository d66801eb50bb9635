// The items a poll emits: the webhook trigger's item (nodes/shared/event-item.ts), built from a listed job, so a workflow can
// switch between the two triggers without changing the nodes after it.
import { createHash } from 'crypto';
import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import { buildPath, joinPrefix } from '../../src/api';
import type { WebhookEventBody } from '../../src/webhooks';
import {
	EVENT_ARTIFACT_RETRY_POLICY,
	eventItemJson,
	withEventArtifact,
} from '../shared/event-item';
import type { ArtifactDownload } from '../shared/event-properties';
import { TranscriptionServiceClient } from '../shared/transport';
import { pollingEventType } from '../shared/vocabulary';
import type { DueJob } from './list';

/**
 * The service's webhook event ids are not in the list, so a polled job gets its own: derived from job_id and status
 * alone, the same in every poll, after a restart and in every workflow, so Remove Duplicates on event_id works
 * downstream. It never equals the id of the service's webhook event for the same job.
 */
export function pollEventId(jobId: string, status: string): string {
	const digest = createHash('sha256').update(`${jobId}\n${status}`).digest('hex');
	return `evt_poll_${digest.slice(0, 32)}`;
}

/**
 * The event a webhook would carry for this job: event, event_id, job_id, status, created_at (when the job reached the
 * status: its updated_at, as a webhook event's created_at is the time of the state change) and absolute links, the
 * artifact link only for completed jobs.
 */
export function polledEvent(job: DueJob, baseUrl: string, pathPrefix: string): WebhookEventBody {
	const link = (operation: 'getTranscription' | 'getTranscriptionArtifact') =>
		`${baseUrl}${joinPrefix(pathPrefix, buildPath(operation, { job_id: job.job_id }))}`;
	return {
		event: pollingEventType(job.status),
		event_id: pollEventId(job.job_id, job.status),
		job_id: job.job_id,
		status: job.status,
		created_at: job.updated_at,
		links: {
			self: link('getTranscription'),
			artifact: job.status === 'completed' ? link('getTranscriptionArtifact') : null,
		},
	} as unknown as WebhookEventBody;
}

export interface JobItemsOptions {
	/** The client the downloads go through (their retry policy, and whoever watches what they spend). */
	client?: TranscriptionServiceClient;
	/** Awaited before each download: the poll keeps to its share of the account's download bucket. */
	beforeDownload?: () => Promise<void>;
}

/** One item per job, in order; with Download Artifact a completed job's transcript goes into n8n's binary data. */
export async function jobItems(
	context: IPollFunctions,
	jobs: DueJob[],
	artifact: ArtifactDownload,
	receivedAtMs: number,
	options: JobItemsOptions = {},
): Promise<INodeExecutionData[]> {
	const client =
		options.client ?? new TranscriptionServiceClient(context, EVENT_ARTIFACT_RETRY_POLICY);
	const { baseUrl, pathPrefix } = await client.serviceSettings();
	const items: INodeExecutionData[] = [];
	for (const job of jobs) {
		const json: IDataObject = eventItemJson(polledEvent(job, baseUrl, pathPrefix), receivedAtMs);
		if (!artifact.download || job.status !== 'completed') {
			items.push({ json });
			continue;
		}
		await options.beforeDownload?.();
		items.push(await withEventArtifact(context, json, job.job_id, artifact, client));
	}
	return items;
}
