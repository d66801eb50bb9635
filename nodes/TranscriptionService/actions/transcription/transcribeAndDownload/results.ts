// The output of a pause once every job has ended: per item exactly what Poll mode outputs for it. Never throws:
// an item that cannot be completed becomes its error, so the webhook that resumes always has items to hand n8n.
import type { INodeExecutionData } from 'n8n-workflow';

import { isTerminalStatus } from '../../../../../src/api';
import type { ArtifactContext } from '../../../../shared/artifact';
import {
	asItemFailure,
	itemErrorOf,
	operationError,
	type ItemError,
} from '../../../../shared/errors';
import type { TranscriptionServiceClient } from '../../../../shared/transport';
import { forEachConcurrently } from '../../../helpers/items';
import { transcriptItem } from './transcript';
import { jobEndedError } from './job-errors';
import type { PauseRecord } from './ledger';

/** Items collected side by side once every job has ended (their downloads share the artifacts bucket's pacer). */
const RESULT_CONCURRENCY = 4;

export type ItemResult =
	{ ok: true; item: INodeExecutionData } | { ok: false; error: Error; item: INodeExecutionData };

/**
 * For each record: an item that failed before the pause keeps its error; a job is read once (its snapshot is the
 * output's json, and the truth if an event was lost), then downloaded when completed or turned into job_failed /
 * job_cancelled.
 */
export async function collectResults(
	context: ArtifactContext,
	client: TranscriptionServiceClient,
	records: readonly PauseRecord[],
	failures: ReadonlyMap<number, ItemError>,
): Promise<ItemResult[]> {
	const results: ItemResult[] = new Array(records.length);
	await forEachConcurrently(records.length, RESULT_CONCURRENCY, async (index) => {
		results[index] = await collectOne(context, client, records[index], failures);
	});
	return results;
}

async function collectOne(
	context: ArtifactContext,
	client: TranscriptionServiceClient,
	record: PauseRecord,
	failures: ReadonlyMap<number, ItemError>,
): Promise<ItemResult> {
	const pairedItem = { item: record.item };
	const failure = failures.get(record.item);
	if (record.job_id === undefined || failure) {
		const fields = failure ?? { code: 'node_error', message: 'The item failed before the pause' };
		const error = operationError(context.getNode(), { ...fields, itemIndex: record.item });
		return { ok: false, error, item: { json: { error: fields }, pairedItem } };
	}
	try {
		const job = await client.getTranscription(record.job_id, record.item);
		if (job.status.toLowerCase() !== 'completed') {
			throw isTerminalStatus(job.status)
				? jobEndedError(context.getNode(), job.job_id, job.status, record.item)
				: operationError(context.getNode(), {
						code: 'job_not_finished',
						message: `Transcription job ${job.job_id} was reported ended, but its status is "${job.status}"`,
						description:
							'Fetch it later with Transcription → Get and → Download Artifact using this job_id.',
						job_id: job.job_id,
						status: job.status,
						itemIndex: record.item,
					});
		}
		const item = await transcriptItem(context, client, job, record.formats, record.item);
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
