// The OpenAPI document (openapi/) against the spec: valid OpenAPI 3.1, its authentication, operations, error codes,
// response headers, schemas and webhook events, section by section.

import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { parse } from 'yaml';
import {
	componentSchema,
	errorCatalog,
	openApiJson,
	openApiYaml,
	resolutionUrl,
} from '../../openapi';
import type { JSONSchema, OperationObject, ParameterObject } from '../../openapi';
import { OPERATION_IDS, OPERATIONS } from '../../src/api';
import type { OperationId } from '../../src/api';
import { ERROR_CODES } from '../../src/service';
import {
	deref,
	document,
	makeAjv,
	operation,
	operationEntries,
	parameters,
	response,
	schema,
} from '../support/fixtures/openapi-document';

const repoRoot = path.join(__dirname, '..', '..');

/** Runs the ESM-only @seriousme/openapi-schema-validator in a child Node process (jest here is CommonJS). */
function validateOpenApi(text: string): { valid: boolean; errors?: unknown } {
	const script = [
		"import { Validator } from '@seriousme/openapi-schema-validator';",
		"import { readFileSync } from 'node:fs';",
		"const result = await new Validator().validate(JSON.parse(readFileSync(0, 'utf8')));",
		'process.stdout.write(JSON.stringify(result));',
	].join('\n');
	const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
		cwd: repoRoot,
		input: JSON.stringify(parse(text)),
		encoding: 'utf8',
	});
	return JSON.parse(output) as { valid: boolean; errors?: unknown };
}

describe('OpenAPI document (spec section 9)', () => {
	it('validates as OpenAPI 3.1 (YAML as written and JSON as served)', () => {
		expect(validateOpenApi(openApiYaml())).toEqual({ valid: true });
		expect(validateOpenApi(openApiJson({ baseUrl: 'http://127.0.0.1:5555' }))).toEqual({
			valid: true,
		});
	});

	it('is OpenAPI 3.1.0 with info version v1', () => {
		expect(document.openapi).toBe('3.1.0');
		expect(document.info.version).toBe('v1');
	});

	it('has the /api/v1 prefix in its server url, the base URL defaulting to the sandbox', () => {
		expect(document.servers).toEqual([
			expect.objectContaining({
				url: '{base_url}/api/v1',
				variables: { base_url: expect.objectContaining({ default: 'http://127.0.0.1:4010' }) },
			}),
		]);
	});

	it('serves JSON equal to the YAML, and both can carry the actual base URL', () => {
		expect(JSON.parse(openApiJson())).toEqual(document);
		const servedJson = JSON.parse(
			openApiJson({ baseUrl: 'http://127.0.0.1:5555' }),
		) as typeof document;
		const servedYaml = parse(openApiYaml({ baseUrl: 'http://127.0.0.1:5555' })) as typeof document;
		expect(servedJson.servers[0].variables?.base_url.default).toBe('http://127.0.0.1:5555');
		expect(servedYaml.servers[0].variables?.base_url.default).toBe('http://127.0.0.1:5555');
		expect(document.servers[0].variables?.base_url.default).toBe('http://127.0.0.1:4010');
		expect({ ...servedYaml, servers: document.servers }).toEqual(document);
	});
});

describe('authentication (spec section 5)', () => {
	it('declares a bearer scheme describing live and test key prefixes, required globally', () => {
		const scheme = document.components.securitySchemes.bearerAuth;
		expect(scheme).toMatchObject({ type: 'http', scheme: 'bearer' });
		expect(scheme.description).toContain('svc_sk_live_');
		expect(scheme.description).toContain('svc_sk_test_');
		expect(document.security).toEqual([{ bearerAuth: [] }]);
	});
});

