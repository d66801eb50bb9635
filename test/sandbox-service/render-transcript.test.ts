// The sandbox renderer's transcript (sandbox/render/language, transcript): the language and dialect it detects, its
// segments, and the mock transcript of the demo.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { mockTranscript, type Transcript } from '../../sandbox/render';
import { MEETING_CORPUS } from '../../sandbox/render/corpus';
import { detectLanguage } from '../../sandbox/render/language';
import { buildTranscript, MAX_SEGMENTS } from '../../sandbox/render/transcript';
import { makeWav } from '../support/fixtures/media';
import { mediaTranscriber } from '../support/sandbox/transcribe-bytes';

let directory: string;

beforeAll(async () => {
	directory = await mkdtemp(join(tmpdir(), 'render-test-'));
});

afterAll(async () => {
	await rm(directory, { recursive: true, force: true });
});

const { transcriptOf } = mediaTranscriber(() => directory);

function expectContiguous(transcript: Transcript): void {
	const { segments } = transcript;
	expect(segments.length).toBeGreaterThanOrEqual(1);
	expect(segments[0].startSeconds).toBe(0);
	segments.forEach((segment, index) => {
		expect(segment.endSeconds).toBeGreaterThan(segment.startSeconds);
		if (index > 0) expect(segment.startSeconds).toBe(segments[index - 1].endSeconds);
	});
	expect(segments[segments.length - 1].endSeconds).toBe(transcript.durationSeconds);
}

const HEBREW_LETTERS = /\p{Script=Hebrew}/u;
const LATIN_LETTERS = /\p{Script=Latin}/u;

describe('language and dialect', () => {
	it.each([
		['board_meeting.wav', 'en'],
		['the-meeting.wav', 'en'],
		['shelf.mp3', 'en'],
		['ראיון.wav', 'he'],
		['interview_he.mp3', 'he'],
		['Ivrit-lesson.ogg', 'he'],
		['HEBREW podcast.m4a', 'he'],
		['heb.2026.wav', 'he'],
		['he-IL.flac', 'he'],
	])('%s → %s', (filename, language) => {
		expect(detectLanguage(filename)).toEqual(
			language === 'he'
				? { language: 'he', dialect: 'he-IL' }
				: { language: 'en', dialect: 'en-US' },
		);
	});

	it('transcribes an English name in English, left to right', async () => {
		const transcript = await transcriptOf('board_meeting.wav', makeWav({ seconds: 12 }));
		expect(transcript).toMatchObject({
			language: 'en',
			dialect: 'en-US',
			rightToLeft: false,
			title: 'board_meeting',
		});
		expect(transcript.segments.map((segment) => segment.text)).toEqual(
			MEETING_CORPUS.slice(0, 2).map((s) => s.en),
		);
	});

	it('transcribes ראיון.wav in Hebrew, right to left', async () => {
		const transcript = await transcriptOf('ראיון.wav', makeWav({ seconds: 12 }));
		expect(transcript).toMatchObject({
			language: 'he',
			dialect: 'he-IL',
			rightToLeft: true,
			title: 'ראיון',
		});
		expect(transcript.segments.map((segment) => segment.text)).toEqual(
			MEETING_CORPUS.slice(0, 2).map((s) => s.he),
		);
	});

	it('translates English speech into Hebrew text while reporting the source language', async () => {
		const transcript = await transcriptOf('board_meeting.wav', makeWav({ seconds: 12 }), {
			translateToHebrew: true,
		});
		expect(transcript).toMatchObject({ language: 'en', dialect: 'en-US', rightToLeft: true });
		expect(transcript.segments[0].text).toBe(MEETING_CORPUS[0].he);
		for (const segment of transcript.segments) expect(segment.text).not.toMatch(LATIN_LETTERS);
	});

	it('leaves Hebrew speech Hebrew when translation is asked for', async () => {
		const plain = await transcriptOf('ראיון.wav', makeWav({ seconds: 12 }));
		const translated = await transcriptOf('ראיון.wav', makeWav({ seconds: 12 }), {
			translateToHebrew: true,
		});
		expect(translated).toEqual(plain);
	});
});

