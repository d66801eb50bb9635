// Spec section 5: the key's mode is carried by its prefix.

export const API_KEY_PREFIXES = { live: 'svc_sk_live_', test: 'svc_sk_test_' } as const;
export type ApiKeyMode = keyof typeof API_KEY_PREFIXES;

export function apiKeyMode(key: string): ApiKeyMode | undefined {
	const trimmed = key.trim();
	if (trimmed.startsWith(API_KEY_PREFIXES.live)) return 'live';
	if (trimmed.startsWith(API_KEY_PREFIXES.test)) return 'test';
	return undefined;
}

export const INVALID_API_KEY_PREFIX_MESSAGE =
	`The API Key must start with "${API_KEY_PREFIXES.live}" (live mode) or "${API_KEY_PREFIXES.test}" (test mode). ` +
	'Copy the whole key from the dashboard.';
