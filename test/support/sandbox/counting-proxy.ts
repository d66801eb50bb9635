// A loopback reverse proxy in front of the sandbox that records every exchange a client makes: method, path,
// status (or how the connection died), the headers that matter for counting, and small JSON bodies. Benchmarks
// count GETs, 304s and 429s from it; reliability tests follow one item's requests through it. It relays resets
// and dropped answers faithfully: when the sandbox kills a connection, the client's connection dies too.

import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { OPERATIONS, type RateLimitBucket } from '../../../src/api';

/** Request and response bodies above this size are counted, not kept (media uploads, artifacts). */
const KEPT_BODY_BYTES = 16 * 1024;

export interface Exchange {
	sequence: number;
	method: string;
	/** Path and query as sent. */
	url: string;
	/** HTTP status, or 'no_response' when the sandbox closed the connection without answering. */
	status: number | 'no_response';
	ifNoneMatch: string | null;
	idempotencyKey: string | null;
	retryAfter: string | null;
	requestJson: unknown;
	responseJson: unknown;
	/** On the proxy's clock (see `now`). */
	startedAtMs: number;
	finishedAtMs: number;
}

export interface CountingProxyOptions {
	/** The clock exchanges are stamped with; pass the sandbox clock to compare with job timestamps. */
	now?: () => number;
}

export interface CountingProxy {
	baseUrl: string;
	exchanges: Exchange[];
	/** The clock exchanges are stamped with. */
	now(): number;
	/** Exchanges matching a method and a path pattern. */
	select(method: string, path: RegExp): Exchange[];
	close(): Promise<void>;
}

export async function startCountingProxy(
	targetBaseUrl: string,
	options: CountingProxyOptions = {},
): Promise<CountingProxy> {
	const now = options.now ?? Date.now;
	const target = new URL(targetBaseUrl);
	if (!['127.0.0.1', 'localhost', '[::1]'].includes(target.hostname)) {
		throw new Error(`the counting proxy only fronts a loopback sandbox, not ${target.hostname}`);
	}
	// A fresh connection per exchange: a pooled socket the sandbox had closed would fail a request with a reset the
	// sandbox never injected.
	const agent = new http.Agent({ keepAlive: false, maxSockets: 64 });
	const exchanges: Exchange[] = [];
	let sequence = 0;

	const server = http.createServer((request, response) => {
		const exchange: Exchange = {
			sequence: ++sequence,
			method: request.method ?? 'GET',
			url: request.url ?? '/',
			status: 'no_response',
			ifNoneMatch: headerText(request.headers['if-none-match']),
			idempotencyKey: headerText(request.headers['idempotency-key']),
			retryAfter: null,
			requestJson: undefined,
			responseJson: undefined,
			startedAtMs: now(),
			finishedAtMs: 0,
		};
		exchanges.push(exchange);
		relay(request, response, exchange);
	});

	function relay(request: IncomingMessage, response: ServerResponse, exchange: Exchange): void {
		const upstream = http.request({
			host: target.hostname.replace(/^\[|\]$/g, ''),
			port: target.port,
			method: request.method,
			path: request.url,
			headers: request.headers,
			agent,
		});
		const requestBody = collectSmall(request);
		upstream.on('response', (upstreamResponse) => {
			exchange.status = upstreamResponse.statusCode ?? 0;
			exchange.retryAfter = headerText(upstreamResponse.headers['retry-after']);
			response.writeHead(upstreamResponse.statusCode ?? 502, upstreamResponse.headers);
			const responseBody = collectSmall(upstreamResponse);
			upstreamResponse.pipe(response);
			upstreamResponse.on('end', () => {
				exchange.finishedAtMs = now();
				exchange.requestJson = parseJson(requestBody());
				exchange.responseJson = parseJson(responseBody());
			});
			upstreamResponse.on('error', () => response.destroy());
		});
		upstream.on('error', () => {
			exchange.finishedAtMs = now();
			exchange.requestJson = parseJson(requestBody());
			// The sandbox reset the connection (or dropped its answer): the client must see the same.
			response.destroy();
			request.socket.destroy();
		});
		request.pipe(upstream);
		request.on('aborted', () => upstream.destroy());
	}

	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}`,
		exchanges,
		now,
		select(method, pathPattern) {
			return exchanges.filter(
				(exchange) => exchange.method === method && pathPattern.test(exchange.url),
			);
		},
		async close() {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
			agent.destroy();
		},
	};
}

/** The rate-limit bucket an exchange draws from, by src/api's operation table; undefined for a path of no operation. */
export function bucketOf(exchange: Pick<Exchange, 'method' | 'url'>): RateLimitBucket | undefined {
	const path = exchange.url.split('?')[0];
	return Object.values(OPERATIONS).find(
		(operation) => operation.method === exchange.method && endsWithTemplate(path, operation.path),
	)?.bucket;
}

/** Whether a path ends in an operation's template ("/transcriptions/{job_id}"), each parameter one segment. */
function endsWithTemplate(path: string, template: string): boolean {
	const pattern = template.replace(/\./g, '\\.').replace(/\{\w+\}/g, '[^/]+');
	return new RegExp(`${pattern}$`).test(path);
}

function headerText(value: string | string[] | undefined): string | null {
	if (value === undefined) return null;
	return Array.isArray(value) ? value.join(', ') : value;
}

/** Keeps the first KEPT_BODY_BYTES of a stream without slowing it; returns a reader for what was kept. */
function collectSmall(stream: IncomingMessage): () => Buffer | null {
	const chunks: Buffer[] = [];
	let size = 0;
	let overflow = false;
	stream.on('data', (chunk: Buffer) => {
		size += chunk.length;
		if (size > KEPT_BODY_BYTES) {
			overflow = true;
			chunks.length = 0;
		} else if (!overflow) {
			chunks.push(chunk);
		}
	});
	return () => (overflow || size === 0 ? null : Buffer.concat(chunks));
}

function parseJson(bytes: Buffer | null): unknown {
	if (bytes === null) return undefined;
	try {
		return JSON.parse(bytes.toString('utf8')) as unknown;
	} catch {
		return undefined;
	}
}
