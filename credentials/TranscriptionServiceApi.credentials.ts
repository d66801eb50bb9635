import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import { apiKeyMode, INVALID_API_KEY_PREFIX_MESSAGE } from '../src/api/keys';

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
				'While rotating the signing secret, put the old one here so events signed with it are still accepted. Clear it once rotation is done.',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'http://127.0.0.1:4010',
			description:
				'Address of the service, without the path prefix. For the local sandbox (npm run sandbox) use http://127.0.0.1:4010.',
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
		return {
			...requestOptions,
			headers: { ...requestOptions.headers, Authorization: `Bearer ${apiKey}` },
		};
	};

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{ String($credentials.baseUrl).replace(/\\/+$/, "") }}',
			url: '={{ String($credentials.pathPrefix ?? "").trim().replace(/^\\/*/, "/").replace(/\\/+$/, "") + "/account" }}',
			method: 'GET',
		},
	};
}
