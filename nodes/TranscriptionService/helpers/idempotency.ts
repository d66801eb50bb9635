import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { generateIdempotencyKey, idempotencyKeyProblem } from '../../../src/client';

/**
 * The Idempotency-Key of one POST: the user's (checked against the API's 1–200 characters) or a fresh one. The
 * transport sends the same key on every retry of that call, so a lost answer never creates a second slot or job.
 */
export function idempotencyKeyFor(
	context: IExecuteFunctions,
	itemIndex: number,
	userKey: string | undefined,
): string {
	if (userKey === undefined || userKey === '') return generateIdempotencyKey();
	const problem = idempotencyKeyProblem(userKey);
	if (problem) {
		throw new NodeOperationError(context.getNode(), problem, {
			itemIndex,
			description:
				'Set "Idempotency Key" (under Options) to 1–200 characters, or clear it to let the node generate one.',
		});
	}
	return userKey;
}