describe('operations (spec sections 4 and 9)', () => {
	it('has exactly the nine operationIds with the methods and paths of OPERATIONS', () => {
		const actual = Object.fromEntries(
			operationEntries().map(({ path: operationPath, method, operation: op }) => [
				op.operationId,
				{ method: method.toUpperCase(), path: operationPath },
			]),
		);
		const expected = Object.fromEntries(
			OPERATION_IDS.map((id) => [id, { method: OPERATIONS[id].method, path: OPERATIONS[id].path }]),
		);
		expect(actual).toEqual(expected);
	});

	it.each(OPERATION_IDS)('%s names its rate-limit bucket', (operationId) => {
		expect(operation(operationId)['x-rate-limit-bucket']).toBe(OPERATIONS[operationId].bucket);
	});

	it.each(OPERATION_IDS)(
		'%s takes an Idempotency-Key only when OPERATIONS says so',
		(operationId) => {
			const names = parameters(operationId).map((parameter) => parameter.name);
			expect(names.includes('Idempotency-Key')).toBe(OPERATIONS[operationId].idempotent);
		},
	);

	it.each(OPERATION_IDS)(
		'%s requires full_access exactly when it is a write (not GET)',
		(operationId) => {
			const required = operation(operationId)['x-required-scope'];
			expect(required).toBe(OPERATIONS[operationId].method === 'GET' ? undefined : 'full_access');
		},
	);

	const statuses: Record<OperationId, string[]> = {
		getAccount: ['200', '401', '403', '429', '503'],
		createUpload: ['201', '400', '401', '403', '409', '422', '429', '500', '503'],
		// 409 upload_not_available for a second PUT is decided in docs/api-notes.md ("Upload slots").
		uploadBinary: ['200', '400', '401', '403', '404', '409', '410', '429', '500', '503'],
		createTranscription: [
			'200',
			'202',
			'400',
			'401',
			'403',
			'404',
			'409',
			'410',
			'422',
			'429',
			'500',
			'502',
			'503',
		],
		listTranscriptions: ['200', '401', '403', '422', '429', '503'],
		getTranscription: ['200', '304', '401', '403', '404', '429', '503'],
		getTranscriptionArtifact: ['200', '400', '401', '403', '404', '409', '429', '500', '503'],
		getTranscriptionArtifactByExtension: [
			'200',
			'400',
			'401',
			'403',
			'404',
			'409',
			'429',
			'500',
			'503',
		],
		testWebhook: ['200', '400', '401', '403', '422', '429', '503'],
	};
	it.each(OPERATION_IDS)('%s lists the response statuses of its section', (operationId) => {
		expect(Object.keys(operation(operationId).responses).sort()).toEqual(
			[...statuses[operationId]].sort(),
		);
	});
});

describe('error codes (spec section 7)', () => {
	const openCodes = {
		invalid_request_body: 400,
		not_found: 404,
		validation_error: 422,
		internal_error: 500,
		upstream_unavailable: 502,
		service_unavailable: 503,
	};

	it('catalogues every section 7 code and the open codes with their HTTP status', () => {
		const catalogue = Object.fromEntries(errorCatalog().map((entry) => [entry.code, entry.status]));
		expect(catalogue).toEqual({ ...ERROR_CODES, ...openCodes });
	});

	it.each(Object.entries(ERROR_CODES))(
		'%s appears on a %i response of some operation',
		(code, status) => {
			const carriers = OPERATION_IDS.filter((id) =>
				(response(id, String(status))?.['x-error-codes'] ?? []).includes(code),
			);
			expect(carriers.length).toBeGreaterThan(0);
		},
	);

	it('lists on each response only catalogued codes of that status', () => {
		const catalogue = new Map(errorCatalog().map((entry) => [entry.code, entry.status]));
		for (const id of OPERATION_IDS) {
			for (const status of Object.keys(operation(id).responses)) {
				for (const code of response(id, status)['x-error-codes'] ?? []) {
					expect({ id, code, status: catalogue.get(code) }).toEqual({
						id,
						code,
						status: Number(status),
					});
				}
			}
		}
	});

	it('gives every 4xx/5xx response the error envelope, its codes and one example per code', () => {
		for (const id of OPERATION_IDS) {
			for (const status of Object.keys(operation(id).responses).filter((s) => Number(s) >= 400)) {
				const errorResponse = response(id, status);
				const json = errorResponse.content?.['application/json'];
				expect({ id, status, schema: json?.schema }).toEqual({
					id,
					status,
					schema: { $ref: '#/components/schemas/PublicAPIErrorEnvelope' },
				});
				const codes = errorResponse['x-error-codes'] ?? [];
				expect(codes.length).toBeGreaterThan(0);
				expect(Object.keys(json?.examples as Record<string, unknown>).sort()).toEqual(
					[...codes].sort(),
				);
			}
		}
	});

	it.each([
		['createUpload', '403', ['scope_violation_read_only', 'plan_downgraded_api_revoked']],
		['createUpload', '409', ['idempotency_mismatch']],
		['uploadBinary', '400', ['empty_upload_body', 'upload_size_mismatch']],
		['uploadBinary', '404', ['upload_not_found']],
		['uploadBinary', '410', ['upload_slot_expired']],
		['createTranscription', '400', ['invalid_webhook_url', 'webhook_url_forbidden_target']],
		['createTranscription', '403', ['scope_violation_read_only']],
		['createTranscription', '404', ['upload_not_found']],
		['createTranscription', '409', ['idempotency_mismatch', 'upload_not_available']],
		['createTranscription', '410', ['upload_slot_expired']],
		['createTranscription', '502', ['upstream_unavailable']],
		['listTranscriptions', '422', ['validation_error']],
		['getTranscription', '404', ['job_not_found']],
		['getTranscriptionArtifact', '400', ['unsupported_artifact_format']],
		['getTranscriptionArtifact', '404', ['job_not_found', 'artifact_not_found']],
		['getTranscriptionArtifact', '409', ['artifact_not_ready']],
		['getTranscriptionArtifactByExtension', '400', ['unsupported_artifact_format']],
		['testWebhook', '400', ['invalid_webhook_url', 'webhook_url_forbidden_target']],
		[
			'getAccount',
			'401',
			['missing_api_key', 'invalid_api_key', 'invalid_api_key_mode', 'invalid_api_key_user'],
		],
		['getAccount', '429', ['rate_limit_exceeded']],
		['getAccount', '503', ['service_unavailable']],
	] as Array<[OperationId, string, string[]]>)('%s %s carries %j', (operationId, status, codes) => {
		expect(response(operationId, status)['x-error-codes']).toEqual(expect.arrayContaining(codes));
	});

	it('has resolution URLs of the form {base_url}/developers/api-reference#<code>, unknown codes → #errors', () => {
		expect(resolutionUrl('http://127.0.0.1:4010/', 'job_not_found')).toBe(
			'http://127.0.0.1:4010/developers/api-reference#job_not_found',
		);
		expect(resolutionUrl('http://127.0.0.1:4010', 'something_new')).toBe(
			'http://127.0.0.1:4010/developers/api-reference#errors',
		);
	});
});

