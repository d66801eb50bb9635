// requestSchemas and componentSchema: what the sandbox validates requests with, compiled by Ajv 2020 in strict mode
// and tried on the bodies, queries and parameters the spec allows and refuses.

import { componentSchema, requestSchemas } from '../../openapi';
import type { JSONSchema } from '../../openapi';
import { OPERATION_IDS } from '../../src/api';
import { document, makeAjv } from '../support/fixtures/openapi-document';

describe('requestSchemas and componentSchema — usable by Ajv 2020 in strict mode', () => {
	// Which parts of a request each operation has (spec section 4); each present part must compile.
	const REQUEST_PARTS: Record<(typeof OPERATION_IDS)[number], string[]> = {
		getAccount: [],
		createUpload: ['body', 'headers'],
		uploadBinary: ['params'],
		createTranscription: ['body', 'headers'],
		listTranscriptions: ['query'],
		getTranscription: ['headers', 'params'],
		getTranscriptionArtifact: ['query', 'headers', 'params'],
		getTranscriptionArtifactByExtension: ['query', 'headers', 'params'],
		testWebhook: ['body'],
	};

	it.each(OPERATION_IDS)('%s has exactly its request parts, and each compiles', (operationId) => {
		const ajv = makeAjv({ coerceTypes: true, useDefaults: true });
		const schemas = requestSchemas(operationId);
		const parts = (['body', 'query', 'headers', 'params'] as const).filter(
			(part) => schemas[part] !== undefined,
		);
		expect(parts).toEqual(REQUEST_PARTS[operationId]);
		for (const part of parts) {
			expect(typeof ajv.compile(schemas[part] as JSONSchema)).toBe('function');
		}
	});

	it.each(Object.keys(document.components.schemas))('%s compiles', (name) => {
		expect(typeof makeAjv().compile(componentSchema(name))).toBe('function');
	});
});

describe('requestSchemas — createTranscription body (spec 2.3)', () => {
	const validate = makeAjv().compile(requestSchemas('createTranscription').body as JSONSchema);

	it('accepts a minimal body', () => {
		expect(validate({ upload_id: 'upl_1' })).toBe(true);
	});

	it('accepts every field, nullable ones as null', () => {
		expect(
			validate({
				upload_id: 'upl_1',
				translate_to_hebrew: true,
				model_tier: null,
				user_prompt: null,
				output_format: 'plain_text',
				webhook_url: null,
			}),
		).toBe(true);
	});

	it.each([
		['an unknown property', { upload_id: 'upl_1', language: 'he' }],
		['a missing upload_id', {}],
		['a model_tier outside the enum', { upload_id: 'upl_1', model_tier: 'turbo' }],
		['an output_format outside srt/plain_text', { upload_id: 'upl_1', output_format: 'pdf' }],
		['a non-boolean translate_to_hebrew', { upload_id: 'upl_1', translate_to_hebrew: 'yes' }],
	])('rejects %s', (_case, body) => {
		expect(validate(body)).toBe(false);
	});

	it('leaves webhook_url format to the handler (400 invalid_webhook_url, not 422)', () => {
		expect(validate({ upload_id: 'upl_1', webhook_url: 'not a url' })).toBe(true);
	});
});

describe('requestSchemas — createUpload (spec 2.2, 4.2)', () => {
	const schemas = requestSchemas('createUpload');
	const validateBody = makeAjv().compile(schemas.body as JSONSchema);
	const validateHeaders = makeAjv().compile(schemas.headers as JSONSchema);

	it('accepts size_bytes 1 and rejects 0, negative and fractional sizes', () => {
		const body = { filename: 'a.mp3', content_type: 'audio/mpeg' };
		expect(validateBody({ ...body, size_bytes: 1 })).toBe(true);
		expect(validateBody({ ...body, size_bytes: 0 })).toBe(false);
		expect(validateBody({ ...body, size_bytes: -5 })).toBe(false);
		expect(validateBody({ ...body, size_bytes: 1.5 })).toBe(false);
	});

	it('bounds the Idempotency-Key (lower-case header name) to 1–200 characters', () => {
		expect(validateHeaders({})).toBe(true);
		expect(validateHeaders({ 'idempotency-key': 'k'.repeat(200) })).toBe(true);
		expect(validateHeaders({ 'idempotency-key': '' })).toBe(false);
		expect(validateHeaders({ 'idempotency-key': 'k'.repeat(201) })).toBe(false);
	});

	it('describes uploadBinary without a JSON body schema and with its path parameter', () => {
		expect(requestSchemas('uploadBinary')).toEqual({
			params: {
				type: 'object',
				properties: { upload_id: { type: 'string', minLength: 1 } },
				required: ['upload_id'],
			},
		});
	});
});

describe('requestSchemas — listTranscriptions query (spec 4.5)', () => {
	const query = requestSchemas('listTranscriptions').query as JSONSchema;
	const validate = makeAjv({ coerceTypes: true, useDefaults: true }).compile(query);

	it.each([
		['limit 0', { limit: '0' }],
		['limit 101', { limit: '101' }],
		['cursor -1', { cursor: '-1' }],
		['a non-integer limit', { limit: 'ten' }],
	])('rejects %s', (_case, input) => {
		expect(validate(input)).toBe(false);
	});

	it('accepts limit 1 and 100 and cursor 0', () => {
		expect(validate({ limit: '1', cursor: '0' })).toBe(true);
		expect(validate({ limit: '100' })).toBe(true);
	});

	it('defaults limit to 20 and cursor to 0', () => {
		const input: Record<string, unknown> = {};
		expect(validate(input)).toBe(true);
		expect(input).toEqual({ limit: 20, cursor: 0 });
	});

	it('takes any status string (the list is open)', () => {
		expect(validate({ status: 'archived' })).toBe(true);
	});
});

describe('requestSchemas — artifact parameters (spec 4.7, 4.8)', () => {
	it('accepts the four formats and the plain_text alias in the format query parameter', () => {
		const validate = makeAjv().compile(
			requestSchemas('getTranscriptionArtifact').query as JSONSchema,
		);
		for (const format of ['srt', 'txt', 'pdf', 'docx', 'plain_text'])
			expect(validate({ format })).toBe(true);
		expect(validate({ format: 'mp3' })).toBe(false);
	});

	it('requires path_format among srt, txt, pdf, docx', () => {
		const validate = makeAjv().compile(
			requestSchemas('getTranscriptionArtifactByExtension').params as JSONSchema,
		);
		expect(validate({ job_id: 'job_1', path_format: 'docx' })).toBe(true);
		expect(validate({ job_id: 'job_1', path_format: 'plain_text' })).toBe(false);
		expect(validate({ job_id: 'job_1' })).toBe(false);
	});

	it('maps invalid format values to 400 unsupported_artifact_format', () => {
		expect(requestSchemas('getTranscriptionArtifactByExtension').invalidValueCodes).toEqual({
			query: { format: 'unsupported_artifact_format' },
			params: { path_format: 'unsupported_artifact_format' },
		});
	});

	it('hands out copies callers may mutate', () => {
		const first = requestSchemas('getTranscription');
		(first.params as JSONSchema).required = [];
		expect(requestSchemas('getTranscription').params?.required).toEqual(['job_id']);
	});
});
