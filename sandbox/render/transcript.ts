import type { ModelTier } from '../../src/api';
import {
	type CorpusSentence,
	MEETING_CORPUS,
	MOCK_CORPUS,
	PROMPT_VOCABULARY_SENTENCE,
} from './corpus';
import { detectLanguage, filenameStem } from './language';
import type { Transcript, TranscriptSegment } from './types';

/** About one sentence per five seconds of speech. */
const SECONDS_PER_SEGMENT = 5;
/** Keeps very long media (hours) to a transcript of reasonable size: segments grow longer instead. */
export const MAX_SEGMENTS = 720;
const MAX_PROMPT_TERMS = 10;
const MOCK_DURATION_SECONDS = 15;

export interface TranscriptRequest {
	filename: string;
	translateToHebrew: boolean;
	userPrompt: string | null;
	modelTier: ModelTier;
	durationSeconds: number;
}

type TextLanguage = keyof CorpusSentence;

/** Control characters become spaces (XML, and so DOCX, cannot carry most of them), then whitespace collapses. */
function cleanText(text: string): string {
	return text.replace(/[\p{Cc}\s]+/gu, ' ').trim();
}

/** The prompt as vocabulary: its comma, semicolon or line separated terms, first ones only. */
function promptTerms(userPrompt: string | null): string[] {
	if (userPrompt === null) return [];
	const terms = userPrompt
		.split(/[,;\n]/u)
		.map(cleanText)
		.filter(Boolean);
	return [...new Set(terms)].slice(0, MAX_PROMPT_TERMS);
}

/** The cheap tier is a little rougher: it leaves out commas. Deterministic, like everything here. */
function wordingForTier(sentence: string, modelTier: ModelTier): string {
	return modelTier === 'fast_low_cost' ? sentence.replace(/\s*,/gu, '') : sentence;
}

/** Segment boundaries in whole milliseconds, contiguous, the last one ending exactly at the duration. */
function segmentBoundaries(durationSeconds: number, count: number): number[] {
	const totalMilliseconds = Math.round(durationSeconds * 1000);
	return Array.from(
		{ length: count + 1 },
		(_, index) => Math.floor((totalMilliseconds * index) / count) / 1000,
	);
}

function buildSegments(
	sentences: readonly CorpusSentence[],
	count: number,
	durationSeconds: number,
	textLanguage: TextLanguage,
	userPrompt: string | null,
	modelTier: ModelTier,
): TranscriptSegment[] {
	const boundaries = segmentBoundaries(durationSeconds, count);
	const terms = promptTerms(userPrompt);
	return Array.from({ length: count }, (_, index) => {
		let text = wordingForTier(sentences[index % sentences.length][textLanguage], modelTier);
		if (index === 0 && terms.length > 0) {
			text += ' ' + PROMPT_VOCABULARY_SENTENCE[textLanguage](terms.join(', '));
		}
		return { startSeconds: boundaries[index], endSeconds: boundaries[index + 1], text };
	});
}

/** Translation only ever goes into Hebrew; Hebrew speech stays Hebrew either way. */
function outputLanguage(sourceLanguage: string, translateToHebrew: boolean): TextLanguage {
	return sourceLanguage === 'he' || translateToHebrew ? 'he' : 'en';
}

/** The deterministic transcript of a live job: the meeting corpus spread over the media's duration. */
export function buildTranscript(request: TranscriptRequest): Transcript {
	const detected = detectLanguage(request.filename);
	const textLanguage = outputLanguage(detected.language, request.translateToHebrew);
	const count = Math.min(
		MAX_SEGMENTS,
		Math.max(1, Math.round(request.durationSeconds / SECONDS_PER_SEGMENT)),
	);
	return {
		...detected,
		durationSeconds: request.durationSeconds,
		title: cleanText(filenameStem(request.filename)),
		rightToLeft: textLanguage === 'he',
		segments: buildSegments(
			MEETING_CORPUS,
			count,
			request.durationSeconds,
			textLanguage,
			request.userPrompt,
			request.modelTier,
		),
	};
}

/** The test-key "mock summary": a short fixed transcript that says it is a mock. */
export function mockTranscript(input: {
	filename: string;
	translateToHebrew: boolean;
	userPrompt: string | null;
}): Transcript {
	const detected = detectLanguage(input.filename);
	const textLanguage = outputLanguage(detected.language, input.translateToHebrew);
	return {
		...detected,
		durationSeconds: MOCK_DURATION_SECONDS,
		title: cleanText(filenameStem(input.filename)),
		rightToLeft: textLanguage === 'he',
		segments: buildSegments(
			MOCK_CORPUS,
			MOCK_CORPUS.length,
			MOCK_DURATION_SECONDS,
			textLanguage,
			input.userPrompt,
			'standard',
		),
	};
}
