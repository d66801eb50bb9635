// A media host on loopback for the tests and benchmarks of "Media Source: URL" (not shipped): the places recordings
// live — a file with and without Content-Length, redirects to the same and to another origin, a token- or
// password-protected file, a podcast feed — and the ways such hosts fail: a lying length, a compressed body, a drip,
// a stall, a reset mid-body, an answer that never comes. Two servers on two ports (two origins) serve the same routes.
// Every request is recorded: headers (so a test can see which credential reached which host), bytes sent, and
// whether the client closed the connection before the end.
//
//   /file/<name>              the file, Content-Length, its Content-Type and Content-Disposition when it has them
//   /chunked/<name>           the same without Content-Length (chunked)
//   /private/<name>           the file, for `Authorization: Bearer <token>` or Basic <user:password> only (else 401)
//   /lying/<name>             announces 4 KiB more than it sends, then closes the connection
//   /gzip/<name>              Content-Encoding: gzip whatever was asked, Content-Length of the compressed body
//   /drip/<name>?everyMs=N    1 KiB every N ms (default 200), with Content-Length
//   /stall/<name>             the first 64 KiB, then nothing (the connection stays open)
//   /reset/<name>             half the file, then a reset
//   /silent/<name>            never answers
//   /status/<code>/<name>     that status, a small body
//   /redirect/<hops>/<route>  302 to /redirect/<hops-1>/<route> … /<route> on the same origin (query kept)
//   /elsewhere/<route>        302 to <route> on the other origin (query kept)
//   /loop/<name>              302 to itself
//   /to/<scheme>/<name>       302 to <scheme>://example.com/<name> (ftp, file, …) or http:// when it is "http"
//   /generated/<bytes>/<name>          a WAV of exactly <bytes>, generated as it is sent (1 GiB and more)
//   /generated-chunked/<bytes>/<name>  the same without Content-Length
//   /feed.xml                 an RSS 2.0 podcast feed of the episodes added, enclosures pointing at /file/<name>
import { once } from 'node:events';
import {
	createServer,
	type IncomingHttpHeaders,
	type Server,
	type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';

import { wavBlocks } from '../fixtures/media';

export interface HostedFile {
	bytes: Buffer;
	contentType?: string;
	/** Sent as Content-Disposition when set. */
	contentDisposition?: string;
	/** Listed in /feed.xml as an episode. */
	episode?: { title: string; guid: string; pubDate: Date };
}

export interface HostedRequest {
	/** Which of the two servers answered: `main` (origin) or `other` (otherOrigin). */
	server: 'main' | 'other';
	method: string;
	/** Path and query, as received. */
	url: string;
	headers: IncomingHttpHeaders;
	bytesSent: number;
	/** The client closed the connection before the answer was complete. */
	closedEarly: boolean;
	closed: Promise<void>;
}

export interface MediaHost {
	origin: string;
	otherOrigin: string;
	/** The bearer token /private/ accepts, and the user and password it accepts as Basic. */
	token: string;
	basic: { user: string; password: string };
	requests: HostedRequest[];
	add(name: string, file: HostedFile): void;
	/** `route` on the main origin (or the other one). */
	url(route: string, server?: 'main' | 'other'): string;
	close(): Promise<void>;
}

const KIB = 1024;

export interface MediaHostOptions {
	/** The loopback address each server listens on (default 127.0.0.1): another one is another host to n8n's SSRF rules. */
	addresses?: { main?: string; other?: string };
}

export async function startMediaHost(options: MediaHostOptions = {}): Promise<MediaHost> {
	const files = new Map<string, HostedFile>();
	const requests: HostedRequest[] = [];
	const token = 'media-host-token-7f3a91';
	const basic = { user: 'podcaster', password: 'media-host-password-2b8c' };
	const origins = { main: '', other: '' };
	const servers: Server[] = [];

	const serve = (server: 'main' | 'other') =>
		createServer((incoming, response) => {
			const seen: HostedRequest = {
				server,
				method: incoming.method ?? 'GET',
				url: incoming.url ?? '/',
				headers: incoming.headers,
				bytesSent: 0,
				closedEarly: false,
				closed: once(response, 'close').then(() => {
					seen.closedEarly = !response.writableFinished;
				}),
			};
			requests.push(seen);
			incoming.resume();
			const countingWrite = response.write.bind(response) as (chunk: Buffer) => boolean;
			response.write = ((chunk: Buffer) => {
				seen.bytesSent += chunk.length;
				return countingWrite(chunk);
			}) as typeof response.write;
			const other = server === 'main' ? origins.other : origins.main;
			answer(incoming.url ?? '/', incoming.headers, response, origins[server], other);
		});

	const answer = (
		rawUrl: string,
		headers: IncomingHttpHeaders,
		response: ServerResponse,
		origin: string,
		otherOrigin: string,
	) => {
		const url = new URL(rawUrl, origin);
		const [route, ...rest] = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
		const file = (name: string | undefined) => (name === undefined ? undefined : files.get(name));
		const notFound = () => text(response, 404, 'no such file');

		switch (route) {
			case 'feed.xml':
				return feed(response, origin, files);
			case 'file':
			case 'chunked': {
				const found = file(rest[0]);
				if (!found) return notFound();
				return sendFile(response, found, { withLength: route === 'file' });
			}
			case 'private': {
				const found = file(rest[0]);
				if (!found) return notFound();
				const expected = [
					`Bearer ${token}`,
					`Basic ${Buffer.from(`${basic.user}:${basic.password}`).toString('base64')}`,
				];
				if (!expected.includes(headers.authorization ?? '')) {
					response.writeHead(401, { 'www-authenticate': 'Bearer', 'content-type': 'text/plain' });
					return response.end('login needed');
				}
				return sendFile(response, found, { withLength: true });
			}
			case 'lying': {
				const found = file(rest[0]);
				if (!found) return notFound();
				response.writeHead(200, {
					'content-type': found.contentType ?? 'application/octet-stream',
					'content-length': String(found.bytes.length + 4 * KIB),
				});
				response.write(found.bytes);
				// The socket goes before the announced end: the client sees a body 4 KiB short.
				return void setTimeout(() => response.socket?.destroy(), 50);
			}
			case 'gzip': {
				const found = file(rest[0]);
				if (!found) return notFound();
				const compressed = gzipSync(found.bytes);
				response.writeHead(200, {
					'content-type': found.contentType ?? 'application/octet-stream',
					'content-encoding': 'gzip',
					'content-length': String(compressed.length),
				});
				return void response.end(compressed);
			}
			case 'drip': {
				const found = file(rest[0]);
				if (!found) return notFound();
				const everyMs = Number(url.searchParams.get('everyMs') ?? 200);
				response.writeHead(200, {
					'content-type': found.contentType ?? 'application/octet-stream',
					'content-length': String(found.bytes.length),
				});
				let offset = 0;
				const timer = setInterval(() => {
					if (response.destroyed) return clearInterval(timer);
					response.write(found.bytes.subarray(offset, offset + KIB));
					offset += KIB;
					if (offset >= found.bytes.length) {
						clearInterval(timer);
						response.end();
					}
				}, everyMs);
				return void response.once('close', () => clearInterval(timer));
			}
			case 'stall': {
				const found = file(rest[0]);
				if (!found) return notFound();
				response.writeHead(200, {
					'content-type': found.contentType ?? 'application/octet-stream',
					'content-length': String(found.bytes.length),
				});
				return void response.write(found.bytes.subarray(0, 64 * KIB));
			}
			case 'reset': {
				const found = file(rest[0]);
				if (!found) return notFound();
				response.writeHead(200, {
					'content-type': found.contentType ?? 'application/octet-stream',
					'content-length': String(found.bytes.length),
				});
				response.write(found.bytes.subarray(0, Math.floor(found.bytes.length / 2)));
				return void setTimeout(() => response.socket?.resetAndDestroy(), 50);
			}
			case 'silent':
				return;
			case 'status':
				return text(response, Number(rest[0]), `status ${rest[0]}`);
			case 'redirect': {
				const hops = Number(rest[0]);
				const target =
					hops > 1
						? `/redirect/${hops - 1}/${rest.slice(1).join('/')}`
						: `/${rest.slice(1).join('/')}`;
				return redirect(response, `${target}${url.search}`);
			}
			case 'elsewhere':
				return redirect(response, `${otherOrigin}/${rest.join('/')}${url.search}`);
			case 'loop':
				return redirect(response, url.pathname + url.search);
			case 'to':
				return redirect(response, `${rest[0]}://example.com/${rest.slice(1).join('/')}`);
			case 'generated':
			case 'generated-chunked': {
				const { totalBytes, blocks } = wavBlocks({
					bytes: Number(rest[0]),
					sampleRate: 48_000,
					channels: 2,
					bitsPerSample: 32,
				});
				response.writeHead(200, {
					'content-type': 'audio/wav',
					...(route === 'generated' ? { 'content-length': String(totalBytes) } : {}),
				});
				const source = Readable.from(blocks());
				source.on('data', (chunk: Buffer) => {
					if (!response.write(chunk)) {
						source.pause();
						response.once('drain', () => source.resume());
					}
				});
				source.on('end', () => response.end());
				return void response.once('close', () => source.destroy());
			}
			default:
				return notFound();
		}
	};

	for (const server of ['main', 'other'] as const) {
		const address = options.addresses?.[server] ?? '127.0.0.1';
		const running = serve(server);
		running.listen(0, address);
		await once(running, 'listening');
		origins[server] = `http://${address}:${(running.address() as AddressInfo).port}`;
		servers.push(running);
	}

	return {
		origin: origins.main,
		otherOrigin: origins.other,
		token,
		basic,
		requests,
		add: (name, file) => files.set(name, file),
		url: (route, server = 'main') =>
			`${origins[server]}${route.startsWith('/') ? '' : '/'}${route}`,
		close: async () => {
			for (const server of servers) {
				server.closeAllConnections();
				server.close();
			}
			await Promise.all(servers.map(async (server) => await once(server, 'close')));
		},
	};
}

/** A Media Link credential sending the bearer token /private/ accepts, to the hosts named. */
export function bearerLinkCredential(
	host: Pick<MediaHost, 'token'>,
	allowedHosts: string,
): Record<string, string> {
	return {
		authType: 'header',
		headerName: 'Authorization',
		headerSecret: `Bearer ${host.token}`,
		allowedHosts,
	};
}

/** One media host for a test file (beforeAll/afterAll); its request log is emptied before each test. */
export function useMediaHost(options: MediaHostOptions = {}): MediaHost {
	let host: MediaHost | undefined;
	beforeAll(async () => {
		host = await startMediaHost(options);
	});
	beforeEach(() => {
		if (host) host.requests.length = 0;
	});
	afterAll(async () => {
		await host?.close();
	});
	const started = () => {
		if (!host) throw new Error('The media host is not running (use it inside tests and hooks)');
		return host;
	};
	return {
		get origin() {
			return started().origin;
		},
		get otherOrigin() {
			return started().otherOrigin;
		},
		get token() {
			return started().token;
		},
		get basic() {
			return started().basic;
		},
		get requests() {
			return started().requests;
		},
		add: (name, file) => started().add(name, file),
		url: (route, server) => started().url(route, server),
		close: async () => await started().close(),
	};
}

function sendFile(
	response: ServerResponse,
	file: HostedFile,
	options: { withLength: boolean },
): void {
	response.writeHead(200, {
		'content-type': file.contentType ?? 'application/octet-stream',
		...(options.withLength ? { 'content-length': String(file.bytes.length) } : {}),
		...(file.contentDisposition ? { 'content-disposition': file.contentDisposition } : {}),
	});
	// In 64 KiB pieces, so a chunked answer is chunked in more than one piece.
	for (let offset = 0; offset < file.bytes.length; offset += 64 * KIB)
		response.write(file.bytes.subarray(offset, offset + 64 * KIB));
	response.end();
}

function text(response: ServerResponse, status: number, body: string): void {
	response.writeHead(status, {
		'content-type': 'text/plain',
		'content-length': String(body.length),
	});
	response.end(body);
}

function redirect(response: ServerResponse, location: string): void {
	response.writeHead(302, { location, 'content-length': '0' });
	response.end();
}

const escapeXml = (value: string) =>
	value.replace(/[<>&"']/g, (char) => `&#${char.charCodeAt(0)};`);

function feed(response: ServerResponse, origin: string, files: Map<string, HostedFile>): void {
	const items = [...files]
		.filter(([, file]) => file.episode)
		.sort(([, a], [, b]) => b.episode!.pubDate.getTime() - a.episode!.pubDate.getTime())
		.map(
			([name, file]) => `    <item>
      <title>${escapeXml(file.episode!.title)}</title>
      <guid isPermaLink="false">${escapeXml(file.episode!.guid)}</guid>
      <pubDate>${file.episode!.pubDate.toUTCString()}</pubDate>
      <enclosure url="${escapeXml(`${origin}/file/${encodeURIComponent(name)}`)}" length="${file.bytes.length}" type="${escapeXml(file.contentType ?? 'audio/wav')}"/>
    </item>`,
		)
		.join('\n');
	const body = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0">
  <channel>
    <title>The Loopback Podcast</title>
    <link>${escapeXml(origin)}</link>
    <description>Episodes served by the test media host</description>
${items}
  </channel>
</rss>
`;
	response.writeHead(200, {
		'content-type': 'application/rss+xml; charset=utf-8',
		'content-length': String(Buffer.byteLength(body)),
	});
	response.end(body);
}
