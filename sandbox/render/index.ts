import type { ArtifactFormat } from '../../src/artifacts';
import { renderDocx } from './docx';
import { probeMedia } from './media';
import { renderPdf } from './pdf';
import { renderSrt, renderTxt } from './text';
import { buildTranscript } from './transcript';
import type { MediaInput, TranscribeResult, Transcript } from './types';

export { mockTranscript } from './transcript';
export type { MediaInput, TranscribeResult, Transcript, TranscriptSegment } from './types';

/**
 * The sandbox's "speech recognition": sniffs the container from the file's first 64 KiB, takes the
 * duration (exact for WAV, estimated from the size otherwise) and spreads a deterministic transcript
 * over it. Media it cannot identify, or without any audio, fails the job with `unreadable_media`.
 */
export async function transcribeMedia(input: MediaInput): Promise<TranscribeResult> {
	const probe = await probeMedia(input.filePath);
	if (probe === null || probe.durationSeconds <= 0)
		return { ok: false, reason: 'unreadable_media' };
	return {
		ok: true,
		transcript: buildTranscript({
			filename: input.filename,
			translateToHebrew: input.translateToHebrew,
			userPrompt: input.userPrompt,
			modelTier: input.modelTier,
			durationSeconds: probe.durationSeconds,
		}),
	};
}

const RENDERERS: Record<ArtifactFormat, (transcript: Transcript) => Buffer | Promise<Buffer>> = {
	srt: renderSrt,
	txt: renderTxt,
	pdf: renderPdf,
	docx: renderDocx,
};

/** The artifact's bytes in the given format; nothing is cached here (the server does that). */
export async function renderArtifact(
	format: ArtifactFormat,
	transcript: Transcript,
): Promise<Buffer> {
	return RENDERERS[format](transcript);
}
