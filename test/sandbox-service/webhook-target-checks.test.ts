// The sandbox dispatcher's webhook target checks (spec 6 rules 5–6): which addresses are forbidden and what
// validateTarget answers, with and without allowLocalWebhooks. Classified as strings or against a stubbed resolver:
// nothing is sent.

import { isForbiddenAddress, type HostResolver } from '../../sandbox/webhooks';
import { FORBIDDEN_MESSAGE, useDispatcherHarness } from '../support/sandbox/dispatcher-harness';

const { dispatcher } = useDispatcherHarness();

describe('forbidden address ranges', () => {
	it.each([
		'0.0.0.0',
		'0.1.2.3',
		'10.0.0.1',
		'100.64.0.1',
		'127.0.0.1',
		'127.255.255.254',
		'169.254.169.254',
		'172.16.0.1',
		'172.31.255.255',
		'192.0.0.8',
		'192.0.2.1',
		'192.168.1.1',
		'198.18.0.1',
		'198.19.255.255',
		'198.51.100.7',
		'203.0.113.9',
		'224.0.0.251',
		'239.255.255.250',
		'240.0.0.1',
		'255.255.255.255',
		'::',
		'::1',
		'0:0:0:0:0:0:0:1',
		'::ffff:127.0.0.1',
		'::ffff:7f00:1',
		'::ffff:10.0.0.1',
		'::ffff:a9fe:a9fe',
		'fc00::1',
		'fd12:3456::1',
		'fe80::1',
		'fe80::1%eth0',
		'ff02::1',
		'64:ff9b::a00:1',
		'2001:db8::1',
		'2002:a00:1::1',
		'not-an-address',
	])('%s is refused', (address) => {
		expect(isForbiddenAddress(address)).toBe(true);
	});

	// Classified as strings only: no test sends anything to these.
	it.each([
		'8.8.8.8',
		'1.1.1.1',
		'172.32.0.1',
		'100.128.0.1',
		'::ffff:8.8.8.8',
		'2606:4700:4700::1111',
	])('%s is a public address', (address) => {
		expect(isForbiddenAddress(address)).toBe(false);
	});
});

