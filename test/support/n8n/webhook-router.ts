// The small load balancer in front of a queue-mode n8n, as n8n's queue-mode docs lay it out: production webhooks
// (`/webhook/…`, `/form/…`) and resume calls (`/webhook-waiting/…`, `/form-waiting/…`) go to the webhook processors
// in turn, everything else (the editor, REST and public API, test webhooks) to the main. It records where every
// request went, so tests count which processor received what. Deliveries can instead go by a hash of their event id
// (what the README recommends for the trigger), and two behaviours are for tests only: a redelivery of an event can
// be sent to a processor that has not had it (the worst case for deduplication), the answer to a delivery can be lost
// after the processor handled it (what makes the service deliver again), and every webhook process can be down at
// once (the router refuses the connection, or answers 503 as a load balancer with no healthy backend does).
import { createHash } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RouterTarget {
	name: string;
	port: number;
}

export interface RoutedRequest {
	sequence: number;
	method: string;
	/** Path and query as received. */
	url: string;
	/** The process it was sent to ('none' during an outage). */
	target: string;
	/**
	 * HTTP status the process answered (503 with target 'none': the router's own, during an outage), or how the exchange
	 * ended without one reaching the caller: 'refused' during an outage, 'answer_lost' when `loseAnswer` chose it.
	 */
	status: number | 'no_response' | 'answer_lost' | 'refused';
	/** X-Service-Event-ID of a delivery, when it carries one. */
	eventId: string | null;
	/** The answer's body when it is short JSON (a webhook's acknowledgement), else undefined. */
	answer: unknown;
	startedAtMs: number;
	finishedAtMs: number;
}

export type RoutingPolicy =
	/** Each webhook request to the next processor. */
	| 'round-robin'
	/** As round robin, but a delivery whose event_id was routed before goes to a processor that has not had it. */
	| 'redelivery-to-another-processor'
	/**
	 * Every delivery of one event to the same processor, chosen by a hash of its X-Service-Event-ID (nginx:
	 * `hash $http_x_service_event_id consistent`); requests without the header in turn.
	 */
	| 'event-affinity';

const WEBHOOK_PATHS = /^\/(webhook|webhook-waiting|form|form-waiting)\//;

/** Answers kept in the records: a webhook's acknowledgement, not an artifact or a page. */
const KEPT_ANSWER_BYTES = 4096;

export class WebhookRouter {
	readonly records: RoutedRequest[] = [];
	policy: RoutingPolicy = 'round-robin';
	/**
	 * Whether to lose the answer to a webhook request once its process has handled it (the service never hears, and
	 * delivers again); `firstOfEvent`: no earlier request carried its X-Service-Event-ID.
	 */
	loseAnswer: (request: RoutedRequest, firstOfEvent: boolean) => boolean = () => false;
	/**
	 * Every webhook process down: 'refuse' closes each webhook request's connection unanswered (nothing listening),
	 * 'unavailable' answers it 503 (a load balancer with no healthy backend). The main stays reachable.
	 */
	outage: 'refuse' | 'unavailable' | undefined;
	// A fresh connection to a processor for every request: a kept-alive one can be closed by n8n (5 s idle) just as
	// the next request goes out on it, and a request body already streamed cannot be sent again.
	private readonly agent = new http.Agent({ keepAlive: false, maxSockets: 256 });
	private next = 0;
	private sequence = 0;

	private constructor(
		private readonly server: http.Server,
		readonly baseUrl: string,
		private readonly main: RouterTarget,
		private readonly processors: readonly RouterTarget[],
	) {}

	static async start(main: RouterTarget, processors: RouterTarget[]): Promise<WebhookRouter> {
		if (processors.length === 0) throw new Error('the router needs at least one webhook processor');
		// Callers' idle connections outlive their own keep-alive timers, so none is closed under a request being sent.
		const server = http.createServer({ keepAliveTimeout: 65_000, headersTimeout: 66_000 });
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		const { port } = server.address() as AddressInfo;
		const router = new WebhookRouter(server, `http://127.0.0.1:${port}`, main, processors);
		server.on('request', (request: IncomingMessage, response: ServerResponse) =>
			router.route(request, response),
		);
		return router;
	}

