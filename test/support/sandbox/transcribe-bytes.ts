// The sandbox's renderer on bytes held in memory: transcribeMedia reads a file, so each call writes one first.

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { type MediaInput, transcribeMedia, type Transcript } from '../../../sandbox/render';

type MediaOptions = Partial<Pick<MediaInput, 'translateToHebrew' | 'userPrompt' | 'modelTier'>>;

/** transcribeMedia over bytes written to a new file under `directory()`, a scratch directory the caller owns. */
export function mediaTranscriber(directory: () => string) {
	async function mediaFile(name: string, bytes: Buffer): Promise<string> {
		const filePath = join(
			directory(),
			`${Date.now()}-${Math.random().toString(36).slice(2)}-${name}`,
		);
		await writeFile(filePath, bytes);
		return filePath;
	}

	async function transcribeBytes(filename: string, bytes: Buffer, options: MediaOptions = {}) {
		return transcribeMedia({
			filePath: await mediaFile(filename, bytes),
			filename,
			contentType: 'application/octet-stream',
			sizeBytes: bytes.length,
			translateToHebrew: false,
			userPrompt: null,
			modelTier: 'standard',
			...options,
		});
	}

	/** The transcript of `bytes`; throws when the renderer gives none. */
	async function transcriptOf(...args: Parameters<typeof transcribeBytes>): Promise<Transcript> {
		const result = await transcribeBytes(...args);
		if (!result.ok) throw new Error(`expected a transcript, got ${result.reason}`);
		return result.transcript;
	}

	return { transcribeBytes, transcriptOf };
}
