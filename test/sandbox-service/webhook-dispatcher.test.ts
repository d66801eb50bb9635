// The sandbox's webhook dispatcher against spec section 6, on loopback only: a local receiver, a frozen
// sandbox clock moved by advances, and signatures checked with node:crypto directly (not our verifier).

import { createHmac } from 'node:crypto';
import http, {
	type IncomingHttpHeaders,
	type IncomingMessage,
	type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

import type { PublicTranscriptionWebhookEvent, PublicWebhookTestDelivery } from '../../src/api';
import { SandboxClock } from '../../sandbox/clock';
import { mulberry32 } from '../../sandbox/random';
import {
	isForbiddenAddress,
	WebhookDispatcher,
	type HostResolver,
	type WebhookDispatcherOptions,
} from '../../sandbox/webhooks';
import { canonicalJson } from '../../src/service';

const SECRET = 'whsec_sandbox_test_secret';
const FROZEN_MS = Date.UTC(2026, 10, 22, 10, 0, 0);
const FROZEN_SECONDS = FROZEN_MS / 1000;
const HOUR = 3600;
const FORBIDDEN_MESSAGE =
	'webhook_url resolves to a forbidden network range (loopback, private, link-local, multicast or reserved)';

type Reply =
	number | 'reset' | 'hang' | ((request: IncomingMessage, response: ServerResponse) => void);

interface Received {
	path: string;
	headers: IncomingHttpHeaders;
	body: Buffer;
}

/** A loopback HTTP receiver answering the scripted replies in order, then 200. */
class Receiver {
	readonly received: Received[] = [];
	private waiters: Array<{ count: number; resolve: () => void }> = [];

	private constructor(
		private readonly server: http.Server,
		private readonly replies: Reply[],
	) {}

	static async start(replies: Reply[] = []): Promise<Receiver> {
		const server = http.createServer();
		const receiver = new Receiver(server, replies);
		server.on('request', (request, response) => receiver.handle(request, response));
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		return receiver;
	}

	get port(): number {
		return (this.server.address() as AddressInfo).port;
	}

	url(path = '/hook'): string {
		return `http://127.0.0.1:${this.port}${path}`;
	}

	bodies(): PublicTranscriptionWebhookEvent[] {
		return this.received.map(
			(request) => JSON.parse(request.body.toString('utf8')) as PublicTranscriptionWebhookEvent,
		);
	}

	/** Resolves once `count` requests have arrived. */
	waitFor(count: number): Promise<void> {
		if (this.received.length >= count) return Promise.resolve();
		return new Promise((resolve) => this.waiters.push({ count, resolve }));
	}

	close(): Promise<void> {
		this.server.closeAllConnections();
		return new Promise((resolve) => this.server.close(() => resolve()));
	}

	private handle(request: IncomingMessage, response: ServerResponse): void {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => {
			const reply = this.replies[this.received.length] ?? 200;
			this.received.push({
				path: request.url ?? '',
				headers: request.headers,
				body: Buffer.concat(chunks),
			});
			for (const waiter of this.waiters.filter(({ count }) => this.received.length >= count))
				waiter.resolve();
			if (reply === 'reset') request.socket.destroy();
			else if (reply === 'hang') return;
			else if (typeof reply === 'function') reply(request, response);
			else if (reply >= 300 && reply < 400)
				response.writeHead(reply, { Location: '/followed' }).end();
			else
				response.writeHead(reply, { 'Content-Type': 'application/json' }).end('{"received":true}');
		});
	}
}

/** The independent verifier: HMAC-SHA-256 over timestamp + "." + the raw bytes received. */
function expectedSignature(secret: string, received: Received): string {
	const timestamp = String(received.headers['x-service-timestamp']);
	return `v1=${createHmac('sha256', secret).update(`${timestamp}.`).update(received.body).digest('hex')}`;
}

