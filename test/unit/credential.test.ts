// The credential on its own: where its `authenticate` lets the key go, and what its test request asks of n8n. The
// Test button's messages as n8n shows them are checked through n8n-core (engine/credential-test-button.test.ts) and in a real
// n8n (e2e/credential-test.test.ts).
import type { IAuthenticateRuleResponseSuccessBody, IHttpRequestOptions } from 'n8n-workflow';

import { TranscriptionServiceApi } from '../../credentials/TranscriptionServiceApi.credentials';
import { ERROR_CODES } from '../../src/service';

const credential = new TranscriptionServiceApi();
const KEY = 'svc_sk_live_credentialUnit00000001';

async function authenticate(request: IHttpRequestOptions): Promise<IHttpRequestOptions> {
	return await credential.authenticate({ apiKey: ` ${KEY} ` }, request);
}

describe('authenticate: the key goes only where it cannot be read on the way', () => {
	it.each([
		{ url: 'https://api.transcription.example/api/v1/account' },
		{ url: 'http://127.0.0.1:4010/api/v1/account' },
		{ baseURL: 'http://localhost:4010', url: '/api/v1/account' },
	])('%j gets Authorization: Bearer', async (request) => {
		const authenticated = await authenticate({ ...request, headers: { Accept: 'x' } });
		expect(authenticated.headers).toEqual({ Accept: 'x', Authorization: `Bearer ${KEY}` });
	});

	it.each([
		[
			{ url: 'http://api.transcription.example/api/v1/account' },
			'http://api.transcription.example/api/v1/account',
		],
		[{ baseURL: 'http://10.1.2.3:4010', url: '/api/v1/account' }, 'http://10.1.2.3:4010'],
	])('%j is refused, naming the Base URL', async (request, shown) => {
		await expect(authenticate(request)).rejects.toThrow(
			`The credential's Base URL must start with https:// (plain http:// is accepted only for this machine: 127.0.0.1, [::1] or localhost). Got "${shown}".`,
		);
	});

	it('a Base URL that reads as another host than the one written is refused (issue 30: accepted before)', async () => {
		await expect(
			authenticate({ url: 'https://evil.example\\@api.transcription.example/api/v1/account' }),
		).rejects.toThrow(/^The credential's Base URL contains a backslash/);
	});

	it('a key without a known prefix is refused before anything else', async () => {
		await expect(
			credential.authenticate({ apiKey: 'sk_0001' }, { url: 'https://x.example' }),
		).rejects.toThrow('The API Key must start with "svc_sk_live_"');
	});
});

describe("the credential's test request", () => {
	const { request, rules } = credential.test;

	it('follows no redirect and hands every answer to the rules', () => {
		expect(request).toMatchObject({
			method: 'GET',
			disableFollowRedirect: true,
			ignoreHttpStatusErrors: true,
		});
	});

	it("has a message for every code the service refuses a key with (spec 7's 401 and 403 codes, and 429)", () => {
		const ruled = (rules as IAuthenticateRuleResponseSuccessBody[])
			.filter((rule) => rule.properties.key === 'error.code')
			.map((rule) => rule.properties.value as string);
		const refusals = Object.entries(ERROR_CODES)
			.filter(
				([code, status]) =>
					status === 401 || code === 'plan_downgraded_api_revoked' || status === 429,
			)
			.map(([code]) => code);
		expect(ruled.sort()).toEqual(refusals.sort());
		for (const rule of rules as IAuthenticateRuleResponseSuccessBody[]) {
			if (rule.properties.key === 'error.code')
				expect(rule.properties.message).toContain(`(${String(rule.properties.value)})`);
		}
	});

	it('ends with the answer that is no account at all', () => {
		const last = (rules as IAuthenticateRuleResponseSuccessBody[]).at(-1);
		expect(last?.properties).toMatchObject({ key: 'account_id', value: undefined });
	});
});

describe('Previous Signing Secret', () => {
	it('says that it does not expire and when to clear it', () => {
		const field = credential.properties.find(
			(property) => property.name === 'previousSigningSecret',
		);
		expect(field?.description).toMatch(/It does not expire/);
		expect(field?.description).toMatch(/at once if the old secret leaked/);
	});
});