describe('validateTarget', () => {
	describe('by default (public HTTPS on port 443 only)', () => {
		it.each([
			'https://127.0.0.1',
			'https://127.0.0.1/hook',
			'https://[::1]',
			'https://[::1]/hook',
			'https://localhost',
			'https://hooks.localhost/path',
			'https://LOCALHOST./',
			'https://[::ffff:127.0.0.1]',
			'https://2130706433',
			'https://0x7f.1',
			'https://10.0.0.1',
			'https://169.254.169.254/latest/meta-data',
			'https://[fe80::1]',
			'https://[fc00::1]',
			'https://0.0.0.0',
			'https://224.0.0.1',
		])('%s → webhook_url_forbidden_target, without asking DNS', async (url) => {
			const resolveHost = jest.fn<ReturnType<HostResolver>, Parameters<HostResolver>>();
			const { webhooks } = dispatcher({ allowLocalWebhooks: false, resolveHost });
			await expect(webhooks.validateTarget(url)).resolves.toEqual({
				ok: false,
				code: 'webhook_url_forbidden_target',
				message: FORBIDDEN_MESSAGE,
			});
			expect(resolveHost).not.toHaveBeenCalled();
		});

		it.each([
			['http://127.0.0.1:4010/hook', 'webhook_url must be an https:// URL'],
			['http://hooks.invalid/', 'webhook_url must be an https:// URL'],
			['https://x.invalid', 'webhook_url hostname "x.invalid" does not resolve'],
			['https://hooks.test/hook', 'webhook_url hostname "hooks.test" does not resolve'],
			['https://hooks.example/hook', 'webhook_url hostname "hooks.example" does not resolve'],
			['https://localhost:8443/hook', 'webhook_url must use port 443 (got 8443)'],
			['https://x.invalid:8443/hook', 'webhook_url must use port 443 (got 8443)'],
			['not a url', 'webhook_url is not a valid absolute URL'],
			['/relative/hook', 'webhook_url is not a valid absolute URL'],
			['ftp://x.invalid/hook', 'webhook_url must be an https:// URL'],
			['https://user:secret@x.invalid/hook', 'webhook_url must not contain user information'],
		])('%s → invalid_webhook_url, without asking DNS', async (url, message) => {
			const resolveHost = jest.fn<ReturnType<HostResolver>, Parameters<HostResolver>>();
			const { webhooks } = dispatcher({ allowLocalWebhooks: false, resolveHost });
			await expect(webhooks.validateTarget(url)).resolves.toEqual({
				ok: false,
				code: 'invalid_webhook_url',
				message,
			});
			expect(resolveHost).not.toHaveBeenCalled();
		});

		it('checks every address a name resolves to', async () => {
			const resolveHost = jest.fn<ReturnType<HostResolver>, Parameters<HostResolver>>(async () => [
				{ address: '8.8.8.8', family: 4 },
				{ address: '10.20.30.40', family: 4 },
			]);
			const { webhooks } = dispatcher({ allowLocalWebhooks: false, resolveHost });
			await expect(
				webhooks.validateTarget('https://hooks.customer.internal/hook'),
			).resolves.toMatchObject({
				ok: false,
				code: 'webhook_url_forbidden_target',
			});
			expect(resolveHost).toHaveBeenCalledWith('hooks.customer.internal');
		});

		it('accepts an HTTPS name on port 443 whose every address is public', async () => {
			const resolveHost: HostResolver = async () => [
				{ address: '8.8.8.8', family: 4 },
				{ address: '2606:4700:4700::1111', family: 6 },
			];
			const { webhooks } = dispatcher({ allowLocalWebhooks: false, resolveHost });
			await expect(
				webhooks.validateTarget('https://hooks.customer.internal:443/hook'),
			).resolves.toEqual({ ok: true });
		});

		it('refuses a name DNS cannot resolve', async () => {
			const resolveHost: HostResolver = async () => {
				throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
			};
			const { webhooks } = dispatcher({ allowLocalWebhooks: false, resolveHost });
			await expect(webhooks.validateTarget('https://gone.customer.internal/hook')).resolves.toEqual(
				{
					ok: false,
					code: 'invalid_webhook_url',
					message: 'webhook_url hostname "gone.customer.internal" does not resolve',
				},
			);
		});
	});

	describe('with allowLocalWebhooks', () => {
		it('keeps HTTPS on port 443 for a name with public addresses', async () => {
			const resolveHost: HostResolver = async () => [{ address: '8.8.8.8', family: 4 }];
			const { webhooks } = dispatcher({ allowLocalWebhooks: true, resolveHost });
			await expect(
				webhooks.validateTarget('http://public.customer.internal:5678/hook'),
			).resolves.toEqual({
				ok: false,
				code: 'invalid_webhook_url',
				message:
					'webhook_url must be an https:// URL (http:// is allowed only for loopback targets)',
			});
			await expect(
				webhooks.validateTarget('https://public.customer.internal:8443/hook'),
			).resolves.toEqual({
				ok: false,
				code: 'invalid_webhook_url',
				message: 'webhook_url must use port 443 (got 8443)',
			});
		});

		it.each([
			'http://127.0.0.1:5678/webhook/abc',
			'http://127.9.9.9:80/',
			'http://localhost:5678/webhook/abc',
			'https://localhost:8443/hook',
			'http://[::1]:5678/hook',
			'https://[::1]:8443/hook',
			'http://[::ffff:127.0.0.1]:5678/hook',
		])('%s is allowed', async (url) => {
			const { webhooks } = dispatcher({ allowLocalWebhooks: true });
			await expect(webhooks.validateTarget(url)).resolves.toEqual({ ok: true });
		});

		it.each([
			['http://10.0.0.1:5678/hook', 'webhook_url_forbidden_target'],
			['https://10.0.0.1/hook', 'webhook_url_forbidden_target'],
			['https://10.0.0.1:8443/hook', 'webhook_url_forbidden_target'],
			['http://[fd00::1]:5678/hook', 'webhook_url_forbidden_target'],
			['https://[fe80::1]/hook', 'webhook_url_forbidden_target'],
			['http://hooks.invalid:5678/hook', 'invalid_webhook_url'],
			['http://[::1]:5678@hooks.invalid/hook', 'invalid_webhook_url'],
			['https://hooks.invalid/hook', 'invalid_webhook_url'],
		])('%s is still refused (%s)', async (url, code) => {
			const { webhooks } = dispatcher({ allowLocalWebhooks: true });
			await expect(webhooks.validateTarget(url)).resolves.toMatchObject({ ok: false, code });
		});

		it('relaxes nothing for a name that resolves to loopback and a private address', async () => {
			const resolveHost: HostResolver = async () => [
				{ address: '127.0.0.1', family: 4 },
				{ address: '192.168.1.20', family: 4 },
			];
			const { webhooks } = dispatcher({ allowLocalWebhooks: true, resolveHost });
			await expect(
				webhooks.validateTarget('http://mixed.customer.internal:5678/hook'),
			).resolves.toMatchObject({
				ok: false,
				code: 'webhook_url_forbidden_target',
			});
			await expect(
				webhooks.validateTarget('https://mixed.customer.internal/hook'),
			).resolves.toMatchObject({
				ok: false,
				code: 'webhook_url_forbidden_target',
			});
		});
	});
});
