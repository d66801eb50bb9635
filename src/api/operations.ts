// The nine operationIds of spec section 9 with their method and path template (relative to the prefix),
// and the rate-limit bucket each one draws from (writes, reads, artifacts, webhook tests: docs/api-notes.md).

import { idProblem } from './ids';

export type HttpMethod = 'GET' | 'POST' | 'PUT';
export type RateLimitBucket = 'writes' | 'reads' | 'artifacts' | 'webhook_tests';

/**
 * Which failed attempts a client may repeat: `any` for reads, for writes guarded by an Idempotency-Key and for the
 * single-use PUT (a repeat is answered 409); `unsent` for a call the service would act on twice (a test delivery),
 * repeated only when it provably never reached the service (refused connection, 429).
 */
export type RetryScope = 'any' | 'unsent';

export interface OperationDefinition {
	method: HttpMethod;
	path: string;
	bucket: RateLimitBucket;
	/** POST /uploads and POST /transcriptions accept an Idempotency-Key. */
	idempotent: boolean;
	retry: RetryScope;
}

export const OPERATIONS = {
	getAccount: { method: 'GET', path: '/account', bucket: 'reads', idempotent: false, retry: 'any' },
	createUpload: {
		method: 'POST',
		path: '/uploads',
		bucket: 'writes',
		idempotent: true,
		retry: 'any',
	},
	uploadBinary: {
		method: 'PUT',
		path: '/uploads/{upload_id}/binary',
		bucket: 'writes',
		idempotent: false,
		retry: 'any',
	},
	createTranscription: {
		method: 'POST',
		path: '/transcriptions',
		bucket: 'writes',
		idempotent: true,
		retry: 'any',
	},
	listTranscriptions: {
		method: 'GET',
		path: '/transcriptions',
		bucket: 'reads',
		idempotent: false,
		retry: 'any',
	},
	getTranscription: {
		method: 'GET',
		path: '/transcriptions/{job_id}',
		bucket: 'reads',
		idempotent: false,
		retry: 'any',
	},
	getTranscriptionArtifact: {
		method: 'GET',
		path: '/transcriptions/{job_id}/artifact',
		bucket: 'artifacts',
		idempotent: false,
		retry: 'any',
	},
	getTranscriptionArtifactByExtension: {
		method: 'GET',
		path: '/transcriptions/{job_id}/artifact.{path_format}',
		bucket: 'artifacts',
		idempotent: false,
		retry: 'any',
	},
	testWebhook: {
		method: 'POST',
		path: '/webhooks/test',
		bucket: 'webhook_tests',
		idempotent: false,
		retry: 'unsent',
	},
} as const satisfies Record<string, OperationDefinition>;

export type OperationId = keyof typeof OPERATIONS;

export const OPERATION_IDS = Object.keys(OPERATIONS) as OperationId[];

export const DEFAULT_PATH_PREFIX = '/api/v1';

/**
 * Fills `{name}` placeholders, percent-encoding each value; a value that is no id (idProblem) is refused, so an id
 * can never change the path. Callers check ids first to name the parameter; this is the last line.
 */
export function buildPath(operationId: OperationId, params: Record<string, string> = {}): string {
	return OPERATIONS[operationId].path.replace(/\{(\w+)\}/g, (_match, name: string) => {
		const value = params[name];
		if (value === undefined || value === '') {
			throw new Error(`Missing path parameter "${name}" for ${operationId}`);
		}
		const problem = idProblem(value);
		if (problem !== undefined) {
			throw new Error(`Path parameter "${name}" of ${operationId} is not an id: ${problem}`);
		}
		return encodeURIComponent(value);
	});
}

/** "/api/v1/" + "/account" → "/api/v1/account"; an empty prefix is allowed. */
export function joinPrefix(prefix: string, path: string): string {
	const trimmed = prefix.trim().replace(/\/+$/, '');
	const withSlash = trimmed === '' || trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
	return `${withSlash}${path.startsWith('/') ? path : `/${path}`}`;
}

/**
 * API responses carry links as paths relative to the base URL (e.g. "/api/v1/transcriptions/j1"),
 * webhook bodies as absolute URLs. Either resolves against the base URL, never against the prefix twice.
 */
export function resolveLink(baseUrl: string, link: string): string {
	if (/^https?:\/\//i.test(link)) return link;
	const base = baseUrl.replace(/\/+$/, '');
	return `${base}${link.startsWith('/') ? link : `/${link}`}`;
}
