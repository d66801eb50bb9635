import JSZip from 'jszip';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pdfParse from 'pdf-parse';
import {
	type MediaInput,
	mockTranscript,
	renderArtifact,
	transcribeMedia,
	type Transcript,
} from '../../sandbox/render';
import { MEETING_CORPUS } from '../../sandbox/render/corpus';
import { detectLanguage } from '../../sandbox/render/language';
import { sniffContainer } from '../../sandbox/render/media';
import { buildTranscript, MAX_SEGMENTS } from '../../sandbox/render/transcript';
import { makeWav, WAV_HEADER_BYTES, writeWavFile } from '../support/fixtures/media';

let directory: string;

beforeAll(async () => {
	directory = await mkdtemp(join(tmpdir(), 'render-test-'));
});

afterAll(async () => {
	await rm(directory, { recursive: true, force: true });
});

async function mediaFile(name: string, bytes: Buffer): Promise<string> {
	const filePath = join(directory, `${Date.now()}-${Math.random().toString(36).slice(2)}-${name}`);
	await writeFile(filePath, bytes);
	return filePath;
}

async function transcribeBytes(
	filename: string,
	bytes: Buffer,
	options: Partial<Pick<MediaInput, 'translateToHebrew' | 'userPrompt' | 'modelTier'>> = {},
) {
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

async function transcriptOf(...args: Parameters<typeof transcribeBytes>): Promise<Transcript> {
	const result = await transcribeBytes(...args);
	if (!result.ok) throw new Error(`expected a transcript, got ${result.reason}`);
	return result.transcript;
}

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

const SMALL_TRANSCRIPT: Transcript = {
	language: 'en',
	dialect: 'en-US',
	durationSeconds: 3725.5,
	title: 'Weekly sync',
	rightToLeft: false,
	segments: [
		{ startSeconds: 0, endSeconds: 4.25, text: 'Hello and welcome.' },
		{
			startSeconds: 4.25,
			endSeconds: 3725.5,
			text: 'This cue is long enough that a subtitle player shows it on two lines.',
		},
	],
};

describe('transcribeMedia: WAV duration', () => {
	it.each([
		{ sampleRate: 8000, channels: 1, bitsPerSample: 16, seconds: 2.5 },
		{ sampleRate: 16000, channels: 1, bitsPerSample: 8, seconds: 4 },
		{ sampleRate: 22050, channels: 2, bitsPerSample: 16, seconds: 1.2 },
		{ sampleRate: 44100, channels: 2, bitsPerSample: 16, seconds: 3 },
		{ sampleRate: 48000, channels: 2, bitsPerSample: 24, seconds: 1.25 },
		{ sampleRate: 96000, channels: 6, bitsPerSample: 32, seconds: 0.5 },
	])('$sampleRate Hz, $channels channel(s), $bitsPerSample bit: $seconds s', async (format) => {
		const wav = makeWav(format);
		const blockAlign = (format.channels * format.bitsPerSample) / 8;
		expect(wav.length).toBe(WAV_HEADER_BYTES + format.seconds * format.sampleRate * blockAlign);
		const transcript = await transcriptOf('clip.wav', wav);
		expect(transcript.durationSeconds).toBe(format.seconds);
	});

	it.each([0, 0xffffffff])(
		'takes the data size from the file when the header says %d (streaming WAV)',
		async (size) => {
			const wav = makeWav({ seconds: 2, sampleRate: 8000 });
			wav.writeUInt32LE(size, 40);
			expect((await transcriptOf('stream.wav', wav)).durationSeconds).toBe(2);
		},
	);

	it('uses the bytes present when the declared data size runs past the end of the file', async () => {
		const wav = makeWav({ seconds: 3, sampleRate: 8000 }).subarray(0, WAV_HEADER_BYTES + 16000);
		expect((await transcriptOf('cut.wav', wav)).durationSeconds).toBe(1);
	});

	it('walks past other chunks (odd-sized, padded) to the data chunk', async () => {
		const wav = makeWav({ seconds: 1.5, sampleRate: 8000 });
		const list = Buffer.concat([
			Buffer.from('LIST', 'latin1'),
			Buffer.from([5, 0, 0, 0]),
			Buffer.from('INFOx\0', 'latin1'),
		]);
		const withList = Buffer.concat([wav.subarray(0, 36), list, wav.subarray(36)]);
		expect((await transcriptOf('tagged.wav', withList)).durationSeconds).toBe(1.5);
	});

	it('fails a WAV file without audio, or without a fmt chunk, as unreadable_media', async () => {
		const headerOnly = makeWav({ seconds: 0 });
		expect(headerOnly.length).toBe(WAV_HEADER_BYTES);
		expect(await transcribeBytes('empty.wav', headerOnly)).toEqual({
			ok: false,
			reason: 'unreadable_media',
		});
		const noFormat = Buffer.concat([
			Buffer.from('RIFF\0\0\0\0WAVEdata\x04\0\0\0', 'latin1'),
			Buffer.alloc(4),
		]);
		expect(await transcribeBytes('broken.wav', noFormat)).toEqual({
			ok: false,
			reason: 'unreadable_media',
		});
	});
});

describe('test/support/fixtures/media writeWavFile', () => {
	it('streams a file of an exact byte size whose duration follows from it', async () => {
		const filePath = join(directory, 'sized.wav');
		const bytes = 3 * 1024 * 1024 + WAV_HEADER_BYTES;
		expect(await writeWavFile(filePath, { bytes })).toBe(bytes);
		expect((await stat(filePath)).size).toBe(bytes);
		const result = await transcribeMedia({
			filePath,
			filename: 'sized.wav',
			contentType: 'audio/wav',
			sizeBytes: bytes,
			translateToHebrew: false,
			userPrompt: null,
			modelTier: 'standard',
		});
		// 16 kHz mono 16-bit by default: 32 000 bytes per second.
		expect(result.ok && result.transcript.durationSeconds).toBe((3 * 1024 * 1024) / 32000);
	});

	it('writes the same bytes as makeWav for a duration', async () => {
		const filePath = join(directory, 'timed.wav');
		const format = { sampleRate: 8000, channels: 2, bitsPerSample: 16 };
		const size = await writeWavFile(filePath, { seconds: 75, ...format });
		expect(size).toBe(WAV_HEADER_BYTES + 75 * 8000 * 4);
		expect((await readFile(filePath)).equals(makeWav({ seconds: 75, ...format }))).toBe(true);
	});
});

describe('container sniffing', () => {
	const heads: Array<[string, Buffer]> = [
		['wav', makeWav({ seconds: 0.1 })],
		['mp3', Buffer.concat([Buffer.from('ID3\x04\0\0\0\0\0\x0a', 'latin1'), Buffer.alloc(10)])],
		['mp3', Buffer.from([0xff, 0xfb, 0x90, 0x64, 0, 0, 0, 0])],
		['aac', Buffer.from([0xff, 0xf1, 0x50, 0x80, 0x02, 0x1f, 0xfc])],
		['ogg', Buffer.from('OggS\0\x02\0\0\0\0\0\0\0\0', 'latin1')],
		['flac', Buffer.from('fLaC\0\0\0\x22', 'latin1')],
		['mp4', Buffer.from('\0\0\0\x20ftypisom\0\0\x02\0isomiso2mp41', 'latin1')],
		['m4a', Buffer.from('\0\0\0\x20ftypM4A \0\0\0\0M4A mp42isom', 'latin1')],
		['mov', Buffer.from('\0\0\0\x14ftypqt  \0\0\x02\0qt  ', 'latin1')],
		[
			'webm',
			Buffer.from('\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01\x42\x82\x84webm\x42\x87\x81\x04', 'latin1'),
		],
		[
			'mkv',
			Buffer.from(
				'\x1a\x45\xdf\xa3\xa3\x42\x86\x81\x01\x42\x82\x88matroska\x42\x87\x81\x04',
				'latin1',
			),
		],
	];

	it.each(heads)('recognises %s', (container, head) => {
		expect(sniffContainer(head)).toBe(container);
	});

	const junk: Array<[string, Buffer]> = [
		['text', Buffer.from('hello, this is not audio\n', 'utf8')],
		['zeros', Buffer.alloc(4096)],
		['a PDF', Buffer.from('%PDF-1.7\n%âãÏÓ\n', 'latin1')],
		['a PNG', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])],
		['RIFF that is not WAVE', Buffer.from('RIFF\x04\0\0\0AVI LIST', 'latin1')],
		['a reserved MPEG sync', Buffer.from([0xff, 0xe8, 0x00, 0x00])],
		['a single byte', Buffer.from([0xff])],
	];

	it.each(junk)('fails %s as unreadable_media', async (_name, bytes) => {
		expect(sniffContainer(bytes)).toBeNull();
		expect(await transcribeBytes('upload.mp3', bytes)).toEqual({
			ok: false,
			reason: 'unreadable_media',
		});
	});

	it('estimates the duration of compressed media from its size', async () => {
		// 128 kbps for MP3: 160 000 bytes are 10 seconds.
		const mp3 = Buffer.concat([Buffer.from([0xff, 0xfb, 0x90, 0x64]), Buffer.alloc(160_000 - 4)]);
		expect((await transcriptOf('talk.mp3', mp3)).durationSeconds).toBe(10);
		// 1 Mbps for video containers: 250 000 bytes are 2 seconds.
		const mp4 = Buffer.concat([heads[6][1], Buffer.alloc(250_000 - heads[6][1].length)]);
		expect((await transcriptOf('talk.mp4', mp4)).durationSeconds).toBe(2);
	});
});

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

