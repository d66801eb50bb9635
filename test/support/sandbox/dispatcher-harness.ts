// The harness of the sandbox-service tier's dispatcher tests (spec section 6), on loopback only: a local receiver,
// a frozen sandbox clock moved by advances, and signatures checked with node:crypto directly (not our verifier).

import { createHmac } from 'node:crypto';
import http, {
	type IncomingHttpHeaders,
	type IncomingMessage,
	type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

import type { PublicTranscriptionWebhookEvent } from '../../../src/api';
import { SandboxClock } from '../../../sandbox/clock';
import { WebhookDispatcher, type WebhookDispatcherOptions } from '../../../sandbox/webhooks';

export const SECRET = 'whsec_sandbox_test_secret';
export const FROZEN_MS = Date.UTC(2026, 10, 22, 10, 0, 0);
export const FROZEN_SECONDS = FROZEN_MS / 1000;
export const HOUR = 3600;
export const FORBIDDEN_MESSAGE =
	'webhook_url resolves to a forbidden network range (loopback, private, link-local, multicast or reserved)';

export type Reply =
	number | 'reset' | 'hang' | ((request: IncomingMessage, response: ServerResponse) => void);

export interface Received {
	path: string;
	headers: IncomingHttpHeaders;
	body: Buffer;
}

/** A loopback HTTP receiver answering the scripted replies in order, then 200. */
export class Receiver {
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
export function expectedSignature(secret: string, received: Received): string {
	const timestamp = String(received.headers['x-service-timestamp']);
	return `v1=${createHmac('sha256', secret).update(`${timestamp}.`).update(received.body).digest('hex')}`;
}

/** A transcription.completed event for job_<id>, with the links of a sandbox on port 4010. */
export function completedEvent(id: string): PublicTranscriptionWebhookEvent {
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

export interface DispatcherUnderTest {
	clock: SandboxClock;
	webhooks: WebhookDispatcher;
}

export interface DispatcherHarness {
	/** A receiver answering `replies` in order, then 200. */
	receiver(replies?: Reply[]): Promise<Receiver>;
	/** A dispatcher on a frozen sandbox clock: only advances move time, so every due time is exact. */
	dispatcher(overrides?: Partial<WebhookDispatcherOptions>): DispatcherUnderTest;
}

/** Receivers and dispatchers for one test file, closed after every test: call it once, at the top of the file. */
export function useDispatcherHarness(): DispatcherHarness {
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

	function dispatcher(overrides: Partial<WebhookDispatcherOptions> = {}): DispatcherUnderTest {
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

	return { receiver, dispatcher };
}

/** Advances the sandbox clock by `seconds`, then waits for whatever became due. */
export async function advance(
	clock: SandboxClock,
	webhooks: WebhookDispatcher,
	seconds: number,
): Promise<void> {
	clock.advance(seconds);
	await webhooks.whenIdle();
}