	private choose(request: IncomingMessage, eventId: string | null): RouterTarget {
		const path = request.url ?? '/';
		if (!WEBHOOK_PATHS.test(path)) return this.main;
		if (this.policy === 'event-affinity' && eventId !== null) {
			const hash = createHash('sha256').update(eventId).digest().readUInt32BE(0);
			return this.processors[hash % this.processors.length];
		}
		if (this.policy === 'redelivery-to-another-processor' && eventId !== null) {
			const had = new Set(
				this.records.filter((record) => record.eventId === eventId).map((record) => record.target),
			);
			const fresh = this.processors.find(({ name }) => !had.has(name));
			if (fresh) return fresh;
		}
		const target = this.processors[this.next % this.processors.length];
		this.next++;
		return target;
	}

	private route(request: IncomingMessage, response: ServerResponse): void {
		const eventIdHeader = request.headers['x-service-event-id'];
		const eventId = typeof eventIdHeader === 'string' ? eventIdHeader : null;
		const firstOfEvent =
			eventId !== null && !this.records.some((record) => record.eventId === eventId);
		const isWebhook = WEBHOOK_PATHS.test(request.url ?? '/');
		if (isWebhook && this.outage) {
			this.refuse(request, response, eventId, this.outage);
			return;
		}
		const target = this.choose(request, eventId);
		const record: RoutedRequest = {
			sequence: ++this.sequence,
			method: request.method ?? 'GET',
			url: request.url ?? '/',
			target: target.name,
			status: 'no_response',
			eventId,
			answer: undefined,
			startedAtMs: Date.now(),
			finishedAtMs: 0,
		};
		this.records.push(record);
		const loseAnswer = isWebhook && this.loseAnswer(record, firstOfEvent);

		const upstream = http.request({
			host: '127.0.0.1',
			port: target.port,
			method: request.method,
			path: request.url,
			headers: endToEndHeaders(request.headers),
			agent: this.agent,
		});
		upstream.on('response', (answer) => {
			record.finishedAtMs = Date.now();
			if (loseAnswer) {
				// The processor has accepted the delivery; its caller never hears so.
				record.status = 'answer_lost';
				answer.resume();
				request.socket.destroy();
				return;
			}
			record.status = answer.statusCode ?? 0;
			response.writeHead(answer.statusCode ?? 502, endToEndHeaders(answer.headers));
			if (answer.headers['content-type']?.includes('application/json')) keepAnswer(answer, record);
			answer.pipe(response);
			answer.on('error', () => response.destroy());
		});
		upstream.on('error', () => {
			record.finishedAtMs = Date.now();
			response.destroy();
		});
		request.pipe(upstream);
		request.on('aborted', () => upstream.destroy());
	}

	/** The router's own answer while every webhook process is down. */
	private refuse(
		request: IncomingMessage,
		response: ServerResponse,
		eventId: string | null,
		outage: 'refuse' | 'unavailable',
	): void {
		const now = Date.now();
		this.records.push({
			sequence: ++this.sequence,
			method: request.method ?? 'GET',
			url: request.url ?? '/',
			target: 'none',
			status: outage === 'refuse' ? 'refused' : 503,
			eventId,
			answer: undefined,
			startedAtMs: now,
			finishedAtMs: now,
		});
		request.resume();
		if (outage === 'refuse') {
			request.socket.destroy();
			return;
		}
		response.writeHead(503, { 'content-type': 'text/plain', connection: 'close' });
		response.end('No webhook process is available');
	}

	async close(): Promise<void> {
		this.server.closeAllConnections();
		await new Promise<void>((resolve) => this.server.close(() => resolve()));
		this.agent.destroy();
	}
}

/** The headers a proxy passes on: each hop's connection headers belong to that hop (RFC 9110 §7.6.1). */
function endToEndHeaders<T extends http.IncomingHttpHeaders>(headers: T): T {
	const rest = { ...headers };
	delete rest.connection;
	delete rest['keep-alive'];
	return rest;
}

function keepAnswer(answer: IncomingMessage, record: RoutedRequest): void {
	const chunks: Buffer[] = [];
	let size = 0;
	answer.on('data', (chunk: Buffer) => {
		size += chunk.length;
		if (size <= KEPT_ANSWER_BYTES) chunks.push(chunk);
	});
	answer.on('end', () => {
		if (size > KEPT_ANSWER_BYTES) return;
		try {
			record.answer = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
		} catch {
			record.answer = undefined;
		}
	});
}