interface SrtCue {
	index: number;
	startMilliseconds: number;
	endMilliseconds: number;
	text: string;
}

/** A strict SubRip reader: CRLF only, numbered cues from 1, exact time format, non-empty text. */
function parseSrt(bytes: Buffer): SrtCue[] {
	expect(bytes.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]))).toBe(false);
	const source = bytes.toString('utf8');
	expect(source.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
	expect(source.endsWith('\r\n')).toBe(true);
	expect(source.endsWith('\r\n\r\n')).toBe(false);
	const toMilliseconds = (time: string) => {
		const [, hours, minutes, seconds, milliseconds] =
			/^(\d{2}):([0-5]\d):([0-5]\d),(\d{3})$/.exec(time) ?? [];
		if (milliseconds === undefined) throw new Error(`bad SRT time ${time}`);
		return (
			((Number(hours) * 60 + Number(minutes)) * 60 + Number(seconds)) * 1000 + Number(milliseconds)
		);
	};
	return source
		.slice(0, -2)
		.split('\r\n\r\n')
		.map((block, position) => {
			const [number, times, ...textLines] = block.split('\r\n');
			expect(number).toBe(String(position + 1));
			const [start, end, ...rest] = times.split(' --> ');
			expect(rest).toEqual([]);
			expect(textLines.length).toBeGreaterThan(0);
			for (const line of textLines) expect(line.trim()).toBe(line);
			for (const line of textLines) expect(line).not.toBe('');
			return {
				index: Number(number),
				startMilliseconds: toMilliseconds(start),
				endMilliseconds: toMilliseconds(end),
				text: textLines.join(' '),
			};
		});
}

