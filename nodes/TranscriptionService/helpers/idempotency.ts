import type { IExecuteFunctions } from 'n8n-workflow';

import {
	derivedIdempotencyKey,
	generateIdempotencyKey,
	idempotencyKeyProblem,
} from '../../../src/client';
import { operationError } from '../../shared/errors';

/**
 * The Idempotency-Key of one POST: the user's (checked against the API's 1–200 characters) or one derived from this
 * n8n instance, the workflow, the execution, this node, its run and the item, so that n8n's Retry On Fail replays a
 * committed slot or job instead of creating a second one. The transport sends the same key on every retry of that call.
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
		instanceId: context.getInstanceId(),
		workflowId: String(context.getWorkflow().id ?? ''),
		executionId,
		nodeId: context.getNode().id,
		runIndex: context.getWorkflowDataProxy(itemIndex).$runIndex,
		itemIndex,
		step,
	});
}
