// A hostile or compromised service, or a man in the middle, for the engine tier: a server of its own on loopback per
// case, whose every answer the test writes, recording what reached it and how each exchange ended. Used by the
// credential's Test button, the transport's limits and the artifact file names (engine/*.test.ts).
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { actionNode, type TestCredentials } from './harness';

export const MIB = 1024 * 1024;
/** The API key every hostile server is sent: a well-formed live key of no account. */
export const KEY = 'svc_sk_live_hostileService000000001';

export interface SeenRequest {
	method: string;
	url: string;
	headers: IncomingHttpHeaders;
	startedAtMs: number;
	/** Body bytes written to this request's answer before its connection closed. */
	bytesWritten: number;
	/** Whether the client closed the connection before the answer was complete. */
	closedEarly: boolean;
	/** Settles when the exchange's connection has closed, early or not. */
	closed: Promise<void>;
}

export interface HostileServer {
	baseUrl: string;
	requests: SeenRequest[];
	close(): Promise<void>;
}

export type Answer = (response: ServerResponse, seen: SeenRequest, index: number) => void;

/** A server on loopback whose every answer `answer` writes; it records what reached it and how each exchange ended. */
async function hostileServer(answer: Answer): Promise<HostileServer> {
	const requests: SeenRequest[] = [];
	const server = createServer((incoming, response) => {
		const seen: SeenRequest = {
			method: incoming.method ?? 'GET',
			url: incoming.url ?? '/',
			headers: incoming.headers,
			startedAtMs: Date.now(),
			bytesWritten: 0,
			closedEarly: false,
			closed: once(response, 'close').then(() => {
				seen.closedEarly = !response.writableFinished;
			}),
		};
		requests.push(seen);
		incoming.resume();
		answer(response, seen, requests.length - 1);
	});
	server.listen(0, '127.0.0.1');
	await once(server, 'listening');
	return {
		baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		requests,
		close: async () => {
			server.closeAllConnections();
			server.close();
			await once(server, 'close');
		},
	};
}

/** Starts hostile servers for a test file: `serve(answer)` starts one, closed after the test that started it. */
export function useHostileServers(): (answer: Answer) => Promise<HostileServer> {
	const servers: HostileServer[] = [];
	afterEach(async () => {
		await Promise.all(servers.splice(0).map(async (server) => await server.close()));
	});
	return async (answer) => {
		const server = await hostileServer(answer);
		servers.push(server);
		return server;
	};
}

/** Writes `total` bytes (or forever) in 1 MiB chunks as fast as the client reads them, counting what went out. */
export function stream(response: ServerResponse, seen: SeenRequest, total = Infinity): void {
	const chunk = Buffer.alloc(MIB, 0x41);
	const writeMore = () => {
		while (!response.destroyed && seen.bytesWritten < total) {
			const piece = chunk.subarray(0, Math.min(chunk.length, total - seen.bytesWritten));
			seen.bytesWritten += piece.length;
			if (!response.write(piece)) {
				response.once('drain', writeMore);
				return;
			}
		}
		if (!response.destroyed) response.end();
	};
	writeMore();
}

export function jsonAnswer(response: ServerResponse, status: number, body: unknown): void {
	const bytes = Buffer.from(JSON.stringify(body));
	response.writeHead(status, {
		'content-type': 'application/json',
		'content-length': String(bytes.length),
		'x-request-id': 'req_hostile',
	});
	response.end(bytes);
}

/** A completed job's snapshot, as a hostile server sends it. */
export const JOB = {
	job_id: 'job_hostile',
	status: 'completed',
	created_at: '2026-11-27T10:00:00Z',
	updated_at: '2026-11-27T10:01:00Z',
	media_duration_seconds: 60,
	credits_used: 1,
	analysis: { language: 'he', dialect: null },
	links: {
		self: '/api/v1/transcriptions/job_hostile',
		artifact: '/api/v1/transcriptions/job_hostile/artifact',
	},
};

/** The credential the nodes get for `server`: KEY, pointed at it. */
export const credentialsFor = (server: HostileServer): TestCredentials => ({
	apiKey: KEY,
	baseUrl: server.baseUrl,
});

/** Download Artifact of job_hostile in `format`, into the binary property `data`. */
export const download = (format: string) =>
	actionNode({
		resource: 'transcription',
		operation: 'downloadArtifact',
		jobId: 'job_hostile',
		format,
		binaryPropertyName: 'data',
	});