describe('SRT', () => {
	it('writes exact SubRip bytes', async () => {
		const srt = await renderArtifact('srt', SMALL_TRANSCRIPT);
		expect(srt.toString('utf8')).toBe(
			'1\r\n00:00:00,000 --> 00:00:04,250\r\nHello and welcome.\r\n\r\n' +
				'2\r\n00:00:04,250 --> 01:02:05,500\r\nThis cue is long enough that a subtitle\r\nplayer shows it on two lines.\r\n',
		);
	});

	it.each(['board_meeting.wav', 'ראיון.wav'])(
		'parses back into the transcript of %s',
		async (filename) => {
			const transcript = buildTranscript({
				filename,
				translateToHebrew: false,
				userPrompt: 'Kubernetes, Grafana',
				modelTier: 'standard',
				durationSeconds: 187.337,
			});
			const cues = parseSrt(await renderArtifact('srt', transcript));
			expect(cues).toEqual(
				transcript.segments.map((segment, position) => ({
					index: position + 1,
					startMilliseconds: Math.round(segment.startSeconds * 1000),
					endMilliseconds: Math.round(segment.endSeconds * 1000),
					text: segment.text,
				})),
			);
			expect(cues[cues.length - 1].endMilliseconds).toBe(187_337);
		},
	);
});

