import type {
	IAuthenticateRuleResponseSuccessBody,
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import { apiKeyMode, INVALID_API_KEY_PREFIX_MESSAGE } from '../src/api/keys';
import { baseUrlProblem } from '../src/client/base-url';

/**
 * What the Test button says for each answer of GET /account that is not an account (n8n checks them in order, on
 * the answer's JSON: the credential test's rules can only compare a field with a value).
 */
const TEST_ANSWERS: Array<[key: string, value: unknown, message: string]> = [
	[
		'error.code',
		'invalid_api_key',
		'The service refused the API Key (invalid_api_key): it does not know this key, or the key was revoked. Copy a current key from the dashboard.',
	],
	[
		'error.code',
		'invalid_api_key_mode',
		"The service refused the API Key (invalid_api_key_mode): the key's prefix does not match its mode. Copy the key whole, its svc_sk_live_ or svc_sk_test_ prefix included.",
	],
	[
		'error.code',
		'invalid_api_key_user',
		'The service refused the API Key (invalid_api_key_user): the key belongs to a user that no longer exists. Create a new key in the dashboard.',
	],
	[
		'error.code',
		'missing_api_key',
		'The service got no API Key (missing_api_key): something between n8n and the service (a proxy) removes the Authorization header.',
	],
	[
		'error.code',
		'plan_downgraded_api_revoked',
		"The key is valid, but the account has no API access (plan_downgraded_api_revoked): the account's plan no longer includes the API (premium or platinum needed).",
	],
	[
		'error.code',
		'rate_limit_exceeded',
		"The account's read limit for this minute is used up (rate_limit_exceeded), so the key could not be checked. Test again in a minute.",
	],
	[
		'api_access',
		false,
		'The key is valid, but the account has no API access (api_access: false): the API needs a premium or platinum plan.',
	],
	[
		'account_id',
		undefined,
		"No account came back from GET {Path Prefix}/account: the answer was a redirect, a page that is not the service's, or an error the test cannot name. Check the Base URL and Path Prefix; the node's Account → Get shows the service's whole answer.",
	],
];

export class TranscriptionServiceApi implements ICredentialType {
	name = 'transcriptionServiceApi';

	displayName = 'Transcription Service API';

	icon = {
		light: 'file:../icons/transcriptionService.svg',
		dark: 'file:../icons/transcriptionService.dark.svg',
	} as const;

	// Written by the build from package.json (scripts/documentation-links.ts).
	documentationUrl =
		'https://github.com.invalid/OWNER/n8n-nodes-transcription-service/blob/HEAD/docs/nodes.md#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			required: true,
			default: '',
			placeholder: 'svc_sk_live_…',
			description:
				'Key from the dashboard. Keys starting with svc_sk_live_ run real jobs; keys starting with svc_sk_test_ complete at once with a mock transcript.',
		},
		{
			displayName: 'Signing Secret',
			name: 'signingSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description:
				'Account signing secret (shown once in the dashboard). The Transcription Service Trigger needs it to verify webhook events.',
		},
		{
			displayName: 'Previous Signing Secret',
			name: 'previousSigningSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description:
				'While rotating the signing secret, put the old one here so events signed with it are still accepted. It does not expire: events signed with it are accepted for as long as it is set, so clear it once rotation is done, and at once if the old secret leaked.',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'http://127.0.0.1:4010',
			description:
				'Address of the service, without the path prefix. It must start with https:// (the API Key is sent with every request); http:// is accepted only on this machine: for the local sandbox (npm run sandbox) use http://127.0.0.1:4010.',
		},
		{
			displayName: 'Path Prefix',
			name: 'pathPrefix',
			type: 'string',
			default: '/api/v1',
			description:
				'Prepended to every API path. Change it only if your deployment uses a custom prefix.',
		},
	];

	// A function rather than the generic header form so a key without a known prefix is refused with a clear message.
	authenticate = async (
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> => {
		const apiKey = String(credentials.apiKey ?? '').trim();
		if (apiKeyMode(apiKey) === undefined) {
			throw new Error(INVALID_API_KEY_PREFIX_MESSAGE);
		}
		// The key goes nowhere it could be read on the way: the credential's test sends it here too.
		const target = requestOptions.baseURL ?? requestOptions.url;
		const problem = baseUrlProblem(target);
		if (problem !== undefined) throw new Error(`${problem.message}. Got "${target}".`);
		return {
			...requestOptions,
			headers: { ...requestOptions.headers, Authorization: `Bearer ${apiKey}` },
		};
	};

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{ String($credentials.baseUrl).trim().replace(/\\/+$/, "") }}',
			url: '={{ String($credentials.pathPrefix ?? "").trim().replace(/^\\/*/, "/").replace(/\\/+$/, "") + "/account" }}',
			method: 'GET',
			// A redirect would carry the key to wherever it points; the nodes never follow one either.
			disableFollowRedirect: true,
			// Every answer reaches the rules, which say what the service said instead of n8n's "Authorization failed".
			ignoreHttpStatusErrors: true,
		},
		rules: TEST_ANSWERS.map(([key, value, message]): IAuthenticateRuleResponseSuccessBody => ({
			type: 'responseSuccessBody',
			properties: { key, value, message },
		})),
	};
}
