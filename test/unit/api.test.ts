import {
	apiKeyMode,
	buildPath,
	isErrorEnvelope,
	isTerminalStatus,
	joinPrefix,
	OPERATION_IDS,
	OPERATIONS,
	resolveLink,
} from '../../src/api';
import { ERROR_CODES } from '../../src/service';

describe('operations (spec sections 4 and 9)', () => {
	it('lists the nine operationIds of section 9', () => {
		expect(OPERATION_IDS).toEqual([
			'getAccount',
			'createUpload',
			'uploadBinary',
			'createTranscription',
			'listTranscriptions',
			'getTranscription',
			'getTranscriptionArtifact',
			'getTranscriptionArtifactByExtension',
			'testWebhook',
		]);
	});

	it('marks POST /uploads and POST /transcriptions, and only them, as taking an Idempotency-Key', () => {
		const idempotent = OPERATION_IDS.filter((id) => OPERATIONS[id].idempotent);
		expect(idempotent).toEqual(['createUpload', 'createTranscription']);
	});

	it('fills path parameters, percent-encoding them', () => {
		expect(buildPath('uploadBinary', { upload_id: 'upl_1' })).toBe('/uploads/upl_1/binary');
		expect(buildPath('getTranscription', { job_id: 'job:1+2%' })).toBe(
			'/transcriptions/job%3A1%2B2%25',
		);
		expect(
			buildPath('getTranscriptionArtifactByExtension', { job_id: 'j1', path_format: 'pdf' }),
		).toBe('/transcriptions/j1/artifact.pdf');
		expect(() => buildPath('getTranscription')).toThrow(
			'Missing path parameter "job_id" for getTranscription',
		);
	});

	it.each([
		['..', '".." is a path segment, not an id'],
		['.', '"." is a path segment, not an id'],
		['a/../b', 'it contains a path separator ("/" or "\\")'],
		['a\\b', 'it contains a path separator ("/" or "\\")'],
		['job 1', 'it contains whitespace or a control character'],
	])('refuses %j as a path parameter, whatever the encoding would do: %s', (id, problem) => {
		expect(() => buildPath('getTranscription', { job_id: id })).toThrow(
			`Path parameter "job_id" of getTranscription is not an id: ${problem}`,
		);
	});

	it('prepends a prefix exactly once, with or without slashes', () => {
		expect(joinPrefix('/api/v1', '/account')).toBe('/api/v1/account');
		expect(joinPrefix('/api/v1/', '/account')).toBe('/api/v1/account');
		expect(joinPrefix('custom/v1', '/account')).toBe('/custom/v1/account');
		expect(joinPrefix('', '/account')).toBe('/account');
	});

	it('resolves relative API links against the base URL and keeps absolute webhook links', () => {
		expect(resolveLink('http://127.0.0.1:4010/', '/api/v1/transcriptions/j1')).toBe(
			'http://127.0.0.1:4010/api/v1/transcriptions/j1',
		);
		expect(resolveLink('https://svc.example', 'https://other.example/x')).toBe(
			'https://other.example/x',
		);
	});
});

describe('statuses (spec section 3)', () => {
	it.each(['completed', 'failed', 'cancelled', 'COMPLETED'])('%s is terminal', (status) => {
		expect(isTerminalStatus(status)).toBe(true);
	});

	it.each(['queued', 'pending', 'processing', 'transcoding', ''])(
		'%s is still running',
		(status) => {
			expect(isTerminalStatus(status)).toBe(false);
		},
	);
});

describe('error codes (spec section 7)', () => {
	it('maps every code to the HTTP status of the table', () => {
		expect(ERROR_CODES).toEqual({
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
		});
	});

	it('recognises the 2.7 envelope', () => {
		expect(
			isErrorEnvelope({
				error: { code: 'job_not_found', message: 'x', request_id: null, details: {} },
			}),
		).toBe(true);
		expect(isErrorEnvelope({ error: 'job_not_found' })).toBe(false);
		expect(isErrorEnvelope(null)).toBe(false);
	});
});

describe('API keys (spec section 5)', () => {
	it('reads the mode from the prefix', () => {
		expect(apiKeyMode('svc_sk_live_abc')).toBe('live');
		expect(apiKeyMode(' svc_sk_test_abc ')).toBe('test');
		expect(apiKeyMode('sk_live_abc')).toBeUndefined();
		expect(apiKeyMode('')).toBeUndefined();
	});
});
