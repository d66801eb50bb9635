// With --allow-local-webhooks the sandbox's own webhook sender must never become a way into the sandbox
// itself. Its own address and port are refused however they are spelt, and its admin paths are refused on any host
// and port (a port-forward, tunnel or proxy in front of the sandbox), however they are encoded.

import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { PublicAPIErrorEnvelope, PublicWebhookTestResponse } from '../../src/api';
import { SandboxClock } from '../../sandbox/clock';
import type { HostResolver } from '../../sandbox/webhooks';
import { WebhookDispatcher } from '../../sandbox/webhooks';
import type { ApiResponse, SandboxHandle } from '../support/sandbox/client';
import {
	api,
	GENEROUS_LIMITS,
	startReceiver,
	uploadMedia,
	useSandbox,
} from '../support/sandbox/client';

// Many webhook tests in one file: lift the 10-per-minute webhook-test bucket (rate-limits.test.ts covers it).
const rateLimits = { ...GENEROUS_LIMITS, webhookTestsPerWindow: 10_000 };
const local = useSandbox({ allowLocalWebhooks: true, rateLimits });
const onIPv6 = useSandbox({ allowLocalWebhooks: true, rateLimits, host: '::1' });
const onLocalhost = useSandbox({ allowLocalWebhooks: true, rateLimits, host: 'localhost' });

const SELF_MESSAGE =
	'webhook_url points at this sandbox itself; webhooks are never delivered to its own address and port';
const ADMIN_MESSAGE =
	'webhook_url points at the sandbox admin API (/_sandbox), which is never a webhook target';

function testWebhook(handle: SandboxHandle, webhookUrl: string, key?: string) {
	return api(handle.baseUrl, {
		path: '/api/v1/webhooks/test',
		key: key ?? handle.sandbox.keys.premium_live.key,
		json: { webhook_url: webhookUrl },
	});
}

/** 400 webhook_url_forbidden_target with this message (the envelope itself is checked in webhook-targets.test.ts). */
function expectForbidden(response: ApiResponse, message: string): void {
	const error = (response.json as PublicAPIErrorEnvelope | undefined)?.error;
	expect({ status: response.status, code: error?.code, message: error?.message }).toEqual({
		status: 400,
		code: 'webhook_url_forbidden_target',
		message,
	});
}

async function expectKeyWorks(handle: SandboxHandle, key: string): Promise<void> {
	const account = await api(handle.baseUrl, { path: '/api/v1/account', key });
	expect(account.status).toBe(200);
}

