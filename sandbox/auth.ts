// Section 5 and the 401/403 rows of section 7, checked in the order a real gateway would:
// credential syntax, key lookup, prefix ⇄ mode, revocation, owner account, plan.

import type { OperationId } from '../src/api';
import { API_KEY_PREFIXES, apiKeyMode, OPERATIONS } from '../src/api';
import { ApiError } from './errors';
import type { Account, ApiKeyRecord, Store } from './store';
import { API_TIERS } from './store';
import type { KeyMode } from './seed';

export interface AuthContext {
	key: ApiKeyRecord;
	account: Account;
	mode: KeyMode;
}

export function authenticate(store: Store, authorization: string | undefined): AuthContext {
	const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '');
	if (!match) {
		throw ApiError.of('missing_api_key', 'Send the API key as "Authorization: Bearer <API_KEY>".');
	}
	const token = match[1];
	const presentedMode = apiKeyMode(token);
	const key = presentedMode
		? store.findKeyBySecret(token.slice(API_KEY_PREFIXES[presentedMode].length))
		: undefined;
	if (!presentedMode || !key) {
		throw ApiError.of('invalid_api_key', 'The API key is not valid.');
	}
	if (key.mode !== presentedMode) {
		throw ApiError.of(
			'invalid_api_key_mode',
			`The key is a ${key.mode} key but was sent with the ${presentedMode} prefix "${API_KEY_PREFIXES[presentedMode]}".`,
		);
	}
	if (key.revoked) {
		throw ApiError.of('invalid_api_key', 'The API key has been revoked.');
	}
	const account = store.accounts.get(key.account_id);
	if (!account) {
		throw ApiError.of(
			'invalid_api_key_user',
			'The API key belongs to an account that no longer exists.',
		);
	}
	if (!account.api_access || !API_TIERS.has(account.tier)) {
		throw ApiError.of(
			'plan_downgraded_api_revoked',
			'The account plan no longer includes API access (premium or platinum required).',
			{ effective_tier: account.tier },
		);
	}
	return { key, account, mode: key.mode };
}

/**
 * Every operation that changes state needs full_access: the spec names POST /uploads and POST /transcriptions;
 * the sandbox treats the PUT of the bytes and POST /webhooks/test (it sends traffic) as writes too.
 */
export function isWriteOperation(operationId: OperationId): boolean {
	return OPERATIONS[operationId].method !== 'GET';
}

export function requireScope(auth: AuthContext, operationId: OperationId): void {
	if (auth.key.scope === 'read_only' && isWriteOperation(operationId)) {
		throw ApiError.of('scope_violation_read_only', `A read_only key cannot call ${operationId}.`, {
			operation_id: operationId,
		});
	}
}