describe('response headers (spec section 4)', () => {
	const rateLimitHeaders = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];

	it('puts X-Request-ID on every response', () => {
		for (const id of OPERATION_IDS) {
			for (const status of Object.keys(operation(id).responses)) {
				expect({ id, status, headers: Object.keys(response(id, status).headers ?? {}) }).toEqual({
					id,
					status,
					headers: expect.arrayContaining(['X-Request-ID']),
				});
			}
		}
	});

	it('puts the rate-limit headers on success, 304 and 429 responses, and Retry-After on 429', () => {
		for (const id of OPERATION_IDS) {
			for (const status of Object.keys(operation(id).responses)) {
				const names = Object.keys(response(id, status).headers ?? {});
				const code = Number(status);
				if (code < 400 || code === 429)
					expect(names).toEqual(expect.arrayContaining(rateLimitHeaders));
				if (code === 429) expect(names).toContain('Retry-After');
			}
		}
	});

	it('types the rate-limit headers and Retry-After as integers', () => {
		const headers = document.components.headers as Record<string, { schema: JSONSchema }>;
		for (const name of [...rateLimitHeaders, 'Retry-After'])
			expect(headers[name].schema.type).toBe('integer');
	});

	it('puts ETag on 200 and 304 of getTranscription; 304 has no body', () => {
		expect(Object.keys(response('getTranscription', '200').headers ?? {})).toContain('ETag');
		expect(Object.keys(response('getTranscription', '304').headers ?? {})).toContain('ETag');
		expect(response('getTranscription', '304').content).toBeUndefined();
	});

	it.each(['getTranscriptionArtifact', 'getTranscriptionArtifactByExtension'] as OperationId[])(
		'%s answers 200 with Content-Disposition in the four artifact media types',
		(operationId) => {
			const artifact = response(operationId, '200');
			expect(Object.keys(artifact.headers ?? {})).toContain('Content-Disposition');
			expect(Object.keys(artifact.content ?? {}).sort()).toEqual(
				[
					'application/x-subrip',
					'text/plain',
					'application/pdf',
					'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
				].sort(),
			);
		},
	);
});

