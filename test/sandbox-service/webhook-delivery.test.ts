// The sandbox's webhook delivery against spec section 6, on loopback only: a local receiver, a frozen sandbox clock
// moved by advances, and signatures checked with node:crypto directly (not our verifier). Then the dispatcher's own
// faults: duplicates, events held back and released, the same faults for the same seed.

import { SandboxClock } from '../../sandbox/clock';
import { mulberry32 } from '../../sandbox/random';
import type { HostResolver } from '../../sandbox/webhooks';
import { canonicalJson } from '../../src/service';
import {
	advance,
	completedEvent,
	expectedSignature,
	FORBIDDEN_MESSAGE,
	FROZEN_SECONDS,
	HOUR,
	SECRET,
	useDispatcherHarness,
	type Reply,
} from '../support/sandbox/dispatcher-harness';

const { receiver, dispatcher } = useDispatcherHarness();

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
