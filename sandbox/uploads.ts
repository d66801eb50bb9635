// Receiving media bytes (PUT …/binary): the request stream goes straight to a file, chunk by chunk,
// so memory stays flat whatever the size. Bytes past size_bytes are counted but not stored, so the
// mismatch error can name both sizes without buffering anything.

import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export async function streamToFile(
	body: Readable | undefined,
	filePath: string,
	sizeBytes: number,
): Promise<number> {
	if (!body) return 0;
	let received = 0;
	const capAtDeclaredSize = new Transform({
		transform(chunk: Buffer, _encoding, callback) {
			const room = sizeBytes - received;
			received += chunk.length;
			if (room <= 0) callback();
			else callback(null, chunk.length <= room ? chunk : chunk.subarray(0, room));
		},
	});
	try {
		await pipeline(body, capAtDeclaredSize, createWriteStream(filePath));
	} catch (error) {
		await removeFile(filePath);
		throw error;
	}
	return received;
}

export async function removeFile(filePath: string): Promise<void> {
	await rm(filePath, { force: true });
}
