// What the credential says about where the service is and whose account this is.
import { createHash } from 'crypto';
import { NodeOperationError } from 'n8n-workflow';

import { apiKeyMode, DEFAULT_PATH_PREFIX, INVALID_API_KEY_PREFIX_MESSAGE } from '../../../src/api';
import { baseUrlProblem, type BaseUrlProblem } from '../../../src/client';
import { CREDENTIAL_TYPE } from '../credentials';
import type { RequestContext } from './context';

export interface ServiceSettings {
	/** Without a trailing slash. */
	baseUrl: string;
	pathPrefix: string;
	/** One account of one service, without the key itself: what executions of that account share (the pacer). */
	accountKey: string;
}

const BASE_URL_FIXES: Record<BaseUrlProblem['kind'], (baseUrl: string) => string> = {
	misleading_text: () =>
		"A URL parser would read it as another address than the one written, so the API Key could go to another host. Type the service's address again, e.g. https://api.example.com.",
	not_http: (baseUrl) => `Got "${baseUrl}". For the local sandbox use http://127.0.0.1:4010.`,
	credentials_in_url: () =>
		'The service takes the API Key only, and a user name or password in the Base URL would be sent in its place. Remove the "user:password@" part.',
	plain_http: (baseUrl) =>
		`Got "${baseUrl}": over plain http:// the API Key would cross the network unencrypted, readable by anyone on the way. Use the service's https:// address; http:// is for a service on this machine (the sandbox: http://127.0.0.1:4010).`,
};

export async function readServiceSettings(context: RequestContext): Promise<ServiceSettings> {
	const credentials = await context.getCredentials(CREDENTIAL_TYPE);
	const baseUrl = String(credentials.baseUrl ?? '')
		.trim()
		.replace(/\/+$/, '');
	const problem = baseUrlProblem(baseUrl);
	if (problem !== undefined) {
		throw new NodeOperationError(context.getNode(), problem.message, {
			description: BASE_URL_FIXES[problem.kind](baseUrl),
		});
	}
	const apiKey = String(credentials.apiKey ?? '').trim();
	// Checked here too (the credential's authenticate refuses it as well) so the message is not lost in a request error.
	if (apiKeyMode(apiKey) === undefined) {
		throw new NodeOperationError(
			context.getNode(),
			"The credential's API Key has no known prefix",
			{
				description: INVALID_API_KEY_PREFIX_MESSAGE,
			},
		);
	}
	const pathPrefix =
		credentials.pathPrefix === undefined ? DEFAULT_PATH_PREFIX : String(credentials.pathPrefix);
	const fingerprint = createHash('sha256').update(apiKey).digest('hex').slice(0, 16);
	return { baseUrl, pathPrefix, accountKey: `${baseUrl}|${fingerprint}` };
}