describe('schemas (spec section 2)', () => {
	it.each([
		[
			'PublicAccountResponse',
			['account_id', 'effective_tier', 'api_access', 'wallet_balance', 'status'],
		],
		['PublicUploadCreateRequest', ['filename', 'content_type', 'size_bytes']],
		['PublicUploadCreateResponse', ['upload_id', 'upload_url', 'upload_method', 'expires_at']],
		['PublicUploadBinaryResponse', ['ok', 'bytes_received']],
		['PublicTranscriptionCreateRequest', ['upload_id']],
		['PublicTranscriptionCreateResponse', ['job_id', 'status', 'links']],
		[
			'PublicTranscriptionResponse',
			['job_id', 'status', 'created_at', 'updated_at', 'analysis', 'links'],
		],
		['PublicTranscriptionListResponse', ['items', 'total', 'links']],
		[
			'PublicTranscriptionWebhookEvent',
			['event', 'event_id', 'job_id', 'status', 'created_at', 'links'],
		],
		['PublicWebhookTestDelivery', ['event', 'event_id', 'job_id', 'status', 'test_mode', 'links']],
		['PublicWebhookTestRequest', ['webhook_url']],
		['PublicWebhookTestResponse', ['ok', 'event_id', 'delivered']],
		['PublicAPIErrorEnvelope', ['error']],
	])('%s requires %j', (name, required) => {
		expect(schema(name).required).toEqual(required);
	});

	it('rejects unknown properties on PublicTranscriptionCreateRequest', () => {
		expect(schema('PublicTranscriptionCreateRequest').additionalProperties).toBe(false);
	});

	it.each([
		['PublicTranscriptionCreateResponse', 'links', ['self']],
		['PublicTranscriptionResponse', 'links', ['self', 'artifact']],
		['PublicTranscriptionListResponse', 'links', ['self', 'next', 'prev']],
		['PublicTranscriptionWebhookEvent', 'links', ['self', 'artifact']],
		['PublicWebhookTestDelivery', 'links', ['self', 'artifact']],
		['PublicAPIErrorEnvelope', 'error', ['code', 'message', 'request_id', 'details']],
	])('%s.%s requires %j', (name, property, required) => {
		const properties = schema(name).properties as Record<string, JSONSchema>;
		expect(properties[property].required).toEqual(required);
	});

	it('requires analysis.language and analysis.dialect, both string or null', () => {
		const jobProperties = schema('PublicTranscriptionResponse').properties as Record<
			string,
			unknown
		>;
		const analysis = deref<JSONSchema>(jobProperties.analysis);
		expect(analysis.required).toEqual(['language', 'dialect']);
		const properties = analysis.properties as Record<string, JSONSchema>;
		expect(properties.language.type).toEqual(['string', 'null']);
		expect(properties.dialect.type).toEqual(['string', 'null']);
	});

	it('validates sample job, list and webhook bodies', () => {
		const ajv = makeAjv();
		const validatorOf = (name: string) => ajv.compile(componentSchema(name));
		const job = {
			job_id: 'job_1',
			status: 'processing',
			created_at: '2026-08-14T10:00:00Z',
			updated_at: '2026-08-14T10:00:05Z',
			media_duration_seconds: null,
			analysis: { language: 'he', dialect: null },
			links: {
				self: '/api/v1/transcriptions/job_1',
				artifact: '/api/v1/transcriptions/job_1/artifact',
			},
		};
		const failedEvent = {
			event: 'transcription.failed',
			event_id: 'evt_1',
			job_id: 'job_1',
			status: 'failed',
			created_at: '2026-08-14T10:00:00Z',
			links: { self: 'https://api.example.test/api/v1/transcriptions/job_1', artifact: null },
		};
		const validateEvent = validatorOf('PublicTranscriptionWebhookEvent');
		expect(validatorOf('PublicTranscriptionResponse')(job)).toBe(true);
		expect(validateEvent(failedEvent)).toBe(true);
		expect(validateEvent({ ...failedEvent, status: 'cancelled' })).toBe(false);
		expect(
			validatorOf('PublicTranscriptionListResponse')({
				items: [job],
				total: 1,
				links: { self: '/api/v1/transcriptions?limit=20&cursor=0', next: null, prev: null },
			}),
		).toBe(true);
	});
});

describe('webhook events (spec section 6)', () => {
	const signingHeaders = [
		'X-Service-Event',
		'X-Service-Event-ID',
		'X-Service-Timestamp',
		'X-Service-Signature',
	];

	it('are a transcriptionEvent callback of createTranscription on the request webhook_url', () => {
		const callback = operation('createTranscription').callbacks?.transcriptionEvent;
		const post = callback?.['{$request.body#/webhook_url}']?.post as OperationObject;
		expect(post.requestBody?.content['application/json'].schema).toEqual({
			$ref: '#/components/schemas/PublicTranscriptionWebhookEvent',
		});
		expect(Object.keys(post.responses)).toContain('2XX');
		expect(post.security).toEqual([]);
		const headers = (post.parameters ?? []).map((entry) => deref<ParameterObject>(entry));
		expect(headers.map((header) => [header.name, header.in, header.required])).toEqual(
			signingHeaders.map((name) => [name, 'header', true]),
		);
	});

	it('are listed under webhooks, with webhook.test carrying PublicWebhookTestDelivery', () => {
		expect(Object.keys(document.webhooks).sort()).toEqual([
			'transcription.completed',
			'transcription.failed',
			'webhook.test',
		]);
		const test = document.webhooks['webhook.test'].post as OperationObject;
		expect(test.requestBody?.content['application/json'].schema).toEqual({
			$ref: '#/components/schemas/PublicWebhookTestDelivery',
		});
		const eventHeader = (test.parameters ?? []).map((entry) => deref<ParameterObject>(entry))[0];
		expect(eventHeader.schema).toEqual({ type: 'string', const: 'webhook.test' });
	});

	it('describes the signature as v1= and 64 lowercase hex digits', () => {
		const signature = document.components.parameters.ServiceSignature.schema as JSONSchema;
		const pattern = new RegExp(signature.pattern as string);
		expect(pattern.test(`v1=${'a1'.repeat(32)}`)).toBe(true);
		expect(pattern.test(`v1=${'A1'.repeat(32)}`)).toBe(false);
	});
});
