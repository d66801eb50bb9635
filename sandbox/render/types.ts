import type { ModelTier } from '../../src/api';

export interface TranscriptSegment {
	startSeconds: number;
	endSeconds: number;
	text: string;
}

export interface Transcript {
	language: string | null;
	dialect: string | null;
	durationSeconds: number;
	title: string;
	rightToLeft: boolean;
	segments: TranscriptSegment[];
}

export interface MediaInput {
	filePath: string;
	filename: string;
	contentType: string;
	sizeBytes: number;
	translateToHebrew: boolean;
	userPrompt: string | null;
	modelTier: ModelTier;
}

export type TranscribeResult = { ok: true; transcript: Transcript } | { ok: false; reason: string };
