// R5's Pause Until Webhook batch settings (formats, Max Wait), the sandbox fault rules it injects on the node's
// service calls, and how those are counted afterwards from the counting proxy's records (what answered in the
// service's place), never from the code under test. Shared by the engine matrix (test/reliability) and its CI profile
// on real n8n (test/queue).
import type { Exchange } from '../../../bench/lib/counting-proxy';
import type { FaultRule } from '../../../sandbox/faults';

export const PAUSE_FORMATS = ['srt', 'txt'] as const;
/** Long enough that no healthy run reaches it: a job output as max_wait_exceeded is a stall. */
export const MAX_WAIT_SECONDS = 1800;
/** The statuses a job ends in at the service. */
export const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** A tenth of the requests on the faulted routes: a call's five attempts all failing is then ~1 in 100,000. */
export const FAULT_SHARE = 0.1;

export const STATUS_READ = /^\/api\/v1\/transcriptions\/[^/?]+(\?.*)?$/;
export const DOWNLOAD = /^\/api\/v1\/transcriptions\/[^/?]+\/artifact/;

export const ARTIFACT_ROUTES: FaultRule['route'][] = [
	'getTranscriptionArtifact',
	'getTranscriptionArtifactByExtension',
];

/**
 * On each route: its first two requests (so that even a quick run meets the fault), then `probability` of the rest.
 * Two in a row stay below a call's five attempts.
 */
export const rules = (
	routes: FaultRule['route'][],
	kind: FaultRule['kind'],
	probability = FAULT_SHARE,
) =>
	routes.flatMap((route): FaultRule[] => [
		{ route, kind, count: 2 },
		{ route, kind, probability },
	]);

/** Answers of `status` (or no answer) on requests whose path matches `path`. */
export function answered(exchanges: Exchange[], path: RegExp, status: Exchange['status']): number {
	return exchanges.filter(
		(exchange) =>
			exchange.method === 'GET' && path.test(exchange.url) && exchange.status === status,
	).length;
}
