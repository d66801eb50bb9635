// Activation checks. The API has no webhook registration, so activating only records the URL; these checks
// make a misconfiguration fail loudly at activation instead of silently at the first event.

import type { IHookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { PublicWebhookTestResponse } from '../../src/api';
import { CREDENTIAL_TYPE } from '../shared/credentials';
import { TranscriptionServiceClient } from '../shared/transport';

/** Without a secret every delivery would be refused (401); say so now rather than at the first event. */
export async function assertSigningSecret(context: IHookFunctions): Promise<void> {
	const credentials = await context.getCredentials(CREDENTIAL_TYPE);
	if (String(credentials.signingSecret ?? '').trim() !== '') return;
	throw new NodeOperationError(context.getNode(), 'The credential has no Signing Secret', {
		description:
			'The trigger verifies every event with the account signing secret and refuses all events without it. Copy the signing secret from the dashboard into the Transcription Service API credential.',
	});
}

/** POST /webhooks/test to the node's own URL; activation fails with the service's (sanitized) reason. */
export async function requestTestDelivery(
	context: IHookFunctions,
	webhookUrl: string,
): Promise<void> {
	const client = new TranscriptionServiceClient(context);
	const response = await client.request<PublicWebhookTestResponse>({
		operation: 'testWebhook',
		body: { webhook_url: webhookUrl },
	});
	const result = response.body;
	if (result.ok && result.delivered) return;
	const reason =
		result.error ??
		(result.status_code === null
			? 'no reason given'
			: `the URL answered HTTP ${result.status_code}`);
	throw new NodeOperationError(
		context.getNode(),
		`The service could not deliver a test event to ${webhookUrl}: ${reason}`,
		{
			description:
				result.status_code === 401
					? "This node refused the test event's signature: check that the credential's Signing Secret is the one in the dashboard."
					: 'The Production URL must be reachable from the internet over HTTPS on port 443, without redirects.',
		},
	);
}
