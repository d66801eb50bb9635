// The checks this process has answered, each remembered for as long as it could still be verified, so that a captured
// check is answered once here and refused after. n8n gives a waiting execution's webhook no store that its processes
// share and can write, so each process remembers its own: a check replayed to another process may be answered there
// once more (docs/pause-until-webhook.md says the bound).
import { CHECK_LIFETIME_MS, MAX_USED_CHECKS } from './timing';

/** Check id → when it can no longer be verified (ms since the epoch), in the order the checks were answered. */
const used = new Map<string, number>();

/**
 * Records the check `checkId`, signed at `signedAtMs`, as answered: false when it was answered before (a replay).
 * Forgets those that can no longer be verified.
 */
export function useCheck(checkId: string, signedAtMs: number, nowMs = Date.now()): boolean {
	for (const [id, expiresAtMs] of used) {
		if (expiresAtMs >= nowMs) break;
		used.delete(id);
	}
	if (used.has(checkId)) return false;
	const [oldest] = used.keys();
	if (used.size >= MAX_USED_CHECKS) used.delete(oldest);
	used.set(checkId, signedAtMs + CHECK_LIFETIME_MS);
	return true;
}
