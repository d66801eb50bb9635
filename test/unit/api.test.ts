import {
	apiKeyMode,
	buildPath,
	hasEvent,
	isCompletedStatus,
	isErrorEnvelope,
	isTerminalStatus,
	joinPrefix,
	OPERATION_IDS,
	OPERATIONS,
	resolveLink,
} from '../../src/api';
import { ERROR_CODES } from '../../src/service';
import { loadOpenApiDocument } from '../../openapi';
import { OPEN_ERROR_CODES } from '../../sandbox/errors';

/**
 * Every error code the OpenAPI document's error examples answer with, and the HTTP statuses of the responses that
 * show it: a source written apart from src/, so the codes are checked against what a client is shown.
 */
function exemplifiedErrorCodes(): Record<string, number[]> {
	const document = loadOpenApiDocument();
	const resolve = (value: unknown): Record<string, unknown> => {
		let current = value as Record<string, unknown>;
		while (typeof current.$ref === 'string')
			current = current.$ref
				.slice(2)
				.split('/')
				.reduce<Record<string, unknown>>(
					(node, segment) => node[segment] as Record<string, unknown>,
					document as unknown as Record<string, unknown>,
				);
		return current;
	};
	const statuses: Record<string, Set<number>> = {};
	for (const pathItem of Object.values(document.paths))
		for (const operation of Object.values(pathItem))
			for (const [status, answer] of Object.entries(
				(operation as { responses?: Record<string, unknown> }).responses ?? {},
			)) {
				if (Number(status) < 400) continue;
				const content = resolve(answer).content as
					Record<string, { examples?: Record<string, unknown> }> | undefined;
				for (const example of Object.values(content?.['application/json']?.examples ?? {})) {
					const code = (resolve(example).value as { error: { code: string } }).error.code;
					(statuses[code] ??= new Set()).add(Number(status));
				}
			}
	return Object.fromEntries(
		Object.entries(statuses).map(([code, seen]) => [code, [...seen].sort((a, b) => a - b)]),
	);
}

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

	it('completed is the one status with artifacts, in any case', () => {
		expect(
			['completed', 'Completed', 'failed', 'cancelled', 'processing'].map(isCompletedStatus),
		).toEqual([true, true, false, false, false]);
	});

	it('the statuses with an event are those the event types name (spec 2.5); a cancelled job sends none', () => {
		expect(['completed', 'FAILED', 'cancelled', 'processing'].map(hasEvent)).toEqual([
			true,
			true,
			false,
			false,
		]);
	});
});

describe('error codes (spec section 7)', () => {
	it("maps every code to the HTTP status the OpenAPI document's error examples answer it with; the examples show no other code but those the spec leaves open (the sandbox's)", () => {
		const exemplified = exemplifiedErrorCodes();
		expect(
			Object.fromEntries(Object.keys(ERROR_CODES).map((code) => [code, exemplified[code]])),
		).toEqual(
			Object.fromEntries(Object.entries(ERROR_CODES).map(([code, status]) => [code, [status]])),
		);
		const known = new Set([...Object.keys(ERROR_CODES), ...Object.keys(OPEN_ERROR_CODES)]);
		expect(Object.keys(exemplified).filter((code) => !known.has(code))).toEqual([]);
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
