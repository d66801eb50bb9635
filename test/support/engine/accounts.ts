// A fresh account per test on an engine sandbox, so the account's records hold exactly what the test's run created.
import type { EngineSandbox } from './engine-sandbox';
import type { TestCredentials } from './harness';

export interface FreshAccount {
	accountId: string;
	/** Pointed where the nodes send their requests, with the account's signing secret. */
	credentials: TestCredentials;
	signingSecret: string;
}

/** Makes fresh platinum accounts on `env`'s sandbox, each with one key of `mode` (test unless told). */
export function freshAccounts(
	env: EngineSandbox,
): (mode?: 'live' | 'test') => Promise<FreshAccount> {
	return async (mode = 'test') => {
		const key = await env.admin.createKey({ mode, tier: 'platinum' });
		if (!key.signing_secret) throw new Error('the sandbox gave the account no signing secret');
		const credentials: TestCredentials = {
			...env.credentials(key.key),
			signingSecret: key.signing_secret,
		};
		return { accountId: key.account_id, credentials, signingSecret: key.signing_secret };
	};
}