/** A plain TCP forwarder to the sandbox on another loopback port: what a port-forward or tunnel looks like. */
async function startForwarder(
	targetPort: number,
): Promise<{ port: number; close(): Promise<void> }> {
	const sockets = new Set<net.Socket>();
	const server = net.createServer((client) => {
		const upstream = net.connect(targetPort, '127.0.0.1');
		for (const socket of [client, upstream]) {
			sockets.add(socket);
			socket.on('close', () => sockets.delete(socket));
			socket.on('error', () => undefined);
		}
		client.pipe(upstream).pipe(client);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		port: (server.address() as AddressInfo).port,
		close: () =>
			new Promise<void>((resolve) => {
				for (const socket of sockets) socket.destroy();
				server.close(() => resolve());
			}),
	};
}

describe('webhooks never reach the sandbox itself', () => {
	test('a webhook test aimed at /_sandbox/keys/<key>/revoke is refused, the key keeps working', async () => {
		const victim = await local.admin.createKey();
		const response = await testWebhook(
			local,
			`${local.baseUrl}/_sandbox/keys/${victim.key}/revoke`,
		);
		// Both rules hold here; the path is checked first, before any name is resolved.
		expectForbidden(response, ADMIN_MESSAGE);
		await expectKeyWorks(local, victim.key);
	});

	test('a job whose webhook_url is the sandbox is refused, and its slot stays usable', async () => {
		const key = local.sandbox.keys.platinum_live.key;
		const uploadId = await uploadMedia(local.baseUrl, key);
		const response = await api(local.baseUrl, {
			path: '/api/v1/transcriptions',
			key,
			json: {
				upload_id: uploadId,
				webhook_url: `${local.baseUrl}/api/v1/uploads`,
			},
		});
		expectForbidden(response, SELF_MESSAGE);
		const retry = await api(local.baseUrl, {
			path: '/api/v1/transcriptions',
			key,
			json: { upload_id: uploadId },
		});
		expect(retry.status).toBe(202);
	});

	test.each([
		['http://127.0.0.1:PORT/hook'],
		['http://127.1:PORT/hook'],
		['http://0x7f000001:PORT/hook'],
		['http://2130706433:PORT/hook'],
		['http://0177.0.0.1:PORT/hook'],
		['http://[::ffff:127.0.0.1]:PORT/hook'],
		['http://[::ffff:7f00:1]:PORT/hook'],
		['http://localhost:PORT/hook'],
		['http://LOCALHOST.:PORT/hook'],
		['https://127.0.0.1:PORT/hook'],
		['http://127.0.0.1:PORT/api/v1/account'],
		['http://127.0.0.1:PORT/hook?next=/elsewhere'],
	])(
		'%s (the sandbox’s own address and port) → 400 webhook_url_forbidden_target',
		async (template) => {
			const url = template.replace('PORT', String(local.sandbox.port));
			const response = await testWebhook(local, url);
			expectForbidden(response, SELF_MESSAGE);
		},
	);

	test('a name that resolves to the sandbox’s address is refused the same way (checked on the address connected to)', async () => {
		const resolveHost: HostResolver = async () => [{ address: '127.0.0.1', family: 4 }];
		const webhooks = new WebhookDispatcher({
			clock: new SandboxClock(),
			timeScale: 1,
			allowLocalWebhooks: true,
			random: () => 0.5,
			resolveHost,
		});
		try {
			webhooks.setOwnEndpoint({ port: 4010, addresses: ['127.0.0.1'] });
			await expect(
				webhooks.validateTarget('http://dev-box.customer.internal:4010/hook'),
			).resolves.toEqual({
				ok: false,
				code: 'webhook_url_forbidden_target',
				message: SELF_MESSAGE,
			});
			await expect(
				webhooks.validateTarget('http://dev-box.customer.internal:5678/hook'),
			).resolves.toEqual({ ok: true });
		} finally {
			await webhooks.close();
		}
	});

	test('other loopback ports stay open: a receiver beside the sandbox still gets its test event', async () => {
		const receiver = await startReceiver();
		try {
			const response = await testWebhook(local, receiver.url);
			expect(response.status).toBe(200);
			expect((response.json as PublicWebhookTestResponse).delivered).toBe(true);
		} finally {
			await receiver.close();
		}
	});

	test('a sandbox on [::1] refuses [::1] at its port, not 127.0.0.1 at that port (another socket)', async () => {
		const { port } = onIPv6.sandbox;
		const own = await testWebhook(onIPv6, `http://[::1]:${port}/hook`);
		expectForbidden(own, SELF_MESSAGE);
		// Whatever listens there (most likely nothing), it is not this sandbox, so the test event is attempted.
		const other = await testWebhook(onIPv6, `http://127.0.0.1:${port}/hook`);
		expect(other.status).toBe(200);
	});

	test('a sandbox started on "localhost" refuses every spelling of the address it listens on', async () => {
		const { port } = onLocalhost.sandbox;
		for (const url of [`http://localhost:${port}/hook`, `http://127.0.0.1:${port}/hook`]) {
			const response = await testWebhook(onLocalhost, url);
			expectForbidden(response, SELF_MESSAGE);
		}
	});
});

describe('wildcard listen addresses cover every local address', () => {
	function dispatcherListeningOn(addresses: string[]): WebhookDispatcher {
		const webhooks = new WebhookDispatcher({
			clock: new SandboxClock(),
			timeScale: 1,
			allowLocalWebhooks: true,
			random: () => 0.5,
			resolveHost: async () => [{ address: '127.0.0.1', family: 4 }],
		});
		webhooks.setOwnEndpoint({ port: 4010, addresses });
		return webhooks;
	}

	test.each([
		['0.0.0.0', 'http://127.0.0.1:4010/hook'],
		['0.0.0.0', 'http://127.8.9.10:4010/hook'],
		['0.0.0.0', 'http://[::ffff:127.0.0.2]:4010/hook'],
		['0.0.0.0', 'http://localhost:4010/hook'],
		['0.0.0.0', 'http://dev-box.customer.internal:4010/hook'],
		['::', 'http://[::1]:4010/hook'],
		['::', 'http://127.0.0.1:4010/hook'],
		['127.0.0.1', 'http://[::ffff:127.0.0.1]:4010/hook'],
		['::ffff:127.0.0.1', 'http://127.0.0.1:4010/hook'],
	])('listening on %s: %s is refused', async (listening, url) => {
		const webhooks = dispatcherListeningOn([listening]);
		try {
			await expect(webhooks.validateTarget(url)).resolves.toEqual({
				ok: false,
				code: 'webhook_url_forbidden_target',
				message: SELF_MESSAGE,
			});
		} finally {
			await webhooks.close();
		}
	});

	test.each([
		['0.0.0.0', 'http://127.0.0.1:5678/hook'],
		['0.0.0.0', 'http://[::1]:4010/hook'],
		['127.0.0.1', 'http://127.0.0.2:4010/hook'],
		['127.0.0.1', 'http://[::1]:4010/hook'],
		['::1', 'http://127.0.0.1:4010/hook'],
	])('listening on %s: %s is another socket and allowed', async (listening, url) => {
		const webhooks = dispatcherListeningOn([listening]);
		try {
			await expect(webhooks.validateTarget(url)).resolves.toEqual({ ok: true });
		} finally {
			await webhooks.close();
		}
	});
});

describe('the admin paths are never a webhook target, on any port', () => {
	test.each([
		['/_sandbox/keys/KEY/revoke'],
		['/%5Fsandbox/keys/KEY/revoke'],
		['/%5fsandbox/keys/KEY/revoke'],
		['/%255Fsandbox/keys/KEY/revoke'],
		['/_sandbox/keys/KEY/%72evoke'],
		['/hook/../_sandbox/keys/KEY/revoke'],
		['/hook/%2e%2e/_sandbox/keys/KEY/revoke'],
		['/hook/%252e%252e/_sandbox/keys/KEY/revoke'],
		['/hook\\..\\_sandbox/keys/KEY/revoke'],
		['/./_sandbox/keys/KEY/revoke'],
		['//_sandbox/keys/KEY/revoke'],
		['/_SANDBOX/keys/KEY/revoke'],
		['/_sandbox%2Fkeys%2FKEY%2Frevoke'],
		// "_" percent-encoded ten times over: past any decoding depth worth following, so refused as such.
		[`/%${'25'.repeat(9)}5Fsandbox/keys/KEY/revoke`],
	])(
		'%s through a port-forward to the sandbox → 400, and the key keeps working',
		async (pathTemplate) => {
			const forwarder = await startForwarder(local.sandbox.port);
			try {
				const victim = await local.admin.createKey();
				const url = `http://127.0.0.1:${forwarder.port}${pathTemplate.replace('KEY', victim.key)}`;
				const response = await testWebhook(local, url);
				expectForbidden(response, ADMIN_MESSAGE);
				await expectKeyWorks(local, victim.key);
			} finally {
				await forwarder.close();
			}
		},
	);

	test('a path with _sandbox further down is an ordinary target', async () => {
		const receiver = await startReceiver();
		try {
			const response = await testWebhook(local, receiver.url.replace('/hook', '/hooks/_sandbox'));
			expect((response.json as PublicWebhookTestResponse).delivered).toBe(true);
		} finally {
			await receiver.close();
		}
	});
});
