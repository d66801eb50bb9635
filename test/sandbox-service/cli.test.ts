// `npm run sandbox` (tsx sandbox/cli.ts): the ready line on stdout, help after it, and a clean stop.

import { spawn } from 'node:child_process';
import path from 'node:path';
import { api } from '../support/sandbox/client';

const ROOT = path.resolve(__dirname, '../..');

interface ReadyLine {
	ready: boolean;
	base_url: string;
	keys: Record<
		string,
		{
			key: string;
			account_id: string;
			mode: string;
			scope: string;
			tier: string;
			signing_secret: string;
		}
	>;
}

describe('CLI', () => {
	test('prints one JSON ready line with the seeded keys, then help, and stops on SIGTERM', async () => {
		// Its own process group, so the signal reaches npx, tsx and node as Ctrl+C would.
		const child = spawn(
			'npx',
			['tsx', 'sandbox/cli.ts', '--port', '0', '--quiet', '--job-seconds', '1'],
			{
				cwd: ROOT,
				detached: true,
				stdio: ['ignore', 'pipe', 'pipe'],
			},
		);
		const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
		let stdout = '';
		// The help text ends with the line about stopping; everything up to it is on stdout by then.
		await new Promise<void>((resolve, reject) => {
			child.stdout.on('data', (chunk: Buffer) => {
				stdout += chunk.toString('utf8');
				if (stdout.includes('Ctrl+C stops the sandbox')) resolve();
			});
			child.once('exit', (code) =>
				reject(new Error(`CLI exited with ${code} before its help text`)),
			);
		});
		try {
			const [readyLine, ...help] = stdout.split('\n');
			const ready = JSON.parse(readyLine) as ReadyLine;
			expect(ready.ready).toBe(true);
			expect(ready.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
			expect(Object.keys(ready.keys).sort()).toEqual([
				'no_api_access_live',
				'platinum_live',
				'platinum_test',
				'premium_live',
				'read_only_live',
				'revoked_live',
			]);
			expect(ready.keys.platinum_live).toEqual({
				key: 'svc_sk_live_sandboxPlatinum0000000000001',
				account_id: 'acct_sandbox_platinum',
				mode: 'live',
				scope: 'full_access',
				tier: 'platinum',
				signing_secret: 'whsec_sandbox_platinum_5f2b8c0e4d7a41c9',
			});
			const account = await api(ready.base_url, {
				path: '/api/v1/account',
				key: ready.keys.platinum_live.key,
			});
			expect(account.status).toBe(200);
			expect(help.join('\n')).toContain(`listening on ${ready.base_url}`);
		} finally {
			process.kill(-(child.pid ?? 0), 'SIGTERM');
			await exited;
		}
	});
});