function completedEvent(id: string): PublicTranscriptionWebhookEvent {
	return {
		event: 'transcription.completed',
		event_id: `evt_${id}`,
		job_id: `job_${id}`,
		status: 'completed',
		created_at: '2026-11-22T10:00:00.000Z',
		links: {
			self: `http://127.0.0.1:4010/api/v1/transcriptions/job_${id}`,
			artifact: `http://127.0.0.1:4010/api/v1/transcriptions/job_${id}/artifact`,
		},
	};
}

const openReceivers: Receiver[] = [];
const openDispatchers: WebhookDispatcher[] = [];

afterEach(async () => {
	await Promise.all(openDispatchers.splice(0).map((dispatcher) => dispatcher.close()));
	await Promise.all(openReceivers.splice(0).map((receiver) => receiver.close()));
});

async function receiver(replies: Reply[] = []): Promise<Receiver> {
	const started = await Receiver.start(replies);
	openReceivers.push(started);
	return started;
}

/** A dispatcher on a frozen sandbox clock: only advances move time, so every due time is exact. */
function dispatcher(overrides: Partial<WebhookDispatcherOptions> = {}): {
	clock: SandboxClock;
	webhooks: WebhookDispatcher;
} {
	const clock = overrides.clock ?? new SandboxClock(() => FROZEN_MS);
	const webhooks = new WebhookDispatcher({
		clock,
		timeScale: 1,
		allowLocalWebhooks: true,
		random: () => 0.5,
		...overrides,
	});
	openDispatchers.push(webhooks);
	return { clock, webhooks };
}

/** Advances the sandbox clock by `seconds`, then waits for whatever became due. */
async function advance(
	clock: SandboxClock,
	webhooks: WebhookDispatcher,
	seconds: number,
): Promise<void> {
	clock.advance(seconds);
	await webhooks.whenIdle();
}

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

