import { randomUUID } from 'crypto';
import type { IExecuteFunctions } from 'n8n-workflow';

import {
	derivedIdempotencyKey,
	generateIdempotencyKey,
	idempotencyKeyProblem,
} from '../../../src/client';
import { operationError } from '../../shared/errors';

/**
 * The Idempotency-Key of one POST: the user's (checked against the API's 1–200 characters) or one derived from the
 * execution (its id and its mark), this node, its run and the item, so that n8n's Retry On Fail replays a committed
 * slot or job instead of creating a second one. The transport sends the same key on every retry of that call.
 */
export function idempotencyKeyFor(
	context: IExecuteFunctions,
	itemIndex: number,
	step: 'slot' | 'job',
	userKey?: string,
): string {
	if (userKey === undefined || userKey === '') return writeKey(context, itemIndex, step);
	const problem = idempotencyKeyProblem(userKey);
	if (problem) {
		throw operationError(context.getNode(), {
			code: 'invalid_idempotency_key',
			message: problem,
			description:
				'Set "Idempotency Key" (under Options) to 1–200 characters, or clear it to let the node generate one.',
			itemIndex,
		});
	}
	return userKey;
}

function writeKey(context: IExecuteFunctions, itemIndex: number, step: string): string {
	const executionId = context.getExecutionId();
	if (!executionId) return generateIdempotencyKey();
	return derivedIdempotencyKey({
		executionMark: executionMark(context),
		executionId,
		nodeId: context.getNode().id,
		runIndex: context.getWorkflowDataProxy(itemIndex).$runIndex,
		itemIndex,
		step,
	});
}

/**
 * What tells this execution from every other, a staging clone's included: a clone keeps the encryption key (to decrypt
 * its credentials), so the instance id n8n derives from it, and the database, so the workflow and node ids and the
 * execution-id sequence: its execution 42 is production's execution 42 in every id. The mark is drawn the first time
 * the node writes in the execution and kept in the node's context data, which n8n keeps with the execution — across
 * Retry On Fail (the retry runs on the same run data) and a pause — so the retries the key exists for reuse it.
 */
function executionMark(context: IExecuteFunctions): string {
	const nodeContext = context.getContext('node');
	if (typeof nodeContext.idempotencyMark !== 'string') nodeContext.idempotencyMark = randomUUID();
	return nodeContext.idempotencyMark as string;
}
