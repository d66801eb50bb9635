// The human-readable text the CLI prints after its ready line.

import type { SeededKeys } from './seed';

export const CLI_USAGE = `Usage: npm run sandbox -- [options]

Options:
  --port N                  Port to listen on (default 4010; 0 = any free port; env SANDBOX_PORT)
  --host H                  Address to bind (default 127.0.0.1; env SANDBOX_HOST)
  --allowed-host NAME       Also answer requests addressed to NAME (repeatable; env SANDBOX_ALLOWED_HOSTS,
                            comma-separated). Other host names are refused, against DNS rebinding
  --allow-local-webhooks    Allow http:// webhook targets on loopback, e.g. a local n8n
                            (env SANDBOX_ALLOW_LOCAL_WEBHOOKS=1)
  --job-seconds N           Sandbox seconds a live job spends queued + processing (default 3)
  --time-scale F            Multiplies long durations such as the webhook retry schedule (default 1)
  --seed N                  Seed for fault injection and webhook jitter
  --rate-window-seconds N   Rate-limit window length (default 60)
  --list-order ORDER        Order of GET /transcriptions: newest_first (default), oldest_first,
                            updated_first or scrambled (the spec fixes none)
  --quiet                   No request log on stderr
  --help                    This text`;

export function helpText(baseUrl: string, keys: SeededKeys): string {
	const keyLines = Object.entries(keys).map(
		([name, key]) =>
			`  ${name.padEnd(20)} ${key.key}  (${key.mode}, ${key.scope}, ${key.tier}${key.api_access ? '' : ', no API access'}${key.revoked ? ', revoked' : ''})`,
	);
	return `
Transcription Service sandbox listening on ${baseUrl}
  API:            ${baseUrl}/api/v1   (Authorization: Bearer <key>)
  OpenAPI:        ${baseUrl}/api/v1/openapi.json  ·  ${baseUrl}/api/v1/openapi.yaml
  Workflow:       ${baseUrl}/api/v1/workflows/transcribe.arazzo.yaml
  Reference:      ${baseUrl}/developers/api-reference

Seeded keys:
${keyLines.join('\n')}
  Signing secret of the platinum account (live and test keys): ${keys.platinum_live.signing_secret}

Try it:
  curl -H "Authorization: Bearer ${keys.platinum_live.key}" ${baseUrl}/api/v1/account

Admin API (loopback only, no auth; Host must be a loopback name, no foreign Origin,
writes need "Content-Type: application/json" even without a body):
  POST   /_sandbox/keys                   {mode, scope, tier, api_access, account_id?, orphan?} → new key
  POST   /_sandbox/keys/{key}/revoke
  POST   /_sandbox/accounts/{account_id}  {tier?, api_access?, wallet_balance?, signing_secret?}
  GET    /_sandbox/clock · POST /_sandbox/clock {advance_seconds}
  POST   /_sandbox/jobs/{job_id}/fail     · DELETE /_sandbox/jobs/{job_id}/artifact
  POST   /_sandbox/jobs/{job_id}/hold · …/release · …/complete · …/cancel
  POST   /_sandbox/jobs {account_id, count, status?, held?, filename?} → jobs seeded into an account
  POST   /_sandbox/list-order {order: newest_first|oldest_first|updated_first|scrambled}
  GET    /_sandbox/webhook-deliveries[?wait=idle]
  POST   /_sandbox/faults {seed?, rules?, webhooks?} · DELETE /_sandbox/faults
  POST   /_sandbox/rate-limits {windowSeconds?, perTier?, readsMultiplier?, artifactsMultiplier?, webhookTestsPerWindow?}
  GET    /_sandbox/records[?account_id=]

Ctrl+C stops the sandbox and deletes its temporary files.
`;
}