describe('event delivery', () => {
	it('POSTs the canonical JSON bytes with the four X-Service-* headers, signed over timestamp.body', async () => {
		const target = await receiver();
		const { webhooks } = dispatcher();
		const event = completedEvent('1');

		webhooks.enqueue({ url: target.url('/hook?source=sandbox'), secret: SECRET, event });
		await webhooks.whenIdle();

		expect(target.received).toHaveLength(1);
		const [received] = target.received;
		expect(received.path).toBe('/hook?source=sandbox');
		expect(received.body.toString('utf8')).toBe(
			'{"created_at":"2026-11-22T10:00:00.000Z","event":"transcription.completed","event_id":"evt_1","job_id":"job_1",' +
				'"links":{"artifact":"http://127.0.0.1:4010/api/v1/transcriptions/job_1/artifact",' +
				'"self":"http://127.0.0.1:4010/api/v1/transcriptions/job_1"},"status":"completed"}',
		);
		expect(received.body.toString('utf8')).toBe(canonicalJson(event));
		expect(received.headers['content-type']).toBe('application/json');
		expect(received.headers['content-length']).toBe(String(received.body.length));
		expect(received.headers['x-service-event']).toBe('transcription.completed');
		expect(received.headers['x-service-event-id']).toBe('evt_1');
		expect(received.headers['x-service-timestamp']).toBe(String(FROZEN_SECONDS));
		expect(received.headers['x-service-signature']).toBe(expectedSignature(SECRET, received));
		expect(received.headers.authorization).toBeUndefined();

		expect(webhooks.deliveries()).toEqual([
			{
				kind: 'event',
				event_id: 'evt_1',
				event: 'transcription.completed',
				url: target.url('/hook?source=sandbox'),
				attempt: 1,
				headers: {
					'Content-Type': 'application/json',
					'Content-Length': String(received.body.length),
					'X-Service-Event': 'transcription.completed',
					'X-Service-Event-ID': 'evt_1',
					'X-Service-Timestamp': String(FROZEN_SECONDS),
					'X-Service-Signature': expectedSignature(SECRET, received),
				},
				body: received.body.toString('utf8'),
				status_code: 200,
				error: null,
				outcome: 'delivered',
				next_attempt_at: null,
				at: '2026-11-22T10:00:00.000Z',
			},
		]);
	});

	it('escapes non-ASCII text as \\uXXXX in the bytes it signs and sends', async () => {
		const target = await receiver();
		const { webhooks } = dispatcher();
		const event = { ...completedEvent('2'), job_id: 'job_שלום' };

		webhooks.enqueue({ url: target.url(), secret: SECRET, event });
		await webhooks.whenIdle();

		const [received] = target.received;
		expect(received.body.toString('latin1')).toContain(
			'"job_id":"job_\\u05e9\\u05dc\\u05d5\\u05dd"',
		);
		expect(received.headers['x-service-signature']).toBe(expectedSignature(SECRET, received));
	});

	it.each<[string, Reply, number | null, string]>([
		['500', 500, 500, 'target answered 500'],
		['503', 503, 503, 'target answered 503'],
		['429', 429, 429, 'target answered 429'],
		['408', 408, 408, 'target answered 408'],
		['425', 425, 425, 'target answered 425'],
		['a connection reset', 'reset', null, 'connection reset'],
	])(
		'retries after %s, re-signed with a fresh timestamp and the same event_id',
		async (_name, reply, status, error) => {
			const target = await receiver([reply, 200]);
			const { clock, webhooks } = dispatcher();

			webhooks.enqueue({ url: target.url(), secret: SECRET, event: completedEvent('3') });
			await webhooks.whenIdle();
			expect(target.received).toHaveLength(1);
			await advance(clock, webhooks, HOUR);

			expect(target.received).toHaveLength(2);
			expect(target.received.map((received) => received.headers['x-service-timestamp'])).toEqual([
				String(FROZEN_SECONDS),
				String(FROZEN_SECONDS + HOUR),
			]);
			expect(target.received.map((received) => received.headers['x-service-event-id'])).toEqual([
				'evt_3',
				'evt_3',
			]);
			for (const received of target.received) {
				expect(received.headers['x-service-signature']).toBe(expectedSignature(SECRET, received));
				expect(received.body.toString('utf8')).toBe(canonicalJson(completedEvent('3')));
			}
			expect(
				webhooks.deliveries().map(({ attempt, status_code, error, outcome, next_attempt_at }) => ({
					attempt,
					status_code,
					error,
					outcome,
					next_attempt_at,
				})),
			).toEqual([
				// random 0.5: no jitter, so the first retry is due exactly 60 s later.
				{
					attempt: 1,
					status_code: status,
					error,
					outcome: 'retry_scheduled',
					next_attempt_at: '2026-11-22T10:01:00.000Z',
				},
				{ attempt: 2, status_code: 200, error: null, outcome: 'delivered', next_attempt_at: null },
			]);
		},
	);

	it('succeeds on the fifth attempt after four different failures', async () => {
		const target = await receiver([500, 429, 'reset', 408, 204]);
		const { clock, webhooks } = dispatcher();

		webhooks.enqueue({ url: target.url(), secret: SECRET, event: completedEvent('4') });
		await webhooks.whenIdle();
		for (let step = 0; step < 4; step++) await advance(clock, webhooks, 3 * HOUR);

		expect(
			webhooks.deliveries().map(({ attempt, status_code, error }) => [attempt, status_code, error]),
		).toEqual([
			[1, 500, 'target answered 500'],
			[2, 429, 'target answered 429'],
			[3, null, 'connection reset'],
			[4, 408, 'target answered 408'],
			[5, 204, null],
		]);
		expect(
			new Set(target.received.map((received) => received.headers['x-service-timestamp'])).size,
		).toBe(5);
	});

	it('gives up after 5 attempts', async () => {
		const target = await receiver([503, 503, 503, 503, 503, 503, 503]);
		const { clock, webhooks } = dispatcher();

		webhooks.enqueue({ url: target.url(), secret: SECRET, event: completedEvent('5') });
		await webhooks.whenIdle();
		for (let step = 0; step < 8; step++) await advance(clock, webhooks, 3 * HOUR);

		expect(target.received).toHaveLength(5);
		expect(webhooks.deliveries().map(({ attempt, outcome }) => [attempt, outcome])).toEqual([
			[1, 'retry_scheduled'],
			[2, 'retry_scheduled'],
			[3, 'retry_scheduled'],
			[4, 'retry_scheduled'],
			[5, 'attempts_exhausted'],
		]);
		expect(webhooks.deliveries()[4].next_attempt_at).toBeNull();
	});

	it.each([400, 404, 409, 410, 302, 301])('does not retry a %i answer', async (status) => {
		const target = await receiver([status]);
		const { clock, webhooks } = dispatcher();

		webhooks.enqueue({ url: target.url(), secret: SECRET, event: completedEvent('6') });
		await webhooks.whenIdle();
		await advance(clock, webhooks, 24 * HOUR);

		expect(target.received.map((received) => received.path)).toEqual(['/hook']);
		const redirectNote = status >= 300 && status < 400 ? '; redirects are not followed' : '';
		expect(
			webhooks
				.deliveries()
				.map(({ status_code, error, outcome, next_attempt_at }) => [
					status_code,
					error,
					outcome,
					next_attempt_at,
				]),
		).toEqual([[status, `target answered ${status}${redirectNote}`, 'not_retried', null]]);
	});

	it('keeps the newest attempts once the delivery log is full', async () => {
		const target = await receiver();
		const { webhooks } = dispatcher({ maxDeliveryRecords: 3 });

		for (const id of ['a', 'b', 'c', 'd', 'e']) {
			webhooks.enqueue({ url: target.url(), secret: SECRET, event: completedEvent(id) });
			await webhooks.whenIdle();
		}

		expect(target.received).toHaveLength(5);
		expect(webhooks.deliveries().map(({ event_id }) => event_id)).toEqual([
			'evt_c',
			'evt_d',
			'evt_e',
		]);
	});

	it('spaces the 5 attempts over three hours: 1 min, 9 min, 50 min, 2 h on the sandbox clock', async () => {
		const target = await receiver([500, 500, 500, 500, 500]);
		const { clock, webhooks } = dispatcher({ random: () => 0.5 });

		webhooks.enqueue({ url: target.url(), secret: SECRET, event: completedEvent('7') });
		await webhooks.whenIdle();
		for (let elapsed = 0; elapsed < 5 * HOUR && target.received.length < 5; elapsed += 10) {
			await advance(clock, webhooks, 10);
		}

		const startedAt = webhooks.deliveries().map(({ at }) => Date.parse(at) / 1000);
		const gaps = startedAt.slice(1).map((at, index) => at - startedAt[index]);
		expect(gaps).toEqual([60, 540, 3000, 7200]);
		expect(startedAt[4] - startedAt[0]).toBe(3 * HOUR);
		expect(
			target.received.map(
				(received) => Number(received.headers['x-service-timestamp']) - FROZEN_SECONDS,
			),
		).toEqual([0, 60, 600, 3600, 10800]);
	});

	it.each([
		['shortest', () => 0, [48, 432, 2400, 5760]],
		['longest', () => 0.999999, [72, 648, 3600, 8640]],
	])('jitters each wait by at most 20 %% (%s)', async (_name, random, waits) => {
		const target = await receiver([500, 500, 500, 500, 500]);
		const { clock, webhooks } = dispatcher({ random });

		webhooks.enqueue({ url: target.url(), secret: SECRET, event: completedEvent('8') });
		await webhooks.whenIdle();
		for (const [index, wait] of waits.entries()) {
			await advance(clock, webhooks, wait - 1);
			expect(target.received).toHaveLength(index + 1);
			await advance(clock, webhooks, 1);
			expect(target.received).toHaveLength(index + 2);
		}
	});

	it('runs retries from a real timer when timeScale shrinks the schedule', async () => {
		const target = await receiver([500, 502, 200]);
		const { webhooks } = dispatcher({ clock: new SandboxClock(), timeScale: 0.0001 });

		webhooks.enqueue({ url: target.url(), secret: SECRET, event: completedEvent('9') });
		await target.waitFor(3);
		await webhooks.whenIdle();

		expect(webhooks.deliveries().map(({ attempt, status_code }) => [attempt, status_code])).toEqual(
			[
				[1, 500],
				[2, 502],
				[3, 200],
			],
		);
	});

	it('stops an attempt at the request timeout and retries it', async () => {
		const target = await receiver(['hang', 200]);
		const { clock, webhooks } = dispatcher({ requestTimeoutMs: 200 });

		webhooks.enqueue({ url: target.url(), secret: SECRET, event: completedEvent('10') });
		await webhooks.whenIdle();
		await advance(clock, webhooks, HOUR);

		expect(webhooks.deliveries().map(({ status_code, error }) => [status_code, error])).toEqual([
			[null, 'timed out after 0.2 s'],
			[200, null],
		]);
	});

	it('connects to the address it checked, never asking DNS again', async () => {
		const target = await receiver();
		const resolveHost = jest.fn<ReturnType<HostResolver>, Parameters<HostResolver>>(async () => [
			{ address: '127.0.0.1', family: 4 },
		]);
		const { webhooks } = dispatcher({ resolveHost });
		const url = `http://hooks.customer.internal:${target.port}/hook`;

		await expect(webhooks.validateTarget(url)).resolves.toEqual({ ok: true });
		webhooks.enqueue({ url, secret: SECRET, event: completedEvent('11') });
		await webhooks.whenIdle();

		expect(target.received.map((received) => received.headers.host)).toEqual([
			`hooks.customer.internal:${target.port}`,
		]);
		expect(resolveHost).toHaveBeenCalledTimes(2);
	});

	it('re-checks the target before every attempt and sends nothing once DNS points at a private address', async () => {
		const target = await receiver();
		const answers = [
			[{ address: '127.0.0.1', family: 4 as const }],
			[{ address: '10.0.0.7', family: 4 as const }],
		];
		const resolveHost: HostResolver = async () => answers.shift() ?? [];
		const { clock, webhooks } = dispatcher({ resolveHost });
		const url = `http://rebinding.customer.internal:${target.port}/hook`;

		await expect(webhooks.validateTarget(url)).resolves.toEqual({ ok: true });
		webhooks.enqueue({ url, secret: SECRET, event: completedEvent('12') });
		await webhooks.whenIdle();
		await advance(clock, webhooks, 24 * HOUR);

		expect(target.received).toHaveLength(0);
		expect(
			webhooks.deliveries().map(({ attempt, status_code, error }) => [attempt, status_code, error]),
		).toEqual([[1, null, `not sent: ${FORBIDDEN_MESSAGE}`]]);
	});

	it('retries when the target stops resolving for a while', async () => {
		const target = await receiver();
		const answers = [[], [{ address: '127.0.0.1', family: 4 as const }]];
		const resolveHost: HostResolver = async () => answers.shift() ?? [];
		const { clock, webhooks } = dispatcher({ resolveHost });
		const url = `http://flaky-dns.customer.internal:${target.port}/hook`;

		webhooks.enqueue({ url, secret: SECRET, event: completedEvent('13') });
		await webhooks.whenIdle();
		await advance(clock, webhooks, HOUR);

		expect(
			webhooks.deliveries().map(({ attempt, status_code, error }) => [attempt, status_code, error]),
		).toEqual([
			[1, null, 'not sent: webhook_url hostname "flaky-dns.customer.internal" does not resolve'],
			[2, 200, null],
		]);
		expect(target.received).toHaveLength(1);
	});

	it('close() drops pending retries and aborts an open request', async () => {
		const target = await receiver(['hang']);
		const { clock, webhooks } = dispatcher();

		webhooks.enqueue({ url: target.url(), secret: SECRET, event: completedEvent('14') });
		await target.waitFor(1);
		await webhooks.close();
		clock.advance(24 * HOUR);
		await webhooks.whenIdle();

		expect(target.received).toHaveLength(1);
		expect(webhooks.deliveries().map(({ error }) => error)).toEqual([
			'cancelled: the sandbox is shutting down',
		]);
	});
});

