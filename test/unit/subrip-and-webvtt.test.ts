// Timed transcripts (src/artifacts/subrip.ts, webvtt.ts): the service's SRT read into cues, and the WebVTT written from
// them. Both are checked against well-kept libraries: `subtitle` reads every SRT the same way ours does, and the W3C's
// own WebVTT parser and validator (`webvtt-parser`, the one behind the W3C validator, with the full table of character
// references) finds no error in any WebVTT we write and reads back exactly the SRT's times and text. The SRTs are the
// sandbox's own renderings (English, Hebrew, a 10-hour recording) and generated cues of mixed scripts and markup.
import { renderSrt } from '../../sandbox/render/text';
import { buildTranscript } from '../../sandbox/render/transcript';
import {
	DOWNLOAD_FORMATS,
	DOWNLOAD_MEDIA_TYPES,
	escapeCueText,
	formatWebVtt,
	parseSubRip,
	sourceArtifactFormat,
	SubRipSyntaxError,
	timedCues,
	type SubRipCue,
} from '../../src/artifacts';
import {
	shownText,
	subtitleCues,
	validateWebVtt,
	webVttCues,
} from '../support/fixtures/timed-text';

/** Our WebVTT, validated by the W3C parser and read back: its times and shown text are the SRT's. */
function expectFaithfulWebVtt(cues: SubRipCue[]): void {
	const parsed = webVttCues(formatWebVtt(cues));
	expect(parsed.errors).toEqual([]);
	expect(parsed.cues).toEqual(cues);
}

function sandboxSrt(options: {
	filename: string;
	translateToHebrew?: boolean;
	userPrompt?: string;
	durationSeconds: number;
}): { srt: string; segments: ReturnType<typeof buildTranscript>['segments'] } {
	const transcript = buildTranscript({
		translateToHebrew: false,
		userPrompt: null,
		modelTier: 'standard',
		...options,
	});
	return { srt: renderSrt(transcript).toString('utf8'), segments: transcript.segments };
}

const SANDBOX_SRTS = [
	['English, 2 minutes', { filename: 'standup.wav', durationSeconds: 120 }],
	[
		'Hebrew, translated',
		{ filename: 'ראיון עם דנה.wav', translateToHebrew: true, durationSeconds: 300 },
	],
	[
		'Hebrew with markup-like vocabulary in the first cue',
		{
			filename: 'ישיבה.wav',
			translateToHebrew: true,
			userPrompt: 'R&D <team>, a --> b, &amp;',
			durationSeconds: 60,
		},
	],
	// 720 cues, the last ending at 10:00:00,000: hours of two digits.
	['English, 10 hours', { filename: 'conference.wav', durationSeconds: 36_000 }],
] as const;

describe('download formats: the service’s four and WebVTT, made from the SRT', () => {
	it('adds vtt (text/vtt), fetched as srt', () => {
		expect(DOWNLOAD_FORMATS).toEqual(['srt', 'txt', 'pdf', 'docx', 'vtt']);
		expect(DOWNLOAD_MEDIA_TYPES.vtt).toBe('text/vtt');
		expect(DOWNLOAD_FORMATS.map(sourceArtifactFormat)).toEqual([
			'srt',
			'txt',
			'pdf',
			'docx',
			'srt',
		]);
	});
});

describe('parseSubRip: the sandbox’s SRT, as `subtitle` reads it', () => {
	it.each(SANDBOX_SRTS)('%s', (_name, options) => {
		const { srt, segments } = sandboxSrt(options);
		const cues = parseSubRip(srt);
		expect(cues).toEqual(subtitleCues(srt));
		// The segments the sandbox rendered, every one: times to the millisecond, words in order (wrapped lines).
		expect(cues).toHaveLength(segments.length);
		expect(
			cues.map((cue) => ({
				startSeconds: cue.startMs / 1000,
				endSeconds: cue.endMs / 1000,
				text: cue.text.replace(/\n/g, ' '),
			})),
		).toEqual(segments);
		expect(cues.some((cue) => cue.text.includes('\n'))).toBe(true);
	});

	it('keeps a Hebrew cue of two lines as the service wrote it, markup-like text included', () => {
		const { srt } = sandboxSrt(SANDBOX_SRTS[2][1]);
		expect(parseSubRip(srt)[0]).toEqual({
			startMs: 0,
			endMs: 5000,
			text: 'בוקר טוב, ותודה לכולכם שהגעתם היום. נדבר\nגם על R&D <team>, a --> b, &amp.',
		});
	});
});

