import { randomUUID } from 'crypto';

/** Spec 4.2/4.4/8: Idempotency-Key is a string of 1 to 200 characters. */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 200;

/** A fresh key for one logical call; every retry of that call reuses it. */
export function generateIdempotencyKey(prefix = 'n8n'): string {
	return `${prefix}-${randomUUID()}`;
}

/** Returns a message naming the problem, or undefined when the key is valid. */
export function idempotencyKeyProblem(key: string): string | undefined {
	if (key.length === 0) return 'Idempotency Key must not be empty';
	if (key.length > IDEMPOTENCY_KEY_MAX_LENGTH) {
		return `Idempotency Key is ${key.length} characters long; the API accepts 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH}`;
	}
	return undefined;
}
