// Shared by the sandbox tests: a sandbox per test file, a small HTTP client over undici, envelope
// assertions, the upload → job steps, and a loopback webhook receiver.

import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import { request } from 'undici';
import type {
	PublicAPIErrorEnvelope,
	PublicTranscriptionCreateResponse,
	PublicUploadCreateResponse,
} from '../../../src/api';
import { SandboxAdmin } from '../../../sandbox/admin-client';
import type { RunningSandbox, SandboxOptions } from '../../../sandbox/server';
import { startSandbox } from '../../../sandbox/server';
import { controlledClock } from '../clock/controlled-clock';
import { makeWav } from '../fixtures/media';

/** For files that make many requests: no test there is about rate limits (rate-limits.test.ts is). */
export const GENEROUS_LIMITS = { perTier: { premium: 10_000, platinum: 10_000 } };

/**
 * Moves the sandbox's clock to the start of its next `windowSeconds` rate-limit window, so that a test which spends a
 * window and expects it to stay spent has all of it, wherever the wall clock stands. The sandbox starts windows at
 * multiples of their length on its own clock, which only moves forward: the jump (at most one window) also moves
 * jobs, slot expiry and webhook schedules on, and X-RateLimit-Reset then lies that much past the wall clock n8n reads.
 */
export async function startRateLimitWindow(
	admin: SandboxAdmin,
	windowSeconds: number,
): Promise<void> {
	const windowMs = windowSeconds * 1000;
	const nowMs = Date.parse((await admin.clock()).now);
	await admin.advanceClock((windowMs - (nowMs % windowMs)) / 1000);
}

/** Jobs acted on as they appear (see `actOnNewJobs`). */
export interface NewJobs {
	/** The jobs acted on so far, oldest first. */
	readonly done: string[];
	/** Stops watching; acts on any job that appeared meanwhile; resolves with every job acted on, oldest first. */
	stop(): Promise<string[]>;
}

/**
 * Acts on every job of the account the moment it exists (looking every 20 ms, and on a controlled clock whenever the
 * process is idle, before any timer fires: test/support/clock): held, so that a test decides when each one ends, or
 * completed at once.
 */
export function actOnNewJobs(
	admin: SandboxAdmin,
	accountId: string,
	act: (jobId: string) => Promise<unknown>,
): NewJobs {
	const done: string[] = [];
	let stopped = false;
	let looking: Promise<boolean> | undefined;
	/** One look at a time; true when it acted on a job. */
	const actOnNew = () =>
		(looking ??= (async () => {
			let acted = false;
			for (const { job_id: jobId } of (await admin.records(accountId)).jobs) {
				if (done.includes(jobId)) continue;
				await act(jobId);
				done.push(jobId);
				acted = true;
			}
			return acted;
		})().finally(() => (looking = undefined)));
	// On a controlled clock it also looks whenever the process is idle, before any timer fires (a job's end among them).
	const stopLookingOut = controlledClock()?.lookOut(actOnNew);
	const acting = (async () => {
		while (!stopped) {
			await actOnNew();
			await new Promise((resolve) => setTimeout(resolve, 20));
		}
	})();
	return {
		done,
		async stop() {
			stopped = true;
			stopLookingOut?.();
			await acting;
			await actOnNew();
			return done;
		},
	};
}

/**
 * Every job of an account held the moment it exists, so the test decides when each one ends (a fault class that acts
 * mid-wait needs the jobs still running then); released, they are past their due time, so they end now.
 */
export class JobHolder {
	private readonly holding: NewJobs;

	constructor(
		private readonly admin: SandboxAdmin,
		accountId: string,
	) {
		this.holding = actOnNewJobs(admin, accountId, async (jobId) => await admin.holdJob(jobId));
	}

	/** The jobs held, oldest first. */
	get held(): readonly string[] {
		return this.holding.done;
	}

	/** Stops watching for new jobs (once the execution has paused, there are none). */
	async stop(): Promise<void> {
		await this.holding.stop();
	}

	async release(jobIds: readonly string[]): Promise<void> {
		await Promise.all(jobIds.map(async (jobId) => await this.admin.releaseJob(jobId)));
	}
}

export interface SandboxHandle {
	readonly sandbox: RunningSandbox;
	readonly admin: SandboxAdmin;
	readonly baseUrl: string;
}