describe('parseSubRip: what it accepts', () => {
	const cue = { startMs: 1000, endMs: 2500, text: 'שלום עולם\nשורה שנייה' };

	it.each([
		['CRLF', '1\r\n00:00:01,000 --> 00:00:02,500\r\nשלום עולם\r\nשורה שנייה\r\n'],
		['LF', '1\n00:00:01,000 --> 00:00:02,500\nשלום עולם\nשורה שנייה\n'],
		['a byte-order mark', '\uFEFF1\n00:00:01,000 --> 00:00:02,500\nשלום עולם\nשורה שנייה'],
		['no cue number', '00:00:01,000 --> 00:00:02,500\nשלום עולם\nשורה שנייה\n'],
		['blank lines around', '\n\n1\n00:00:01,000 --> 00:00:02,500\nשלום עולם\nשורה שנייה\n\n\n'],
	])('%s, as `subtitle` reads it', (_case, srt) => {
		expect(parseSubRip(srt)).toEqual([cue]);
		expect(subtitleCues(srt)).toEqual([cue]);
	});

	// Where `subtitle` stops or keeps spaces as text, but players read a cue.
	it.each([
		['CR line ends (classic Mac)', '1\r00:00:01,000 --> 00:00:02,500\rשלום עולם\rשורה שנייה\r'],
		[
			'lines of spaces as blank lines',
			'1\n00:00:01,000 --> 00:00:02,500\nשלום עולם\nשורה שנייה\n \n\t\n',
		],
		[
			'tabs and spaces around the arrow',
			'1\n00:00:01,000\t-->  00:00:02,500  \nשלום עולם\nשורה שנייה\n',
		],
	])('%s', (_case, srt) => {
		expect(parseSubRip(srt)).toEqual([cue]);
	});

	it('keeps text exactly: right-to-left marks, embeddings, spaces inside lines, tags as text', () => {
		const text = '\u200Fשלום,  עולם!\u200F\n\u202Bמספר 42 בתוך משפט\u202C\n<i>R&D</i> &lt; --> ';
		expect(parseSubRip(`7\n00:00:00,000 --> 00:00:01,000\n${text}\n`)).toEqual([
			{ startMs: 0, endMs: 1000, text },
		]);
	});

	it('reads a cue without text, a cue of one instant and hours beyond 99', () => {
		expect(
			parseSubRip(
				'1\n00:00:01,000 --> 00:00:02,000\n\n2\n00:00:03,000 --> 00:00:03,000\nרגע\n\n3\n123:04:05,678 --> 123:04:06,000\nlate\n',
			),
		).toEqual([
			{ startMs: 1000, endMs: 2000, text: '' },
			{ startMs: 3000, endMs: 3000, text: 'רגע' },
			{ startMs: 443_045_678, endMs: 443_046_000, text: 'late' },
		]);
	});

	it('reads an empty text, or only blank lines, as no cues', () => {
		expect(parseSubRip('')).toEqual([]);
		expect(parseSubRip('\uFEFF\r\n\r\n')).toEqual([]);
	});
});

