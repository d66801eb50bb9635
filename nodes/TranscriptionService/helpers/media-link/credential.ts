// The Media Link credential, as the node reads it: checked against the link before any request, so a link its Allowed
// Hosts do not name fails with that reason instead of a request error.
import type { IExecuteFunctions } from 'n8n-workflow';

import { mediaLinkTargetProblem, redactLink } from '../../../../src/media';
import { operationError } from '../../../shared/errors';

export const MEDIA_LINK_CREDENTIAL_TYPE = 'transcriptionServiceMediaLinkApi';

export async function checkMediaLinkCredential(
	context: IExecuteFunctions,
	link: URL,
	itemIndex: number,
): Promise<void> {
	const credentials = await context.getCredentials(MEDIA_LINK_CREDENTIAL_TYPE, itemIndex);
	const problem = mediaLinkTargetProblem(String(credentials.allowedHosts ?? ''), link);
	if (problem === undefined) return;
	throw operationError(context.getNode(), {
		code: 'media_credential_not_allowed',
		message: `The Media Link credential is not sent to ${redactLink(link)}`,
		description: problem,
		itemIndex,
	});
}