/** One sandbox for the whole file (beforeAll/afterAll), on a free loopback port. */
export function useSandbox(options: SandboxOptions = {}): SandboxHandle {
	let running: RunningSandbox | undefined;
	let admin: SandboxAdmin | undefined;
	beforeAll(async () => {
		running = await startSandbox({ port: 0, quiet: true, ...options });
		admin = new SandboxAdmin(running.baseUrl);
	});
	afterAll(async () => {
		await running?.close();
	});
	const started = () => {
		if (!running || !admin) throw new Error('sandbox not started');
		return { running, admin };
	};
	return {
		get sandbox() {
			return started().running;
		},
		get admin() {
			return started().admin;
		},
		get baseUrl() {
			return started().running.baseUrl;
		},
	};
}

export interface ApiResponse {
	status: number;
	headers: Record<string, string>;
	bytes: Buffer;
	text: string;
	json: unknown;
}

export interface ApiRequest {
	method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
	path: string;
	/** An API key; null sends no Authorization header. */
	key: string | null;
	/** Sent as JSON with Content-Type application/json. */
	json?: unknown;
	body?: Buffer | string | Readable;
	headers?: Record<string, string>;
}

export async function api(baseUrl: string, options: ApiRequest): Promise<ApiResponse> {
	const headers: Record<string, string> = { ...options.headers };
	if (options.key !== null) headers.authorization = `Bearer ${options.key}`;
	let body = options.body;
	if (options.json !== undefined) {
		headers['content-type'] ??= 'application/json';
		body = JSON.stringify(options.json);
	}
	const response = await request(`${baseUrl}${options.path}`, {
		method: options.method ?? (body === undefined ? 'GET' : 'POST'),
		headers,
		body,
	});
	const bytes = Buffer.from(await response.body.arrayBuffer());
	const text = bytes.toString('utf8');
	let json: unknown = undefined;
	if ((response.headers['content-type'] ?? '').toString().startsWith('application/json'))
		json = JSON.parse(text);
	const flatHeaders = Object.fromEntries(
		Object.entries(response.headers).map(([name, value]) => [
			name,
			Array.isArray(value) ? value.join(', ') : String(value),
		]),
	);
	return { status: response.statusCode, headers: flatHeaders, bytes, text, json };
}

/** The 2.7 envelope with its code, request_id equal to X-Request-ID, and a resolution_url. */
export function expectError(
	response: ApiResponse,
	status: number,
	code: string,
): PublicAPIErrorEnvelope['error'] {
	expect({
		status: response.status,
		code: (response.json as PublicAPIErrorEnvelope | undefined)?.error?.code,
	}).toEqual({
		status,
		code,
	});
	const error = (response.json as PublicAPIErrorEnvelope).error;
	expect(typeof error.message).toBe('string');
	expect(error.request_id).toBe(response.headers['x-request-id']);
	expect(error.request_id).toMatch(/^req_[0-9a-f]+$/);
	expect(error.details.resolution_url).toMatch(
		/^http:\/\/127\.0\.0\.1:\d+\/developers\/api-reference#[a-z_]+$/,
	);
	return error;
}