describe('parseSubRip: what it refuses, naming the line', () => {
	it.each([
		[
			'a dot before the milliseconds',
			'1\n00:00:01.000 --> 00:00:02,000\ntext\n',
			2,
			'expected the timing line "HH:MM:SS,mmm --> HH:MM:SS,mmm" of cue 1, found "00:00:01.000 --> 00:00:02,000"',
		],
		['60 minutes', '1\n00:60:00,000 --> 01:00:01,000\ntext\n', 2, 'of cue 1'],
		['two digits of milliseconds', '1\n00:00:01,00 --> 00:00:02,000\ntext\n', 2, 'of cue 1'],
		['a missing end', '1\n00:00:01,000 -->\ntext\n', 2, 'of cue 1'],
		[
			'a number and nothing after it',
			'1\n00:00:01,000 --> 00:00:02,000\ntext\n\n2\n',
			6,
			'found the end of the text or an empty line',
		],
		[
			'text where a cue should start',
			'1\n00:00:01,000 --> 00:00:02,000\ntext\n\nstray words after a blank line\n',
			5,
			'expected a cue number or a timing line "HH:MM:SS,mmm --> HH:MM:SS,mmm", found "stray words after a blank line"',
		],
		[
			'two cues without a blank line between them',
			'1\n00:00:01,000 --> 00:00:02,000\nfirst\n2\n00:00:03,000 --> 00:00:04,000\nsecond\n',
			5,
			'a timing line inside the text of the cue before it: cues must be separated by a blank line',
		],
		[
			'a cue that ends before it starts',
			'1\r\n00:00:05,000 --> 00:00:04,999\r\ntext\r\n',
			2,
			'the cue ends before it starts',
		],
		['a WebVTT file', 'WEBVTT\n\n00:00:01.000 --> 00:00:02.000\ntext\n', 1, 'found "WEBVTT"'],
	])('%s', (_case, srt, line, reason) => {
		let caught: unknown;
		try {
			parseSubRip(srt);
		} catch (error) {
			caught = error;
		}
		expect(caught).toBeInstanceOf(SubRipSyntaxError);
		expect((caught as SubRipSyntaxError).line).toBe(line);
		expect((caught as Error).message).toContain(`line ${line}: `);
		expect((caught as Error).message).toContain(reason);
	});

	it('quotes at most 40 characters of the line it could not read', () => {
		expect(() => parseSubRip(`${'א'.repeat(100)}\n`)).toThrow(
			`line 1: expected a cue number or a timing line "HH:MM:SS,mmm --> HH:MM:SS,mmm", found "${'א'.repeat(40)}…"`,
		);
	});
});

describe('timedCues: the cues an item carries', () => {
	it('gives start and end in seconds, text as in the SRT', () => {
		expect(timedCues(parseSubRip('1\n00:01:02,345 --> 01:00:00,001\nשלום\nעולם\n'))).toEqual([
			{ start: 62.345, end: 3600.001, text: 'שלום\nעולם' },
		]);
	});
});

describe('formatWebVtt: exact output', () => {
	it('writes the header, `.` timestamps, LF lines, multi-line cues, escaped text, RTL untouched', () => {
		const srt =
			'1\r\n00:00:01,000 --> 00:00:02,500\r\nשלום, <i>עולם</i> & R&D\r\nשורה --> שנייה\r\n\r\n2\r\n00:00:03,000 --> 00:00:04,000\r\n\u200Fשלישית\r\n';
		expect(formatWebVtt(parseSubRip(srt))).toBe(
			'WEBVTT\n\n00:00:01.000 --> 00:00:02.500\nשלום, &lt;i&gt;עולם&lt;/i&gt; &amp; R&amp;D\nשורה --&gt; שנייה\n\n00:00:03.000 --> 00:00:04.000\n\u200Fשלישית\n',
		);
	});

	it('writes no cues as the header alone', () => {
		expect(formatWebVtt([])).toBe('WEBVTT\n');
		expect(validateWebVtt('WEBVTT\n').errors).toEqual([]);
	});

	it('escapes only &, < and >', () => {
		expect(escapeCueText('a < b > c & d; &lt; -->\u200F')).toBe(
			'a &lt; b &gt; c &amp; d; &amp;lt; --&gt;\u200F',
		);
	});

	it('orders cues by start time and gives a cue of one instant 1 ms, as WebVTT requires', () => {
		const cues: SubRipCue[] = [
			{ startMs: 5000, endMs: 6000, text: 'second' },
			{ startMs: 1000, endMs: 1000, text: 'instant' },
			{ startMs: 5000, endMs: 5500, text: 'third, same start' },
		];
		const vtt = formatWebVtt(cues);
		expect(vtt).toBe(
			'WEBVTT\n\n00:00:01.000 --> 00:00:01.001\ninstant\n\n00:00:05.000 --> 00:00:06.000\nsecond\n\n00:00:05.000 --> 00:00:05.500\nthird, same start\n',
		);
		expect(validateWebVtt(vtt).errors).toEqual([]);
	});

	it('writes hours of three digits and a cue without text, both valid', () => {
		const vtt = formatWebVtt([
			{ startMs: 1000, endMs: 2000, text: '' },
			{ startMs: 443_045_678, endMs: 443_046_000, text: 'late' },
		]);
		expect(vtt).toBe(
			'WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n\n123:04:05.678 --> 123:04:06.000\nlate\n',
		);
		const parsed = validateWebVtt(vtt);
		expect(parsed.errors).toEqual([]);
		expect(parsed.cues.map((cue) => [cue.startTime, cue.endTime, cue.text])).toEqual([
			[1, 2, ''],
			[443_045.678, 443_046, 'late'],
		]);
	});

	it('without escaping, the W3C parser would read markup and lose text: the reason for it', () => {
		const cue = (text: string) =>
			validateWebVtt(`WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n${text}\n`).cues[0].tree;
		expect(shownText(cue('a < b <i>c</i>'))).toBe('a c');
		expect(() => shownText(cue('a <i>c</i>'))).toThrow('markup got through');
		expect(shownText(cue(escapeCueText('a < b <i>c</i>')))).toBe('a < b <i>c</i>');
	});
});

