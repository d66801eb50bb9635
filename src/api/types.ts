// Schemas of spec section 2, named as the spec names them. Field names are the wire names.

export type IsoDateTime = string;

/** 2.1 */
export interface PublicAccountResponse {
	account_id: string;
	effective_tier: string;
	api_access: boolean;
	wallet_balance: number;
	status: string;
}

/** 2.2 */
export interface PublicUploadCreateRequest {
	filename: string;
	content_type: string;
	size_bytes: number;
}

/** 2.2 */
export interface PublicUploadCreateResponse {
	upload_id: string;
	upload_url: string;
	upload_method: string;
	expires_at: IsoDateTime;
}

/** 2.2 */
export interface PublicUploadBinaryResponse {
	ok: boolean;
	bytes_received: number;
}

export const MODEL_TIERS = ['standard', 'fast_low_cost', 'premium_quality'] as const;
export type ModelTier = (typeof MODEL_TIERS)[number];

export const OUTPUT_FORMATS = ['srt', 'plain_text'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** 2.3 — additionalProperties: false on the wire. */
export interface PublicTranscriptionCreateRequest {
	upload_id: string;
	translate_to_hebrew?: boolean;
	model_tier?: ModelTier | null;
	user_prompt?: string | null;
	output_format?: OutputFormat;
	webhook_url?: string | null;
}

export const TRANSCRIPTION_CREATE_FIELDS: ReadonlyArray<keyof PublicTranscriptionCreateRequest> = [
	'upload_id',
	'translate_to_hebrew',
	'model_tier',
	'user_prompt',
	'output_format',
	'webhook_url',
];

/** 2.3 */
export interface PublicTranscriptionCreateResponse {
	job_id: string;
	status: string;
	links: { self: string };
}

/** 2.3 */
export interface PublicTranscriptionAnalysis {
	language: string | null;
	dialect: string | null;
}

/** 2.3 — links are paths relative to the base URL. */
export interface PublicTranscriptionResponse {
	job_id: string;
	status: string;
	created_at: IsoDateTime;
	updated_at: IsoDateTime;
	media_duration_seconds?: number | null;
	credits_used?: number | null;
	analysis: PublicTranscriptionAnalysis;
	links: { self: string; artifact: string };
}

/** 2.3 */
export interface PublicTranscriptionListResponse {
	items: PublicTranscriptionResponse[];
	total: number;
	links: { self: string; next: string | null; prev: string | null };
}

export const WEBHOOK_EVENT_TYPES = ['transcription.completed', 'transcription.failed'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
export const WEBHOOK_TEST_EVENT = 'webhook.test';

/** 2.5 — links are absolute URLs. */
export interface PublicTranscriptionWebhookEvent {
	event: WebhookEventType;
	event_id: string;
	job_id: string;
	status: 'completed' | 'failed';
	created_at: IsoDateTime;
	links: { self: string; artifact: string | null };
}

/** 2.6 */
export interface PublicWebhookTestDelivery {
	event: string;
	event_id: string;
	job_id: string;
	status: 'completed';
	test_mode: true;
	links: { self: string; artifact: string };
}

/** 4.9 */
export interface PublicWebhookTestRequest {
	webhook_url: string;
	event_type?: string;
}

/** 4.9 */
export interface PublicWebhookTestResponse {
	ok: boolean;
	event_id: string;
	delivered: boolean;
	status_code: number | null;
	error: string | null;
}

/** 2.7 */
export interface PublicAPIErrorEnvelope {
	error: {
		code: string;
		message: string;
		request_id: string | null;
		details: { resolution_url?: string; [key: string]: unknown };
	};
}

export function isErrorEnvelope(value: unknown): value is PublicAPIErrorEnvelope {
	if (typeof value !== 'object' || value === null) return false;
	const error = (value as { error?: unknown }).error;
	return (
		typeof error === 'object' &&
		error !== null &&
		typeof (error as { code?: unknown }).code === 'string' &&
		typeof (error as { message?: unknown }).message === 'string'
	);
}
