// The admin API (/_sandbox/…) and the served contract (OpenAPI JSON/YAML, Arazzo, reference page).

import { parse } from 'yaml';
import { SEEDED_KEYS } from '../../sandbox/seed';
import { api, expectError, uploadMedia, createJob, useSandbox } from '../support/sandbox/client';

const handle = useSandbox({ jobSeconds: 60 });

describe('served documents (1, 9)', () => {
	test('GET /api/v1/openapi.json is OpenAPI 3.1, version v1, with this sandbox as base_url', async () => {
		const response = await api(handle.baseUrl, { path: '/api/v1/openapi.json', key: null });
		expect(response.status).toBe(200);
		expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
		const document = response.json as {
			openapi: string;
			info: { version: string };
			servers: Array<{ variables: { base_url: { default: string } } }>;
		};
		expect(document.openapi).toBe('3.1.0');
		expect(document.info.version).toBe('v1');
		expect(document.servers[0].variables.base_url.default).toBe(handle.baseUrl);
	});

	test('GET /api/v1/openapi.yaml is the same document in YAML', async () => {
		const response = await api(handle.baseUrl, { path: '/api/v1/openapi.yaml', key: null });
		expect(response.headers['content-type']).toBe('application/yaml; charset=utf-8');
		const json = (await api(handle.baseUrl, { path: '/api/v1/openapi.json', key: null })).json;
		expect(parse(response.text)).toEqual(json);
	});

	test('GET /api/v1/workflows/transcribe.arazzo.yaml is an Arazzo document', async () => {
		const response = await api(handle.baseUrl, {
			path: '/api/v1/workflows/transcribe.arazzo.yaml',
			key: null,
		});
		expect(response.status).toBe(200);
		expect(parse(response.text)).toHaveProperty('arazzo');
	});

	test('GET /developers/api-reference is an HTML page with an anchor per error code', async () => {
		const response = await api(handle.baseUrl, { path: '/developers/api-reference', key: null });
		expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
		expect(response.text).toContain('id="upload_size_mismatch"');
	});
});

describe('POST /_sandbox/keys', () => {
	test('a fresh account with the requested plan', async () => {
		const created = await handle.admin.createKey({
			mode: 'test',
			scope: 'read_only',
			tier: 'premium',
		});
		expect(created.key.startsWith('svc_sk_test_')).toBe(true);
		expect(created.signing_secret).toMatch(/^whsec_/);
		const account = await api(handle.baseUrl, { path: '/api/v1/account', key: created.key });
		expect(account.json).toMatchObject({
			account_id: created.account_id,
			effective_tier: 'premium',
			wallet_balance: 250,
		});
	});

	test('a key for an existing account shares its id and signing secret', async () => {
		const created = await handle.admin.createKey({
			account_id: SEEDED_KEYS.platinum_live.account_id,
			mode: 'test',
		});
		expect(created).toMatchObject({
			account_id: SEEDED_KEYS.platinum_live.account_id,
			signing_secret: SEEDED_KEYS.platinum_live.signing_secret,
		});
	});

	test('an unknown field is 422 validation_error', async () => {
		await expect(handle.admin.createKey({ colour: 'red' } as never)).rejects.toMatchObject({
			status: 422,
		});
	});
});

describe('POST /_sandbox/keys/{key}/revoke and POST /_sandbox/accounts/{account_id}', () => {
	test('an unknown key is 404 not_found', async () => {
		await expect(handle.admin.revokeKey('svc_sk_live_unknown')).rejects.toMatchObject({
			status: 404,
		});
	});

	test('an account update changes plan, balance and signing secret', async () => {
		const created = await handle.admin.createKey();
		const updated = await handle.admin.updateAccount(created.account_id, {
			wallet_balance: 5,
			signing_secret: 'whsec_rotated',
		});
		expect(updated).toMatchObject({ wallet_balance: 5, signing_secret: 'whsec_rotated' });
	});
});

describe('POST /_sandbox/clock', () => {
	test('moves the sandbox clock forward', async () => {
		const before = await handle.admin.clock();
		const after = await handle.admin.advanceClock(3600);
		expect(after.now_seconds - before.now_seconds).toBeGreaterThanOrEqual(3600);
		expect(Date.parse(after.now) - Date.parse(before.now)).toBeGreaterThanOrEqual(3600 * 1000);
	});

	test('a negative amount is 422', async () => {
		await expect(handle.admin.advanceClock(-1)).rejects.toMatchObject({ status: 422 });
	});
});

describe('jobs, artifacts and records', () => {
	test('an unknown job is 404 for fail and artifact deletion', async () => {
		await expect(handle.admin.failJob('job_nope')).rejects.toMatchObject({ status: 404 });
		await expect(handle.admin.deleteArtifact('job_nope')).rejects.toMatchObject({ status: 404 });
	});

	test('records list an account’s uploads and jobs with counts', async () => {
		const { key, account_id } = await handle.admin.createKey();
		const uploadId = await uploadMedia(handle.baseUrl, key, { filename: 'record.wav' });
		const job = await createJob(handle.baseUrl, key, {
			upload_id: uploadId,
			user_prompt: 'Kubernetes',
		});
		const records = await handle.admin.records(account_id);
		expect(records.counts).toEqual({ uploads: 1, jobs: 1 });
		expect(records.uploads[0]).toMatchObject({
			upload_id: uploadId,
			filename: 'record.wav',
			state: 'consumed',
			job_id: job.job_id,
		});
		expect(records.jobs[0]).toMatchObject({
			job_id: job.job_id,
			account_id,
			mode: 'live',
			upload_id: uploadId,
			request: {
				user_prompt: 'Kubernetes',
				model_tier: 'standard',
				output_format: 'srt',
				translate_to_hebrew: false,
			},
		});
	});
});

describe('admin errors use the envelope', () => {
	test('an unknown admin route is 404 not_found', async () => {
		expectError(
			await api(handle.baseUrl, { path: '/_sandbox/nothing', key: null }),
			404,
			'not_found',
		);
	});
});