describe('formatWebVtt: valid for the W3C parser, which reads back the SRT’s times and text', () => {
	it.each(SANDBOX_SRTS)('the sandbox’s SRT: %s', (_name, options) => {
		expectFaithfulWebVtt(parseSubRip(sandboxSrt(options).srt));
	});

	it('generated cues of mixed scripts, markup, references and arrows', () => {
		const random = seededRandom(30);
		const pieces = [
			'שלום',
			'עולם',
			'مرحبا',
			'hello',
			'R&D',
			'<b>',
			'</i>',
			'<c.red>',
			'&lt;',
			'&amp;',
			'&nbsp;',
			'-->',
			'->',
			'a<b',
			'x>y',
			'\u200F',
			'\u202B',
			'\u202C',
			'🎙️',
			'00:00:01.000',
			';',
			'NOTE',
			'STYLE',
		];
		let comparedWithSubtitle = 0;
		for (let round = 0; round < 50; round++) {
			let clock = Math.floor(random() * 1000);
			const cues: SubRipCue[] = Array.from({ length: 1 + Math.floor(random() * 8) }, () => {
				const startMs = clock;
				clock += 1 + Math.floor(random() * 5000);
				const lines = Array.from({ length: 1 + Math.floor(random() * 3) }, () =>
					Array.from(
						{ length: 1 + Math.floor(random() * 6) },
						() => pieces[Math.floor(random() * pieces.length)],
					).join(' '),
				);
				return { startMs, endMs: clock, text: lines.join('\n') };
			});
			const srt = cues
				.map(
					(cue, index) =>
						`${index + 1}\r\n${srtTime(cue.startMs)} --> ${srtTime(cue.endMs)}\r\n${cue.text.replace(/\n/g, '\r\n')}`,
				)
				.join('\r\n\r\n');
			const parsed = parseSubRip(srt);
			expect(parsed).toEqual(cues);
			// `subtitle` reads WebVTT too, and takes a line that starts with NOTE or STYLE for a block of its own.
			if (!/^(NOTE|STYLE)/m.test(srt)) {
				expect(subtitleCues(srt)).toEqual(cues);
				comparedWithSubtitle++;
			}
			expectFaithfulWebVtt(parsed);
		}
		expect(comparedWithSubtitle).toBeGreaterThanOrEqual(15);
	});
});

function srtTime(totalMs: number): string {
	const pad = (value: number, width = 2) => String(value).padStart(width, '0');
	return `${pad(Math.floor(totalMs / 3_600_000))}:${pad(Math.floor(totalMs / 60_000) % 60)}:${pad(Math.floor(totalMs / 1000) % 60)},${pad(totalMs % 1000, 3)}`;
}

/** mulberry32: the same cues on every run. */
function seededRandom(seed: number): () => number {
	let state = seed;
	return () => {
		state = (state + 0x6d2b79f5) | 0;
		let value = Math.imul(state ^ (state >>> 15), 1 | state);
		value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
		return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
	};
}
