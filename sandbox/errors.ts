// The 2.7 error envelope and the codes the sandbox answers with. Section 7 codes come from src/api;
// the codes the spec leaves open (422/500/502/503, unknown route, a body that is not a JSON object) are
// fixed by the team's decisions and the OpenAPI document's catalogue.

import { resolutionUrl } from '../openapi';
import type { PublicAPIErrorEnvelope } from '../src/api';
import { ERROR_CODES, isKnownErrorCode } from '../src/service';

export const OPEN_ERROR_CODES = {
	invalid_request_body: 400,
	validation_error: 422,
	internal_error: 500,
	upstream_unavailable: 502,
	service_unavailable: 503,
	not_found: 404,
} as const;

export type SandboxErrorCode = keyof typeof ERROR_CODES | keyof typeof OPEN_ERROR_CODES;

export interface ValidationIssue {
	location: 'body' | 'query' | 'header' | 'path';
	field: string;
	message: string;
}

/** Thrown anywhere in request handling; the server turns it into the envelope with the right status. */
export class ApiError extends Error {
	constructor(
		readonly status: number,
		readonly code: string,
		message: string,
		readonly details: Record<string, unknown> = {},
		readonly headers: Record<string, string> = {},
	) {
		super(message);
	}

	static of(
		code: SandboxErrorCode,
		message: string,
		details: Record<string, unknown> = {},
	): ApiError {
		const status = isKnownErrorCode(code) ? ERROR_CODES[code] : OPEN_ERROR_CODES[code];
		return new ApiError(status, code, message, details);
	}

	static validation(issues: ValidationIssue[]): ApiError {
		const summary = issues
			.map((issue) => `${issue.location} ${issue.field || '(root)'}: ${issue.message}`)
			.join('; ');
		return ApiError.of('validation_error', `Request validation failed: ${summary}`, {
			errors: issues,
		});
	}
}

/** details.resolution_url comes from the document's error catalogue (unknown codes → the general guide). */
export function errorEnvelope(
	baseUrl: string,
	error: ApiError,
	requestId: string,
): PublicAPIErrorEnvelope {
	return {
		error: {
			code: error.code,
			message: error.message,
			request_id: requestId,
			details: { ...error.details, resolution_url: resolutionUrl(baseUrl, error.code) },
		},
	};
}
