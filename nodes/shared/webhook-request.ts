// What a webhook() needs from n8n's request before deciding anything: the body's exact bytes and the secrets.
import type { IWebhookFunctions } from 'n8n-workflow';

import { CREDENTIAL_TYPE } from './credentials';
import {
	declaredLengthTooLarge,
	MAX_BODY_BYTES,
	reject,
	type Rejection,
} from './delivery-verification';

type WebhookRequest = ReturnType<IWebhookFunctions['getRequestObject']>;

export type RawBodyResult = { ok: true; rawBody: Uint8Array } | { ok: false; rejection: Rejection };

/** The bytes as received (n8n keeps them in `rawBody`, reading them on demand); never a re-serialisation. */
export async function readRawBody(request: WebhookRequest): Promise<RawBodyResult> {
	if (declaredLengthTooLarge(request.headers)) {
		return {
			ok: false,
			rejection: reject(413, 'payload_too_large', `Content-Length exceeds ${MAX_BODY_BYTES} bytes`),
		};
	}
	if (!request.rawBody) {
		try {
			await request.readRawBody();
		} catch (error) {
			// n8n's reader enforces its own payload limit and fails on aborted uploads.
			const rejection =
				(error as { status?: unknown }).status === 413
					? reject(413, 'payload_too_large', (error as Error).message)
					: reject(400, 'unreadable_body', (error as Error).message);
			return { ok: false, rejection };
		}
	}
	return { ok: true, rawBody: request.rawBody ?? new Uint8Array(0) };
}

/** Signing Secret, then Previous Signing Secret (blank when unset; verification skips blanks and trims). */
export async function signingSecrets(context: IWebhookFunctions): Promise<string[]> {
	const credentials = await context.getCredentials(CREDENTIAL_TYPE);
	return [credentials.signingSecret, credentials.previousSigningSecret].map((secret) =>
		typeof secret === 'string' ? secret : '',
	);
}
