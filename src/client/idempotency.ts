import { createHash, randomUUID } from 'crypto';

/** Spec 4.2/4.4/8: Idempotency-Key is a string of 1 to 200 characters. */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 200;

/** A fresh key for one logical call; every retry of that call reuses it. */
export function generateIdempotencyKey(prefix = 'n8n'): string {
	return `${prefix}-${randomUUID()}`;
}

/**
 * One logical write of a workflow run: the execution — its id, and the mark it drew (two n8n instances sharing an
 * account, staging cloned from production, have the same instance id, workflow and node ids and execution-id sequence:
 * only the run itself tells their executions apart) — the node, its run (a node in a loop runs several times), the
 * item and the step (slot, job). n8n's Retry On Fail runs the node again with all of these unchanged.
 */
export interface WriteScope {
	/** Random, drawn by the execution the first time it writes, and kept with it. */
	executionMark: string;
	executionId: string;
	nodeId: string;
	runIndex: number;
	itemIndex: number;
	step: string;
}

/**
 * The same key for the same write, however often n8n retries the node within one execution, and a new key in a
 * new execution, a clone's included: a job the service already committed is replayed, never created twice, and
 * never taken for another instance's.
 */
export function derivedIdempotencyKey(scope: WriteScope, prefix = 'n8n'): string {
	const parts = [
		scope.executionMark,
		scope.executionId,
		scope.nodeId,
		scope.runIndex,
		scope.itemIndex,
		scope.step,
	];
	return `${prefix}-${createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 48)}`;
}

/** Returns a message naming the problem, or undefined when the key is valid. */
export function idempotencyKeyProblem(key: string): string | undefined {
	if (key.length === 0) return 'Idempotency Key must not be empty';
	if (key.length > IDEMPOTENCY_KEY_MAX_LENGTH) {
		return `Idempotency Key is ${key.length} characters long; the API accepts 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH}`;
	}
	return undefined;
}
