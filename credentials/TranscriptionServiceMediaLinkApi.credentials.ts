import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import { mediaLinkTargetProblem } from '../src/media/credential-target';

export class TranscriptionServiceMediaLinkApi implements ICredentialType {
	name = 'transcriptionServiceMediaLinkApi';

	displayName = 'Transcription Service Media Link API';

	icon = {
		light: 'file:../icons/transcriptionService.svg',
		dark: 'file:../icons/transcriptionService.dark.svg',
	} as const;

	// Written by the build from package.json (scripts/documentation-links.ts).
	documentationUrl =
		'https://github.com.invalid/OWNER/n8n-nodes-transcription-service/blob/HEAD/docs/nodes.md#media-link-credential';

	properties: INodeProperties[] = [
		{
			displayName: 'Authentication',
			name: 'authType',
			type: 'options',
			options: [
				{
					name: 'Header',
					value: 'header',
					description: 'A header such as Authorization: Bearer …',
				},
				{ name: 'Basic Auth', value: 'basic', description: 'A user name and password' },
			],
			default: 'header',
		},
		{
			displayName: 'Header Name',
			name: 'headerName',
			type: 'string',
			default: 'Authorization',
			displayOptions: { show: { authType: ['header'] } },
		},
		{
			displayName: 'Header Value',
			name: 'headerSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			placeholder: 'Bearer …',
			displayOptions: { show: { authType: ['header'] } },
		},
		{
			displayName: 'User',
			name: 'user',
			type: 'string',
			default: '',
			displayOptions: { show: { authType: ['basic'] } },
		},
		{
			displayName: 'Password',
			name: 'password',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			displayOptions: { show: { authType: ['basic'] } },
		},
		{
			displayName: 'Allowed Hosts',
			name: 'allowedHosts',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'media.example.com, *.cdn.example.com',
			description:
				'The hosts this credential is sent to, separated by commas; *.example.com means any host under example.com. A link to any other host, or a redirect to another origin, gets no credential, so a link from an AI agent or an expression cannot carry the secret elsewhere.',
		},
		{
			displayName: 'Test Link',
			name: 'testUrl',
			type: 'string',
			default: '',
			placeholder: 'https://media.example.com/recordings/sample.mp3',
			description:
				"A link to one file on an allowed host, for the Test button: it asks for the file's first byte with the credential",
		},
	];

	// A function rather than the generic form, so the secret goes only where Allowed Hosts says.
	authenticate = async (
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> => {
		const target = new URL(requestOptions.url, requestOptions.baseURL);
		const problem = mediaLinkTargetProblem(String(credentials.allowedHosts ?? ''), target);
		if (problem !== undefined) throw new Error(problem);
		if (credentials.authType === 'basic') {
			const basic = Buffer.from(
				`${String(credentials.user ?? '')}:${String(credentials.password ?? '')}`,
			).toString('base64');
			return {
				...requestOptions,
				headers: { ...requestOptions.headers, Authorization: `Basic ${basic}` },
			};
		}
		const headerName = String(credentials.headerName ?? '').trim() || 'Authorization';
		return {
			...requestOptions,
			headers: { ...requestOptions.headers, [headerName]: String(credentials.headerSecret ?? '') },
		};
	};

	test: ICredentialTestRequest = {
		request: {
			url: '={{ String($credentials.testUrl).trim() }}',
			method: 'GET',
			headers: { Range: 'bytes=0-0', 'Accept-Encoding': 'identity' },
			// A redirect would carry the secret wherever it points; the node never follows one with it either.
			disableFollowRedirect: true,
		},
	};
}
