// A loopback HTTP server that the workflows under test report to (an HTTP Request node after the trigger posts
// each execution's event_id here), so executions can be counted per event without reading n8n's database.

import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface EventCollector {
	url: string;
	/** event_id → how many executions reported it. */
	counts: Map<string, number>;
	total(): number;
	close(): Promise<void>;
}

export async function startEventCollector(): Promise<EventCollector> {
	const counts = new Map<string, number>();
	const server = http.createServer((request, response) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => {
			try {
				const { event_id: eventId } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
					event_id?: unknown;
				};
				const key = typeof eventId === 'string' ? eventId : '(no event_id)';
				counts.set(key, (counts.get(key) ?? 0) + 1);
			} catch {
				counts.set('(unreadable report)', (counts.get('(unreadable report)') ?? 0) + 1);
			}
			response.writeHead(204).end();
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/seen`,
		counts,
		total: () => [...counts.values()].reduce((sum, count) => sum + count, 0),
		async close() {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
