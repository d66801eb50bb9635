// Spec 4.3 as issue 3 sharpens it: uploads stream to disk. A 256 MiB PUT must not grow the process
// (sandbox and client share it here) by more than 64 MiB of RSS.

import { Readable } from 'node:stream';
import { api, createSlot, useSandbox } from './helpers';

const SIZE = 256 * 1024 * 1024;
const CHUNK = 1024 * 1024;
const handle = useSandbox();

/** SIZE bytes of zeroes, produced chunk by chunk as the socket drains. */
function zeroes(total: number): Readable {
	const chunk = Buffer.alloc(CHUNK);
	return Readable.from(
		(function* () {
			for (let sent = 0; sent < total; sent += CHUNK) yield chunk;
		})(),
		{ objectMode: false },
	);
}

describe('uploadBinary memory', () => {
	test('a 256 MiB upload keeps RSS growth under 64 MiB', async () => {
		const key = handle.sandbox.keys.platinum_live.key;
		const slot = await createSlot(handle.baseUrl, key, { filename: 'big.wav', size_bytes: SIZE });
		global.gc?.();
		const baseline = process.memoryUsage().rss;
		let peak = baseline;
		const sampler = setInterval(() => {
			peak = Math.max(peak, process.memoryUsage().rss);
		}, 20);
		try {
			const response = await api(handle.baseUrl, {
				method: 'PUT',
				path: slot.upload_url,
				key,
				body: zeroes(SIZE),
				headers: { 'content-type': 'application/octet-stream', 'content-length': String(SIZE) },
			});
			expect(response.json).toEqual({ ok: true, bytes_received: SIZE });
		} finally {
			clearInterval(sampler);
		}
		peak = Math.max(peak, process.memoryUsage().rss);
		expect((peak - baseline) / (1024 * 1024)).toBeLessThan(64);
	});
});
