// Small HTTP helpers shared by the API and admin routes: JSON bodies read from the raw stream
// (every content type reaches the handler as a stream, so uploads are never buffered), the rest of
// a body read before an early answer, and dropping a connection without an answer (fault injection).

import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { ApiError } from './errors';

/** JSON request bodies are small; anything larger is not a request this API takes. */
export const MAX_JSON_BODY_BYTES = 1024 * 1024;

function invalidBody(message: string): ApiError {
	return ApiError.of('invalid_request_body', message);
}

export function bodyStream(request: FastifyRequest): Readable | undefined {
	return request.body as Readable | undefined;
}

/** The body as a JSON object; `optional` lets admin routes take no body at all. */
export async function readJsonObject(
	request: FastifyRequest,
	{ optional = false }: { optional?: boolean } = {},
): Promise<Record<string, unknown>> {
	const stream = bodyStream(request);
	const raw = stream ? await readLimited(stream) : Buffer.alloc(0);
	if (raw.length === 0 && optional) return {};
	const mediaType = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
	if (mediaType !== 'application/json') {
		throw invalidBody('Send the body as a JSON object with "Content-Type: application/json".');
	}
	let parsed: unknown;
	try {
		parsed = JSON.parse(raw.toString('utf8'));
	} catch {
		throw invalidBody('The body is not valid JSON.');
	}
	if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
		throw invalidBody('The body must be a JSON object.');
	}
	return parsed as Record<string, unknown>;
}

/** Reads to the end (an over-long body is drained, not kept) so the error can still be answered. */
function readLimited(stream: Readable): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let length = 0;
		stream.on('data', (chunk: Buffer) => {
			length += chunk.length;
			if (length <= MAX_JSON_BODY_BYTES) chunks.push(chunk);
		});
		stream.on('end', () => {
			if (length > MAX_JSON_BODY_BYTES)
				reject(invalidBody(`The JSON body exceeds ${MAX_JSON_BODY_BYTES} bytes.`));
			else resolve(Buffer.concat(chunks));
		});
		stream.on('error', reject);
	});
}

/**
 * Reads and discards what is left of a body the route did not read, before an error answers it (401, 409, 410 …).
 * Answered at once, a client that asked for Connection: close (n8n's does) would have its socket closed while it still
 * sends, and the reset that follows takes the answer with it. The service behind a proxy that buffers request bodies
 * (nginx's default) answers in this order too.
 */
export async function discardUnreadBody(request: FastifyRequest): Promise<void> {
	const { raw } = request;
	if (raw.complete || raw.readableEnded || raw.destroyed) return;
	await new Promise<void>((resolve) => {
		raw.once('end', resolve).once('close', resolve).once('error', resolve);
		raw.resume();
	});
}

/** Ends the exchange with no response at all: the client sees a reset / closed socket. */
export function dropConnection(request: FastifyRequest, reply: FastifyReply): void {
	reply.hijack();
	request.raw.socket.destroy();
}