describe('segments', () => {
	const transcriptFor = (
		durationSeconds: number,
		overrides: Partial<Parameters<typeof buildTranscript>[0]> = {},
	) =>
		buildTranscript({
			filename: 'talk.wav',
			translateToHebrew: false,
			userPrompt: null,
			modelTier: 'standard',
			durationSeconds,
			...overrides,
		});

	it.each([
		[0.3, 1],
		[7, 1],
		[61.5, 12],
		[3599.999, 720],
		[7200, MAX_SEGMENTS],
	])('%d s of media → %d contiguous segments ending at the duration', (durationSeconds, count) => {
		const transcript = transcriptFor(durationSeconds);
		expect(transcript.segments).toHaveLength(count);
		expectContiguous(transcript);
	});

	it('cycles through the corpus in order', () => {
		const transcript = transcriptFor(5 * (MEETING_CORPUS.length + 1));
		expect(transcript.segments[MEETING_CORPUS.length].text).toBe(MEETING_CORPUS[0].en);
	});

	it('puts the user prompt vocabulary in the first segment only', () => {
		const transcript = transcriptFor(30, { userPrompt: 'Kubernetes, Grafana;\n  n8n  workflows ' });
		expect(transcript.segments[0].text).toBe(
			`${MEETING_CORPUS[0].en} We will also talk about Kubernetes, Grafana, n8n workflows.`,
		);
		expect(transcript.segments.slice(1).map((segment) => segment.text)).toEqual(
			MEETING_CORPUS.slice(1, 6).map((sentence) => sentence.en),
		);
		const hebrew = transcriptFor(30, { userPrompt: 'Kubernetes', filename: 'ראיון.wav' });
		expect(hebrew.segments[0].text).toBe(`${MEETING_CORPUS[0].he} נדבר גם על Kubernetes.`);
	});

	it('turns control characters in the prompt and the filename into spaces', () => {
		const transcript = transcriptFor(5, {
			userPrompt: 'Acme\u0007Corp,\tBeta\u0000',
			filename: 'weekly\u001bsync.wav',
		});
		expect(transcript.title).toBe('weekly sync');
		expect(transcript.segments[0].text).toBe(
			`${MEETING_CORPUS[0].en} We will also talk about Acme Corp, Beta.`,
		);
	});

	it('words the fast tier a little differently, deterministically', () => {
		const standard = transcriptFor(30);
		const fast = transcriptFor(30, { modelTier: 'fast_low_cost' });
		const premium = transcriptFor(30, { modelTier: 'premium_quality' });
		expect(fast.segments[0].text).toBe('Good morning and thank you all for being here today.');
		expect(fast.segments.map((segment) => segment.text).join(' ')).not.toContain(',');
		expect(premium).toEqual(standard);
		expect(transcriptFor(30, { modelTier: 'fast_low_cost' })).toEqual(fast);
	});
});

describe('mockTranscript', () => {
	it('is a short fixed English transcript that says it is a test-mode mock', () => {
		const transcript = mockTranscript({
			filename: 'clip.final.mp3',
			translateToHebrew: false,
			userPrompt: null,
		});
		expect(transcript).toMatchObject({
			language: 'en',
			dialect: 'en-US',
			rightToLeft: false,
			title: 'clip.final',
		});
		expect(transcript.segments).toHaveLength(3);
		expect(transcript.segments[0].text).toBe(
			'This is a test-mode mock transcript from the Transcription Service sandbox.',
		);
		expectContiguous(transcript);
	});

	it('is Hebrew for a Hebrew filename and when translated into Hebrew', () => {
		const hebrewName = mockTranscript({
			filename: 'שיחה.wav',
			translateToHebrew: false,
			userPrompt: null,
		});
		expect(hebrewName).toMatchObject({ language: 'he', dialect: 'he-IL', rightToLeft: true });
		const translated = mockTranscript({
			filename: 'call.wav',
			translateToHebrew: true,
			userPrompt: 'Acme',
		});
		expect(translated).toMatchObject({ language: 'en', dialect: 'en-US', rightToLeft: true });
		expect(translated.segments[0].text).toBe(
			'זהו תמלול לדוגמה במצב בדיקה מסביבת הבדיקות של שירות התמלול. נדבר גם על Acme.',
		);
		for (const segment of hebrewName.segments) expect(segment.text).toMatch(HEBREW_LETTERS);
	});
});
