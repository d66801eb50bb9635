// Follows one input item's requests through the counting proxy's log — its upload slot by file name, then the
// slot's PUT, the job created from the slot, the job's polls and downloads — and judges a failed item: could a
// client following spec section 7 (retry 5xx, 429 and network failures with bounded attempts) have avoided it?

import type { Exchange } from '../sandbox/counting-proxy';
import type { SandboxRecords } from '../../../sandbox/admin-client';
import { DEFAULT_RETRY_POLICY } from '../../../src/client';

const RETRYABLE_STATUSES = new Set([429, 500, 502, 503]);

export interface ItemTrail {
	fileName: string;
	uploadIds: string[];
	jobIds: string[];
	exchanges: Exchange[];
}

export function itemTrail(
	fileName: string,
	exchanges: Exchange[],
	records: SandboxRecords,
): ItemTrail {
	const uploadIds = new Set(
		records.uploads
			.filter((upload) => upload.filename === fileName)
			.map((upload) => upload.upload_id),
	);
	const jobIds = new Set(
		records.jobs.filter((job) => uploadIds.has(job.upload_id)).map((job) => job.job_id),
	);
	const belongs = (exchange: Exchange): boolean => {
		const path = exchange.url.split('?')[0];
		const request = exchange.requestJson as { filename?: string; upload_id?: string } | undefined;
		if (exchange.method === 'POST' && path.endsWith('/uploads'))
			return request?.filename === fileName;
		if (exchange.method === 'POST' && path.endsWith('/transcriptions'))
			return uploadIds.has(request?.upload_id ?? '');
		const uploadMatch = /\/uploads\/([^/]+)\/binary$/.exec(path);
		if (uploadMatch) return uploadIds.has(uploadMatch[1]);
		const jobMatch = /\/transcriptions\/([^/.]+)(?:\/artifact(?:\.\w+)?)?$/.exec(path);
		return jobMatch !== null && jobIds.has(jobMatch[1]);
	};
	return {
		fileName,
		uploadIds: [...uploadIds],
		jobIds: [...jobIds],
		exchanges: exchanges.filter(belongs).sort((a, b) => a.sequence - b.sequence),
	};
}

function isRetryableFault(exchange: Exchange): boolean {
	return exchange.status === 'no_response' || RETRYABLE_STATUSES.has(exchange.status);
}

/** Same operation on the same resource with the same idempotency key: one call's attempts. */
function sameCall(a: Exchange, b: Exchange): boolean {
	return a.method === b.method && a.url === b.url && a.idempotencyKey === b.idempotencyKey;
}

export interface FailureVerdict {
	avoidable: boolean;
	reason: string;
}

/**
 * A failure is unavoidable only when the call it died on got a retryable fault on every one of the policy's
 * attempts in a row. Anything else — a 2xx followed by a failure, a 4xx after an uncertain answer, giving up
 * early — is a failure the spec's retry policy would have avoided.
 */
export function judgeFailure(
	trail: ItemTrail,
	maxAttempts = DEFAULT_RETRY_POLICY.maxAttempts,
): FailureVerdict {
	const last = trail.exchanges.at(-1);
	if (!last) return { avoidable: true, reason: 'the item failed without sending a request' };
	let faultsInARow = 0;
	for (let index = trail.exchanges.length - 1; index >= 0; index--) {
		const exchange = trail.exchanges[index];
		if (!sameCall(exchange, last) || !isRetryableFault(exchange)) break;
		faultsInARow++;
	}
	if (faultsInARow >= maxAttempts) {
		return {
			avoidable: false,
			reason: `${last.method} ${last.url}: ${faultsInARow} faulted attempts in a row`,
		};
	}
	return {
		avoidable: true,
		reason: `${last.method} ${last.url}: last answer ${last.status}, ${faultsInARow} faulted attempt(s) in a row before it`,
	};
}
