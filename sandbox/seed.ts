// Fixed keys every sandbox starts with (documented in docs/sandbox.md), so demos, workflows and tests
// can hard-code them. Keys of the same account share its account_id and signing secret.

export type KeyMode = 'live' | 'test';
export type KeyScope = 'full_access' | 'read_only';

export interface SeededKey {
	key: string;
	account_id: string;
	mode: KeyMode;
	scope: KeyScope;
	tier: string;
	api_access: boolean;
	signing_secret: string;
	revoked: boolean;
}

export interface SeededKeys {
	platinum_live: SeededKey;
	platinum_test: SeededKey;
	premium_live: SeededKey;
	read_only_live: SeededKey;
	no_api_access_live: SeededKey;
	revoked_live: SeededKey;
}

const PLATINUM = {
	account_id: 'acct_sandbox_platinum',
	tier: 'platinum',
	api_access: true,
	signing_secret: 'whsec_sandbox_platinum_5f2b8c0e4d7a41c9',
};

export const SEEDED_KEYS: SeededKeys = {
	platinum_live: {
		key: 'svc_sk_live_sandboxPlatinum0000000000001',
		mode: 'live',
		scope: 'full_access',
		revoked: false,
		...PLATINUM,
	},
	platinum_test: {
		key: 'svc_sk_test_sandboxPlatinum0000000000002',
		mode: 'test',
		scope: 'full_access',
		revoked: false,
		...PLATINUM,
	},
	premium_live: {
		key: 'svc_sk_live_sandboxPremium00000000000003',
		account_id: 'acct_sandbox_premium',
		mode: 'live',
		scope: 'full_access',
		tier: 'premium',
		api_access: true,
		signing_secret: 'whsec_sandbox_premium_9a1d3e7b2c6f4805',
		revoked: false,
	},
	read_only_live: {
		key: 'svc_sk_live_sandboxReadOnly0000000000004',
		account_id: 'acct_sandbox_read_only',
		mode: 'live',
		scope: 'read_only',
		tier: 'platinum',
		api_access: true,
		signing_secret: 'whsec_sandbox_read_only_3c8e1f6a0b9d4257',
		revoked: false,
	},
	no_api_access_live: {
		key: 'svc_sk_live_sandboxNoApiAccess0000000005',
		account_id: 'acct_sandbox_no_api_access',
		mode: 'live',
		scope: 'full_access',
		tier: 'basic',
		api_access: false,
		signing_secret: 'whsec_sandbox_no_api_access_7e4a2d9c1f0b6538',
		revoked: false,
	},
	revoked_live: {
		key: 'svc_sk_live_sandboxRevoked00000000000006',
		account_id: 'acct_sandbox_revoked',
		mode: 'live',
		scope: 'full_access',
		tier: 'platinum',
		api_access: true,
		signing_secret: 'whsec_sandbox_revoked_0d6b9f3e8a2c7141',
		revoked: true,
	},
};

/** Starting wallet per tier; an account created through the admin API may set its own. */
export const INITIAL_WALLET_BALANCE: Record<string, number> = { platinum: 1000, premium: 250 };
export const DEFAULT_WALLET_BALANCE = 100;
