// The output of a pause once it ends: per item exactly what Poll mode outputs for it. Never throws: an item that
// cannot be completed becomes its error item (`error` alone, naming its job), so nothing is dropped silently and the
// request that resumes always has items to hand n8n.
import type { INodeExecutionData } from 'n8n-workflow';

import {
	isCompletedStatus,
	isTerminalStatus,
	type PublicTranscriptionResponse,
} from '../../../../../src/api';
import type { ArtifactContext } from '../../../../shared/artifact';
import {
	asItemFailure,
	itemErrorOf,
	operationError,
	type ItemError,
} from '../../../../shared/errors';
import type { TranscriptionServiceClient } from '../../../../shared/transport';
import { forEachConcurrently } from '../../../helpers/item-loop';
import { jobEndedError, maxWaitExceededError } from './job-errors';
import type { PauseRecord } from './pause-record';
import { completedJobItem } from './completed-job-item';

/** Items collected side by side (their downloads share the artifacts bucket's pacer). */
const RESULT_CONCURRENCY = 4;

export type ItemResult =
	{ ok: true; item: INodeExecutionData } | { ok: false; error: Error; item: INodeExecutionData };

export interface CollectInput {
	records: readonly PauseRecord[];
	/** The errors of items that failed before the pause, by item index. */
	failures: ReadonlyMap<number, ItemError>;
	/** Snapshots already read, by job_id: not read again. */
	snapshots: ReadonlyMap<string, PublicTranscriptionResponse>;
	/** Set when Max Wait ran out: a job still running becomes max_wait_exceeded with its current status. */
	maxWaitMs?: number;
}

/**
 * For each record: an item that failed before the pause keeps its error; a job is read unless its snapshot is known,
 * then downloaded when completed, or turned into job_failed / job_cancelled / max_wait_exceeded. Downloads retry
 * transient failures with the transport's policy; what still fails is that item's error.
 */
export async function collectResults(
	context: ArtifactContext,
	client: TranscriptionServiceClient,
	input: CollectInput,
): Promise<ItemResult[]> {
	const results: ItemResult[] = new Array(input.records.length);
	await forEachConcurrently(input.records.length, RESULT_CONCURRENCY, async (index) => {
		results[index] = await collectOne(context, client, input, input.records[index]);
	});
	return results;
}

async function collectOne(
	context: ArtifactContext,
	client: TranscriptionServiceClient,
	input: CollectInput,
	record: PauseRecord,
): Promise<ItemResult> {
	const pairedItem = { item: record.item };
	const failure = input.failures.get(record.item);
	if (record.job_id === undefined || failure) {
		const fields = failure ?? { code: 'node_error', message: 'The item failed before the pause' };
		const error = operationError(context.getNode(), { ...fields, itemIndex: record.item });
		return { ok: false, error, item: { json: { error: { ...fields } }, pairedItem } };
	}
	try {
		const job =
			input.snapshots.get(record.job_id) ??
			(await client.getTranscription(record.job_id, record.item));
		if (!isCompletedStatus(job.status)) throw unfinishedError(context, input, record, job);
		const item = await completedJobItem(
			context,
			client,
			job,
			{ formats: record.formats, cues: record.include_cues === true },
			record.item,
		);
		return { ok: true, item: { ...item, pairedItem } };
	} catch (caught) {
		const error = asItemFailure(context.getNode(), caught, record.item, {
			upload_id: record.upload_id,
			job_id: record.job_id,
		});
		const fields = itemErrorOf(error);
		return { ok: false, error, item: { json: { error: { ...fields } }, pairedItem } };
	}
}

function unfinishedError(
	context: ArtifactContext,
	input: CollectInput,
	record: PauseRecord,
	job: PublicTranscriptionResponse,
): Error {
	const node = context.getNode();
	if (isTerminalStatus(job.status)) return jobEndedError(node, job.job_id, job.status, record.item);
	if (input.maxWaitMs !== undefined) {
		return maxWaitExceededError(
			node,
			{
				jobId: job.job_id,
				status: job.status,
				maxWaitMs: input.maxWaitMs,
				uploadId: record.upload_id,
			},
			record.item,
		);
	}
	return operationError(node, {
		code: 'job_not_finished',
		message: `Transcription job ${job.job_id} was reported ended, but its status is "${job.status}"`,
		description:
			'Fetch it later with Transcription → Get and → Download Artifact using this job_id.',
		job_id: job.job_id,
		status: job.status,
		itemIndex: record.item,
	});
}