describe('TXT', () => {
	it('writes the title, a blank line and paragraphs', async () => {
		const txt = await renderArtifact('txt', SMALL_TRANSCRIPT);
		expect(txt.toString('utf8')).toBe(
			'Weekly sync\n\nHello and welcome. This cue is long enough that a subtitle player shows it on two lines.\n',
		);
	});

	it('groups four segments to a paragraph, in UTF-8', async () => {
		const transcript = buildTranscript({
			filename: 'ראיון.wav',
			translateToHebrew: false,
			userPrompt: null,
			modelTier: 'standard',
			durationSeconds: 45,
		});
		const text = (await renderArtifact('txt', transcript)).toString('utf8');
		const sentences = MEETING_CORPUS.slice(0, 9).map((sentence) => sentence.he);
		expect(text).toBe(
			[
				'ראיון',
				sentences.slice(0, 4).join(' '),
				sentences.slice(4, 8).join(' '),
				sentences[8],
			].join('\n\n') + '\n',
		);
	});
});

describe('PDF', () => {
	const longTranscript = (filename: string) =>
		buildTranscript({
			filename,
			translateToHebrew: false,
			userPrompt: 'Kubernetes, Grafana',
			modelTier: 'standard',
			durationSeconds: 600,
		});

	it('is a valid A4 PDF over several pages with extractable English text and an embedded font', async () => {
		const transcript = longTranscript('board_meeting.wav');
		const pdf = await renderArtifact('pdf', transcript);
		expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
		expect(pdf.subarray(-6).toString('latin1')).toMatch(/%%EOF\s*$/);
		const bytes = pdf.toString('latin1');
		expect(bytes).toContain('/FontFile2');
		expect(bytes).toContain('/TSLATR+NotoSans-Regular');
		expect(bytes).toContain('/TSLATB+NotoSans-Bold');
		// Only the fonts a document uses are embedded: no Hebrew here.
		expect(bytes).not.toContain('NotoSansHebrew');
		expect(bytes).toContain('/MediaBox [ 0 0 595.28 841.89 ]');

		const parsed = await pdfParse(pdf);
		expect(parsed.numpages).toBeGreaterThan(1);
		expect(parsed.info.Title).toBe('board_meeting');
		const lines = parsed.text.split('\n');
		expect(lines).toContain('board_meeting');
		expect(lines).toContain('00:00:00 – 00:00:05');
		expect(lines).toContain('00:09:55 – 00:10:00');
		for (let page = 1; page <= parsed.numpages; page++)
			expect(lines).toContain(`${page} / ${parsed.numpages}`);
		// Lines are wrapped, so compare the text with whitespace removed.
		const flat = parsed.text.replace(/\s+/g, '');
		for (const segment of transcript.segments)
			expect(flat).toContain(segment.text.replace(/\s+/g, ''));
	});

	it('renders Hebrew right to left with an embedded Hebrew font', async () => {
		const pdf = await renderArtifact('pdf', longTranscript('ראיון.wav'));
		const bytes = pdf.toString('latin1');
		expect(bytes.match(/\/FontFile2/g)).toHaveLength(3);
		expect(bytes).toContain('/TSHEBR+NotoSansHebrew-Regular');
		expect(bytes).toContain('/TSHEBB+NotoSansHebrew-Bold');
		// Digits, punctuation and "Kubernetes" come from Noto Sans: Noto Sans Hebrew has only Hebrew letters.
		expect(bytes).toContain('/TSLATR+NotoSans-Regular');

		const parsed = await pdfParse(pdf);
		expect(parsed.numpages).toBeGreaterThan(1);
		const lines = parsed.text.split('\n');
		expect(lines).toContain('ראיון');
		/*
		 * The text extractor (pdf.js) writes a line's pieces in the order they stand on the page, left
		 * to right, and puts the letters of each Hebrew piece back into reading order. So a line reads
		 * here as the page does from left to right: the sentence's last word and its full stop first.
		 * A reader, reading from the right, sees "נתחיל בעדכון קצר על המצב של הפרויקט."
		 */
		expect(lines).toContain('.הפרויקט של המצב על קצר בעדכון נתחיל');
		expect(lines).toContain('.Kubernetes, Grafana על גם נדבר .היום שהגעתם לכולכם ותודה ,טוב בוקר');
		// In a right-to-left line the earlier time stands on the right.
		expect(lines).toContain('00:00:05 – 00:00:00');
	});

	it('draws pointed Hebrew without its points, which pdf-lib cannot position', async () => {
		const transcript = mockTranscript({
			filename: 'שיחה.wav',
			translateToHebrew: false,
			userPrompt: 'שָׁלוֹם',
		});
		const parsed = await pdfParse(await renderArtifact('pdf', transcript));
		expect(parsed.text).toContain('שלום');
		expect(parsed.text).not.toMatch(/\p{Mn}/u);
	});

	it('gives the same bytes for the same transcript', async () => {
		const transcript = mockTranscript({
			filename: 'call.wav',
			translateToHebrew: true,
			userPrompt: null,
		});
		const first = await renderArtifact('pdf', transcript);
		expect((await renderArtifact('pdf', transcript)).equals(first)).toBe(true);
		expect(first.toString('latin1')).toContain('/CreationDate (D:20260101000000Z)');
	});
});