describe('sendTest (POST /webhooks/test)', () => {
	const baseUrl = 'http://127.0.0.1:4010';

	it('sends one signed webhook.test delivery with the 2.6 body and reports it delivered', async () => {
		const target = await receiver();
		const { webhooks } = dispatcher();

		const response = await webhooks.sendTest({
			url: target.url(),
			secret: SECRET,
			eventType: 'transcription.failed',
			baseUrl,
		});

		expect(target.received).toHaveLength(1);
		const [received] = target.received;
		const body = JSON.parse(received.body.toString('utf8')) as PublicWebhookTestDelivery;
		expect(response).toEqual({
			ok: true,
			event_id: body.event_id,
			delivered: true,
			status_code: 200,
			error: null,
		});
		expect(body).toEqual({
			event: 'transcription.failed',
			event_id: expect.stringMatching(/^evt_test_[0-9a-f]+$/),
			job_id: expect.stringMatching(/^job_test_[0-9a-f]+$/),
			status: 'completed',
			test_mode: true,
			links: {
				self: `${baseUrl}/api/v1/transcriptions/${body.job_id}`,
				artifact: `${baseUrl}/api/v1/transcriptions/${body.job_id}/artifact`,
			},
		});
		expect(received.body.toString('utf8')).toBe(canonicalJson(body));
		expect(received.headers['x-service-event']).toBe('webhook.test');
		expect(received.headers['x-service-event-id']).toBe(body.event_id);
		expect(received.headers['x-service-timestamp']).toBe(String(FROZEN_SECONDS));
		expect(received.headers['x-service-signature']).toBe(expectedSignature(SECRET, received));
		expect(webhooks.deliveries()).toMatchObject([
			{
				kind: 'test',
				event_id: body.event_id,
				event: 'transcription.failed',
				attempt: 1,
				status_code: 200,
				error: null,
				outcome: 'delivered',
			},
		]);
	});

	it('builds the synthetic links under a custom path prefix', async () => {
		const target = await receiver();
		const { webhooks } = dispatcher();

		await webhooks.sendTest({
			url: target.url(),
			secret: SECRET,
			eventType: 'transcription.completed',
			baseUrl: 'http://127.0.0.1:4010/',
			pathPrefix: '/custom/v1',
		});

		const [body] = target.bodies();
		expect(body.links).toEqual({
			self: `http://127.0.0.1:4010/custom/v1/transcriptions/${body.job_id}`,
			artifact: `http://127.0.0.1:4010/custom/v1/transcriptions/${body.job_id}/artifact`,
		});
	});

	it('reports a 500 answer as not delivered and does not retry', async () => {
		const target = await receiver([500]);
		const { clock, webhooks } = dispatcher();

		const response = await webhooks.sendTest({
			url: target.url(),
			secret: SECRET,
			eventType: 'transcription.completed',
			baseUrl,
		});
		await advance(clock, webhooks, 24 * HOUR);

		expect(response).toEqual({
			ok: true,
			event_id: target.bodies()[0].event_id,
			delivered: false,
			status_code: 500,
			error: 'target answered 500',
		});
		expect(target.received).toHaveLength(1);
		expect(webhooks.deliveries()).toMatchObject([
			{ kind: 'test', status_code: 500, outcome: 'not_retried', next_attempt_at: null },
		]);
	});

	it('reports a refused connection when nothing listens', async () => {
		const closed = await Receiver.start();
		const url = closed.url();
		await closed.close();
		const { webhooks } = dispatcher();

		const response = await webhooks.sendTest({
			url,
			secret: SECRET,
			eventType: 'transcription.completed',
			baseUrl,
		});

		expect(response).toEqual({
			ok: true,
			event_id: expect.stringMatching(/^evt_test_/),
			delivered: false,
			status_code: null,
			error: 'connection refused',
		});
	});
});

