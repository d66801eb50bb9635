// The delivery headers of spec section 6.

/** The names as a sender writes them; receivers look them up case-insensitively. */
export const WEBHOOK_HEADER_NAMES = {
	event: 'X-Service-Event',
	eventId: 'X-Service-Event-ID',
	timestamp: 'X-Service-Timestamp',
	signature: 'X-Service-Signature',
} as const;

export type WebhookHeaderKey = keyof typeof WEBHOOK_HEADER_NAMES;

export type IncomingHeaders = Record<string, string | string[] | undefined>;

/**
 * The trimmed value of one header whatever the case of its name; repeated values are joined with ", " as Node
 * joins them. Absent or blank → undefined, so an empty header counts as a missing one.
 */
export function readWebhookHeader(
	headers: IncomingHeaders,
	key: WebhookHeaderKey,
): string | undefined {
	return readHeader(headers, WEBHOOK_HEADER_NAMES[key]);
}

/** readWebhookHeader for any header name. */
export function readHeader(headers: IncomingHeaders, name: string): string | undefined {
	const wanted = name.toLowerCase();
	const values: string[] = [];
	for (const [headerName, value] of Object.entries(headers)) {
		if (headerName.toLowerCase() !== wanted || value === undefined) continue;
		values.push(...(Array.isArray(value) ? value : [value]));
	}
	const joined = values
		.map((value) => value.trim())
		.filter((value) => value !== '')
		.join(', ');
	return joined === '' ? undefined : joined;
}