export function expectRateLimitHeaders(response: ApiResponse): void {
	expect(response.headers['x-ratelimit-limit']).toMatch(/^\d+$/);
	expect(response.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
	expect(response.headers['x-ratelimit-reset']).toMatch(/^\d+$/);
}

export async function createSlot(
	baseUrl: string,
	key: string,
	slot: { filename: string; size_bytes: number; content_type?: string },
	headers: Record<string, string> = {},
): Promise<PublicUploadCreateResponse> {
	const response = await api(baseUrl, {
		path: '/api/v1/uploads',
		key,
		json: { content_type: 'audio/wav', ...slot },
		headers,
	});
	expect(response.status).toBe(201);
	return response.json as PublicUploadCreateResponse;
}

/** Slot + PUT of the bytes (a WAV of `seconds` by default): the upload_id, ready for a job. */
export async function uploadMedia(
	baseUrl: string,
	key: string,
	media: { filename?: string; bytes?: Buffer; seconds?: number } = {},
): Promise<string> {
	const bytes = media.bytes ?? makeWav({ seconds: media.seconds ?? 2 });
	const slot = await createSlot(baseUrl, key, {
		filename: media.filename ?? 'meeting.wav',
		size_bytes: bytes.length,
	});
	const put = await api(baseUrl, {
		method: 'PUT',
		path: slot.upload_url,
		key,
		body: bytes,
		headers: { 'content-type': 'application/octet-stream' },
	});
	expect(put.status).toBe(200);
	return slot.upload_id;
}

export async function createJob(
	baseUrl: string,
	key: string,
	fields: Record<string, unknown> & { upload_id: string },
): Promise<PublicTranscriptionCreateResponse> {
	const response = await api(baseUrl, { path: '/api/v1/transcriptions', key, json: fields });
	expect([200, 202]).toContain(response.status);
	return response.json as PublicTranscriptionCreateResponse;
}

export interface ReceivedHook {
	headers: http.IncomingHttpHeaders;
	body: string;
}

/** A loopback HTTP endpoint that records what it receives and answers 200. */
export async function startReceiver(): Promise<{
	url: string;
	received: ReceivedHook[];
	close(): Promise<void>;
}> {
	const received: ReceivedHook[] = [];
	const server = http.createServer((incoming, outgoing) => {
		const chunks: Buffer[] = [];
		incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
		incoming.on('end', () => {
			received.push({ headers: incoming.headers, body: Buffer.concat(chunks).toString('utf8') });
			outgoing.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
		received,
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

/**
 * A request with exactly the headers given (node:http adds only Content-Length for a body): for the Host, Origin and
 * Content-Type a browser page would send, which undici's client would fill in or refuse.
 */
export async function rawRequest(
	baseUrl: string,
	options: { method: string; path: string; headers: Record<string, string>; body?: string },
): Promise<ApiResponse> {
	const target = new URL(baseUrl);
	return new Promise((resolve, reject) => {
		const outgoing = http.request(
			{
				host: target.hostname.replace(/^\[(.*)\]$/, '$1'),
				port: target.port,
				method: options.method,
				path: options.path,
				headers: options.headers,
				setHost: false,
				agent: false,
			},
			(incoming) => {
				const chunks: Buffer[] = [];
				incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
				incoming.on('end', () => {
					const bytes = Buffer.concat(chunks);
					const text = bytes.toString('utf8');
					const headers = Object.fromEntries(
						Object.entries(incoming.headers).map(([name, value]) => [
							name,
							Array.isArray(value) ? value.join(', ') : String(value),
						]),
					);
					const json = (headers['content-type'] ?? '').startsWith('application/json')
						? (JSON.parse(text) as unknown)
						: undefined;
					resolve({ status: incoming.statusCode ?? 0, headers, bytes, text, json });
				});
				incoming.on('error', reject);
			},
		);
		outgoing.on('error', reject);
		outgoing.end(options.body);
	});
}

export interface RawHook {
	/** The request line exactly as it arrived, e.g. `POST /hook?x=1 HTTP/1.1`. */
	requestLine: string;
	headers: Record<string, string>;
	body: string;
}

/**
 * A loopback TCP endpoint that speaks just enough HTTP/1.1 to record each request's raw request line, headers and
 * body, and answers `status` (no parser in between that could normalise the target).
 */
export async function startRawReceiver(status = 200): Promise<{
	port: number;
	origin: string;
	received: RawHook[];
	close(): Promise<void>;
}> {
	const received: RawHook[] = [];
	const sockets = new Set<net.Socket>();
	const server = net.createServer((socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
		let buffered = Buffer.alloc(0);
		socket.on('data', (chunk: Buffer) => {
			buffered = Buffer.concat([buffered, chunk]);
			const headEnd = buffered.indexOf('\r\n\r\n');
			if (headEnd === -1) return;
			const [requestLine, ...headerLines] = buffered
				.subarray(0, headEnd)
				.toString('latin1')
				.split('\r\n');
			const headers = Object.fromEntries(
				headerLines.map((line) => {
					const colon = line.indexOf(':');
					return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
				}),
			);
			const bodyLength = Number(headers['content-length'] ?? 0);
			if (buffered.length < headEnd + 4 + bodyLength) return;
			const body = buffered.subarray(headEnd + 4, headEnd + 4 + bodyLength).toString('utf8');
			received.push({ requestLine, headers, body });
			socket.end(`HTTP/1.1 ${status} X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const port = (server.address() as AddressInfo).port;
	return {
		port,
		origin: `http://127.0.0.1:${port}`,
		received,
		close: () =>
			new Promise<void>((resolve) => {
				for (const socket of sockets) socket.destroy();
				server.close(() => resolve());
			}),
	};
}
