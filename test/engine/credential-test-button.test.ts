// The credential's Test button, run as n8n runs it (support/engine/credential-test.ts), inside n8n's own engine:
// against the sandbox for what the service says of a key, and against a hostile server on loopback for a redirect that
// would carry the API key away, an error page in place of the service and a Base URL that would send the key in clear
// text.
import { runCredentialTest } from '../support/engine/credential-test';
import { useControlledClock } from '../support/clock/controlled-clock';
import { useEngineSandbox } from '../support/engine/engine-sandbox';
import {
	credentialsFor,
	jsonAnswer,
	KEY,
	useHostileServers,
} from '../support/engine/hostile-server';

const clock = useControlledClock();
const env = useEngineSandbox({ clock, recordExchanges: true });
const serve = useHostileServers();

const ACCOUNT = {
	account_id: 'acct_catcher',
	effective_tier: 'platinum',
	api_access: true,
	wallet_balance: 1,
	status: 'active',
};

describe("the credential's Test button", () => {
	const NOT_AN_ACCOUNT =
		"No account came back from GET {Path Prefix}/account: the answer was a redirect, a page that is not the service's, or an error the test cannot name. Check the Base URL and Path Prefix; the node's Account → Get shows the service's whole answer.";

	test('does not follow a redirect to another origin: the API key never reaches it', async () => {
		const catcher = await serve((response) => jsonAnswer(response, 200, ACCOUNT));
		const redirector = await serve((response) => {
			response.writeHead(302, { location: `${catcher.baseUrl}/api/v1/account` });
			response.end();
		});

		const result = await runCredentialTest(credentialsFor(redirector));

		expect(redirector.requests).toHaveLength(1);
		expect(redirector.requests[0].headers.authorization).toBe(`Bearer ${KEY}`);
		expect(catcher.requests).toEqual([]);
		expect(result).toEqual({ status: 'Error', message: NOT_AN_ACCOUNT });
	});

	test('a wrong key with a valid prefix: says invalid_api_key and what to do', async () => {
		const result = await runCredentialTest(
			env.credentials('svc_sk_live_notAKeyOfAnyAccount0000001'),
		);
		expect(result).toEqual({
			status: 'Error',
			message:
				'The service refused the API Key (invalid_api_key): it does not know this key, or the key was revoked. Copy a current key from the dashboard.',
		});
	});

	test.each([
		['a revoked key', 'invalid_api_key', () => env.sandbox.keys.revoked_live.key],
		[
			"a known key with the other mode's prefix",
			'invalid_api_key_mode',
			() => env.sandbox.keys.platinum_live.key.replace('svc_sk_live_', 'svc_sk_test_'),
		],
		[
			'a key of an account without API access',
			'plan_downgraded_api_revoked',
			() => env.sandbox.keys.no_api_access_live.key,
		],
	])('%s: the message names %s', async (_case, code, key) => {
		const result = await runCredentialTest(env.credentials(key()));
		expect(result.status).toBe('Error');
		expect(result.message).toContain(`(${code})`);
	});

	test('a key whose user is gone: invalid_api_key_user', async () => {
		const orphan = await env.admin.createKey({ orphan: true });
		const result = await runCredentialTest(env.credentials(orphan.key));
		expect(result.message).toContain('(invalid_api_key_user)');
	});

	test('a working key: Connection successful', async () => {
		expect(await runCredentialTest(env.live)).toEqual({
			status: 'OK',
			message: 'Connection successful!',
		});
	});

	test('an error page in place of the service: says to check the Base URL', async () => {
		const page = await serve((response) => {
			response.writeHead(404, { 'content-type': 'text/html' });
			response.end('<html><body>Not Found</body></html>');
		});
		expect(await runCredentialTest(credentialsFor(page))).toEqual({
			status: 'Error',
			message: NOT_AN_ACCOUNT,
		});
	});

	test('a plain http:// Base URL to another host is refused before any request, naming the field', async () => {
		const result = await runCredentialTest({
			apiKey: KEY,
			baseUrl: 'http://transcription.example',
		});
		expect(result).toEqual({
			status: 'Error',
			message:
				'The credential\'s Base URL must start with https:// (plain http:// is accepted only for this machine: 127.0.0.1, [::1] or localhost). Got "http://transcription.example".',
		});
	});
});