/** Each `<w:p>` of word/document.xml with its `w:pPr` and the concatenated, unescaped text of its `<w:t>`s. */
function docxParagraphs(documentXml: string): Array<{ properties: string; text: string }> {
	const unescape = (text: string) =>
		text
			.replace(/&lt;/g, '<')
			.replace(/&gt;/g, '>')
			.replace(/&quot;/g, '"')
			.replace(/&apos;/g, "'")
			.replace(/&amp;/g, '&');
	return [...documentXml.matchAll(/<w:p>(.*?)<\/w:p>/gs)].map(([, body]) => ({
		properties: /<w:pPr>(.*?)<\/w:pPr>/s.exec(body)?.[1] ?? '',
		text: [...body.matchAll(/<w:t(?: [^>]*)?>([^<]*)<\/w:t>|<w:br\/>/g)]
			.map(([match, text]) => (match === '<w:br/>' ? '\n' : unescape(text)))
			.join(''),
	}));
}

async function unzipDocx(docx: Buffer) {
	const zip = await JSZip.loadAsync(docx);
	const read = async (name: string) => {
		const entry = zip.file(name);
		if (!entry) throw new Error(`${name} is missing from the DOCX`);
		return entry.async('string');
	};
	return { zip, read };
}

describe('DOCX', () => {
	it('is a WordprocessingML package with a title and one paragraph per segment', async () => {
		const transcript = buildTranscript({
			filename: 'board_meeting.wav',
			translateToHebrew: false,
			userPrompt: "Acme & Sons, O'Brien",
			modelTier: 'standard',
			durationSeconds: 20,
		});
		const docx = await renderArtifact('docx', transcript);
		expect(docx.subarray(0, 4).equals(Buffer.from('PK\x03\x04', 'latin1'))).toBe(true);
		const { read } = await unzipDocx(docx);
		expect(await read('[Content_Types].xml')).toContain(
			'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"',
		);
		expect(await read('_rels/.rels')).toContain('Target="word/document.xml"');
		const documentXml = await read('word/document.xml');
		expect(docxParagraphs(documentXml)).toEqual([
			{ properties: '<w:pStyle w:val="Title"/>', text: 'board_meeting' },
			...transcript.segments.map(() => ({
				properties: '<w:spacing w:after="120"/>',
				text: expect.any(String),
			})),
		]);
		expect(
			docxParagraphs(documentXml)
				.slice(1)
				.map((paragraph) => paragraph.text),
		).toEqual([
			"00:00:00 – 00:00:05\nGood morning, and thank you all for being here today. We will also talk about Acme & Sons, O'Brien.",
			"00:00:05 – 00:00:10\nLet's start with a quick update on where the project stands.",
			'00:00:10 – 00:00:15\nOver the last two weeks we finished the first version of the design.',
			'00:00:15 – 00:00:20\nThe feedback from our early users has been very encouraging.',
		]);
		expect(documentXml).not.toContain('<w:bidi/>');
		expect(documentXml).not.toContain('<w:rtl/>');
		expect(documentXml).toContain('<w:rFonts w:ascii="Arial" w:cs="Arial" w:hAnsi="Arial"/>');
		expect(documentXml).toContain('<w:pgSz w:w="11906" w:h="16838"');
	});

	it('marks Hebrew paragraphs bidirectional and their runs right-to-left', async () => {
		const transcript = buildTranscript({
			filename: 'ראיון.wav',
			translateToHebrew: false,
			userPrompt: null,
			modelTier: 'standard',
			durationSeconds: 10,
		});
		const { read } = await unzipDocx(await renderArtifact('docx', transcript));
		const documentXml = await read('word/document.xml');
		const paragraphs = docxParagraphs(documentXml);
		expect(paragraphs.map((paragraph) => paragraph.text)).toEqual([
			'ראיון',
			`00:00:00 – 00:00:05\n${MEETING_CORPUS[0].he}`,
			`00:00:05 – 00:00:10\n${MEETING_CORPUS[1].he}`,
		]);
		for (const paragraph of paragraphs) expect(paragraph.properties).toContain('<w:bidi/>');
		// Title, then a time run and a text run per segment: five runs, all right-to-left, Hebrew-tagged.
		expect(documentXml.match(/<w:r>/g)).toHaveLength(5);
		expect(documentXml.match(/<w:rtl\/><w:lang w:bidi="he-IL"\/>/g)).toHaveLength(5);
		expect(await read('docProps/core.xml')).toContain('<dc:title>ראיון</dc:title>');
	});

	it('gives the same bytes for the same transcript, dated 2026-01-01', async () => {
		const transcript = mockTranscript({
			filename: 'call.wav',
			translateToHebrew: false,
			userPrompt: null,
		});
		const first = await renderArtifact('docx', transcript);
		expect((await renderArtifact('docx', transcript)).equals(first)).toBe(true);
		const { zip, read } = await unzipDocx(first);
		const coreXml = await read('docProps/core.xml');
		expect(coreXml).toContain(
			'<dcterms:created xsi:type="dcterms:W3CDTF">2026-01-01T00:00:00Z</dcterms:created>',
		);
		expect(coreXml).toContain(
			'<dcterms:modified xsi:type="dcterms:W3CDTF">2026-01-01T00:00:00Z</dcterms:modified>',
		);
		for (const entry of Object.values(zip.files))
			expect(entry.date.toISOString()).toBe('2026-01-01T00:00:00.000Z');
	});
});