describe('faults', () => {
	it('duplicates a delivered event: same event_id and bytes, a fresh timestamp and signature', async () => {
		const { clock, webhooks } = dispatcher();
		// The receiver lets 7 sandbox seconds pass before it answers, so the resend is signed later.
		const target = await receiver([
			(_request, response) => {
				clock.advance(7);
				response.writeHead(200).end();
			},
		]);
		webhooks.setFaults({ duplicateProbability: 1 });

		webhooks.enqueue({ url: target.url(), secret: SECRET, event: completedEvent('20') });
		await webhooks.whenIdle();

		expect(target.received).toHaveLength(2);
		expect(target.received.map((received) => received.headers['x-service-event-id'])).toEqual([
			'evt_20',
			'evt_20',
		]);
		expect(target.received.map((received) => received.headers['x-service-timestamp'])).toEqual([
			String(FROZEN_SECONDS),
			String(FROZEN_SECONDS + 7),
		]);
		expect(target.received[1].body).toEqual(target.received[0].body);
		for (const received of target.received) {
			expect(received.headers['x-service-signature']).toBe(expectedSignature(SECRET, received));
		}
	});

	it('holds an event back until the next event for the same URL has been sent', async () => {
		const target = await receiver();
		const draws = [0.1, 0.9];
		const { webhooks } = dispatcher({ random: () => draws.shift() ?? 0.9 });
		webhooks.setFaults({ reorderProbability: 0.5 });

		webhooks.enqueue({ url: target.url(), secret: SECRET, event: completedEvent('first') });
		webhooks.enqueue({ url: target.url(), secret: SECRET, event: completedEvent('second') });
		await webhooks.whenIdle();

		expect(target.bodies().map(({ event_id }) => event_id)).toEqual(['evt_second', 'evt_first']);
	});

	it('releases a held event after 5 sandbox seconds when no other event comes', async () => {
		const target = await receiver();
		const { clock, webhooks } = dispatcher({ random: () => 0.1 });
		webhooks.setFaults({ reorderProbability: 0.5 });

		webhooks.enqueue({ url: target.url(), secret: SECRET, event: completedEvent('alone') });
		await advance(clock, webhooks, 4);
		expect(target.received).toHaveLength(0);
		await advance(clock, webhooks, 1);

		expect(target.bodies().map(({ event_id }) => event_id)).toEqual(['evt_alone']);
	});

	it('replays the same duplicates and order for the same seed', async () => {
		const target = await receiver();
		const { webhooks } = dispatcher();
		webhooks.setFaults({ duplicateProbability: 0.5, reorderProbability: 0.5 });

		const runWithSeed = async (seed: number): Promise<string[]> => {
			const before = target.received.length;
			webhooks.setRandom(mulberry32(seed));
			for (let index = 0; index < 12; index++) {
				webhooks.enqueue({
					url: target.url(),
					secret: SECRET,
					event: completedEvent(`seeded_${index}`),
				});
				await webhooks.whenIdle();
			}
			// The last event may still be held: a final event for the same URL releases it.
			webhooks.setFaults({});
			webhooks.enqueue({ url: target.url(), secret: SECRET, event: completedEvent('flush') });
			await webhooks.whenIdle();
			webhooks.setFaults({ duplicateProbability: 0.5, reorderProbability: 0.5 });
			return target
				.bodies()
				.slice(before)
				.map(({ event_id }) => event_id);
		};

		const first = await runWithSeed(2026);
		const second = await runWithSeed(2026);

		expect(second).toEqual(first);
		const uniqueInOrder = first.filter((eventId, index) => first.indexOf(eventId) === index);
		expect(new Set(first).size).toBe(13);
		expect(first.length).toBeGreaterThan(13);
		expect(uniqueInOrder).not.toEqual([
			...Array.from({ length: 12 }, (_, index) => `evt_seeded_${index}`),
			'evt_flush',
		]);
	});
});
