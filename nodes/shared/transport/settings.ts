// What the credential says about where the service is and whose account this is.
import { createHash } from 'crypto';
import { NodeOperationError } from 'n8n-workflow';

import { apiKeyMode, DEFAULT_PATH_PREFIX, INVALID_API_KEY_PREFIX_MESSAGE } from '../../../src/api';
import { CREDENTIAL_TYPE } from '../credentials';
import type { RequestContext } from './context';

export interface ServiceSettings {
	/** Without a trailing slash. */
	baseUrl: string;
	pathPrefix: string;
	/** One account of one service, without the key itself: what executions of that account share (the pacer). */
	accountKey: string;
}

export async function readServiceSettings(context: RequestContext): Promise<ServiceSettings> {
	const credentials = await context.getCredentials(CREDENTIAL_TYPE);
	const baseUrl = String(credentials.baseUrl ?? '')
		.trim()
		.replace(/\/+$/, '');
	if (!/^https?:\/\//i.test(baseUrl)) {
		throw new NodeOperationError(
			context.getNode(),
			"The credential's Base URL must start with http:// or https://",
			{ description: `Got "${baseUrl}". For the local sandbox use http://127.0.0.1:4010.` },
		);
	}
	// n8n's HTTP client would send "user:password@" as Basic authentication in place of the key (every request 401).
	if (/^https?:\/\/[^/?#]*@/i.test(baseUrl)) {
		throw new NodeOperationError(
			context.getNode(),
			"The credential's Base URL must not contain a user name or password",
			{
				description:
					'The service takes the API Key only, and a user name or password in the Base URL would be sent in its place. Remove the "user:password@" part.',
			},
		);
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
