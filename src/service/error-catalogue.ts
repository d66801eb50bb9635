// Spec section 7: the stable error codes and the HTTP status each comes with.

export const ERROR_CODES = {
	invalid_webhook_url: 400,
	webhook_url_forbidden_target: 400,
	unsupported_artifact_format: 400,
	empty_upload_body: 400,
	upload_size_mismatch: 400,
	missing_api_key: 401,
	invalid_api_key: 401,
	invalid_api_key_mode: 401,
	invalid_api_key_user: 401,
	scope_violation_read_only: 403,
	plan_downgraded_api_revoked: 403,
	upload_not_found: 404,
	job_not_found: 404,
	artifact_not_found: 404,
	idempotency_mismatch: 409,
	upload_not_available: 409,
	artifact_not_ready: 409,
	upload_slot_expired: 410,
	rate_limit_exceeded: 429,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export function isKnownErrorCode(code: string): code is ErrorCode {
	return Object.prototype.hasOwnProperty.call(ERROR_CODES, code);
}
