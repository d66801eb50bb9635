// Media Source "URL" under n8n's SSRF protection (n8n 2.12 and later: N8N_SSRF_PROTECTION_ENABLED): the media request
// goes through n8n's own request helper, so an admin's rules refuse a blocked address, on the link itself and on every
// redirect the node follows. The service (the sandbox) and the media host's first origin listen on 127.0.0.1, allowed
// here as an admin would allow an internal service; the media host's other origin listens on 127.0.0.2, blocked as all
// of 127.0.0.0/8 is by default. n8n-core 2.8 has no such protection: the file then reports why it does not run.
import { Container } from '@n8n/di';
import path from 'node:path';

import { makeWav } from '../support/fixtures/media';
import { actionNode, nodeError, runWorkflow } from '../support/engine/harness';
import { useEngineSandbox } from '../support/engine/engine-sandbox';
import { freshAccounts } from '../support/engine/accounts';
import { bearerLinkCredential, useMediaHost } from '../support/media/media-host';

interface SsrfConfig {
	enabled: boolean;
	allowedIpRanges: string[];
}

/** @n8n/config's SsrfProtectionConfig, as the n8n-core of this run has it (absent before n8n 2.12). */
function ssrfConfigClass(): (new () => SsrfConfig) | undefined {
	const nextToCore = require.resolve('@n8n/config', {
		paths: [path.dirname(require.resolve('n8n-core'))],
	});
	// Jest's module registry, so that it shares @n8n/di's Container with n8n-core.
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	return (require(nextToCore) as { SsrfProtectionConfig?: new () => SsrfConfig })
		.SsrfProtectionConfig;
}

const SsrfProtectionConfig = ssrfConfigClass();
const env = useEngineSandbox();
const freshAccount = freshAccounts(env);
const host = useMediaHost({ addresses: { main: '127.0.0.1', other: '127.0.0.2' } });
const SHORT = makeWav({ seconds: 2 });

const transcribe = (mediaUrl: string) =>
	actionNode({
		resource: 'transcription',
		operation: 'transcribeAndDownload',
		mediaSource: 'url',
		mediaUrl,
		formats: ['txt'],
		options: { pollIntervalSeconds: 0.2 },
	});

(SsrfProtectionConfig ? describe : describe.skip)(
	`Media Source URL under n8n's SSRF protection${SsrfProtectionConfig ? '' : ' (skipped: this n8n-core has none; it came with n8n 2.12)'}`,
	() => {
		let config: SsrfConfig;
		beforeAll(() => {
			host.add('short.wav', { bytes: SHORT, contentType: 'audio/wav' });
			config = Container.get(SsrfProtectionConfig!);
			config.allowedIpRanges = ['127.0.0.1/32'];
		});
		afterEach(() => {
			config.enabled = false;
		});

		test('a link to a blocked address fails as media_link_blocked; nothing reaches the host, no slot is made', async () => {
			config.enabled = true;
			const account = await freshAccount();
			const link = host.url('/file/short.wav', 'other');
			const result = await runWorkflow({
				nodes: [transcribe(link)],
				credentials: account.credentials,
			});
			expect(nodeError(result)).toMatchObject({
				code: 'media_link_blocked',
				message: `n8n refused to connect to ${link}: this n8n's SSRF protection blocks its address`,
			});
			expect(host.requests).toHaveLength(0);
			expect((await env.admin.records(account.accountId)).counts).toEqual({ uploads: 0, jobs: 0 });
		});

		test('a redirect to a blocked address is refused the same way: the node follows each hop through n8n', async () => {
			config.enabled = true;
			const account = await freshAccount();
			const result = await runWorkflow({
				nodes: [transcribe(host.url('/elsewhere/file/short.wav'))],
				credentials: account.credentials,
			});
			expect(nodeError(result).code).toBe('media_link_blocked');
			expect(host.requests.map((request) => request.server)).toEqual(['main']);
		});

		test('with a Media Link credential too: n8n applies it and its SSRF rules in the same request', async () => {
			config.enabled = true;
			const account = await freshAccount();
			const result = await runWorkflow({
				nodes: [
					actionNode({
						resource: 'transcription',
						operation: 'transcribeAndDownload',
						mediaSource: 'url',
						mediaUrl: host.url('/private/short.wav', 'other'),
						linkAuthentication: 'mediaLinkCredential',
						formats: ['txt'],
					}),
				],
				credentials: account.credentials,
				mediaLinkCredential: bearerLinkCredential(host, '127.0.0.2'),
			});
			expect(nodeError(result).code).toBe('media_link_blocked');
			expect(host.requests).toHaveLength(0);
		});

		test("with the protection off (n8n's default) the same links transcribe", async () => {
			const account = await freshAccount();
			for (const link of [
				host.url('/file/short.wav', 'other'),
				host.url('/elsewhere/file/short.wav'),
			]) {
				const result = await runWorkflow({
					nodes: [transcribe(link)],
					credentials: account.credentials,
				});
				expect(result.error).toBeUndefined();
			}
			expect((await env.admin.records(account.accountId)).counts).toEqual({ uploads: 2, jobs: 2 });
		});
	},
);
