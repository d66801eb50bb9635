// src/artifacts: the artifact formats and their media types (spec 2.4), reading a Content-Disposition, and how many
// downloads a choice of formats costs. Download file names are in file-names.test.ts; the service's side (format
// selection, writing a Content-Disposition) in service-artifacts.test.ts.
import contentDisposition from 'content-disposition';

import {
	ARTIFACT_FORMATS,
	ARTIFACT_MEDIA_TYPES,
	downloadsFor,
	formatForMediaType,
	normalizeArtifactFormat,
	parseContentDisposition,
} from '../../src/artifacts';

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

describe('artifact formats and media types (2.4)', () => {
	it('has the four formats with the media types of the spec', () => {
		expect(ARTIFACT_FORMATS).toEqual(['srt', 'txt', 'pdf', 'docx']);
		expect(ARTIFACT_MEDIA_TYPES).toEqual({
			srt: 'application/x-subrip',
			txt: 'text/plain',
			pdf: 'application/pdf',
			docx: DOCX,
		});
	});

	it.each([
		['srt', 'srt'],
		['txt', 'txt'],
		['pdf', 'pdf'],
		['docx', 'docx'],
		['plain_text', 'txt'],
		[' PDF ', 'pdf'],
		['Plain_Text', 'txt'],
		['html', undefined],
		['', undefined],
		['constructor', undefined],
		[null, undefined],
		[undefined, undefined],
	])('normalizeArtifactFormat(%j) → %j', (value, expected) => {
		expect(normalizeArtifactFormat(value)).toBe(expected);
	});

	it.each([
		['application/x-subrip', 'srt'],
		['text/plain', 'txt'],
		['text/plain; charset=utf-8', 'txt'],
		['Application/PDF', 'pdf'],
		[DOCX, 'docx'],
		['text/html', undefined],
		['', undefined],
	])('formatForMediaType(%j) → %j', (mediaType, expected) => {
		expect(formatForMediaType(mediaType)).toBe(expected);
	});
});

describe('parseContentDisposition (RFC 6266 + RFC 5987), cross-checked against the content-disposition library', () => {
	const hebrewName = 'ראיון עם דנה.srt';
	const hebrewEncoded = encodeURIComponent(hebrewName);
	const headers = [
		'attachment',
		'inline',
		'attachment; filename="report.srt"',
		'attachment; filename=report.srt',
		'ATTACHMENT; FILENAME="Report.SRT"',
		'attachment; filename="say \\"hi\\" and \\\\ back.txt"',
		'attachment; filename="a;b=c; d.srt"',
		'attachment; filename="my interview final.srt"',
		'attachment; filename="100% done.srt"',
		'attachment; filename="café.txt"',
		'attachment; filename = "spaced.srt"',
		'attachment;\tfilename="tab.srt"',
		`attachment; filename*=UTF-8''${hebrewEncoded}`,
		`attachment; filename="_____ __ ___.srt"; filename*=UTF-8''${hebrewEncoded}`,
		`attachment; filename*=UTF-8''${hebrewEncoded}; filename="fallback.srt"`,
		'attachment; filename*=UTF-8\'\'%E2%82%AC%20rates.pdf; filename="EUR rates.pdf"',
		"attachment; filename*=utf-8''a%20b.txt",
		"attachment; filename*=utf8''a%20b.txt",
		"attachment; filename*=UTF-8'he'%D7%A9.txt",
		"attachment; filename*=iso-8859-1'en'%A3%20rates.txt",
		"attachment; filename*=UTF-8''%F0%9F%8E%99%EF%B8%8F%20clip%20%F0%9F%8E%89.srt",
		"attachment; filename*=UTF-8''100%25%20done%3B%20really.srt",
		"attachment; filename*=UTF-8''%E2%82.txt",
		'attachment; filename="x.srt"; size=123; creation-date="Wed, 12 Feb 1997 16:29:51 -0500"',
		'form-data; name="file"; filename="clip.wav"',
		contentDisposition(hebrewName),
		contentDisposition('🎙 clip "final".srt', { type: 'inline' }),
		contentDisposition('100% done.srt'),
		contentDisposition('plain.srt'),
	];

	it.each(headers)('agrees with the library on %s', (header) => {
		const library = contentDisposition.parse(header);
		const ours = parseContentDisposition(header);
		expect(ours.type).toBe(library.type);
		expect(ours.parameters).toEqual(library.parameters);
		expect(ours.filename).toBe(library.parameters.filename);
	});

	it('decodes a Hebrew filename* and prefers it over the ASCII fallback', () => {
		expect(
			parseContentDisposition(
				`attachment; filename="_____ __ ___.srt"; filename*=UTF-8''${hebrewEncoded}`,
			),
		).toEqual({
			type: 'attachment',
			parameters: { filename: hebrewName },
			filename: hebrewName,
		});
	});

	it.each<
		[
			string,
			string | null | undefined,
			{ type: string; parameters: Record<string, string>; filename?: string },
		]
	>([
		['null', null, { type: '', parameters: {} }],
		['undefined', undefined, { type: '', parameters: {} }],
		['an empty header', '', { type: '', parameters: {} }],
		['only semicolons', ';;;', { type: '', parameters: {} }],
		[
			'an empty value',
			'attachment; filename=',
			{ type: 'attachment', parameters: { filename: '' }, filename: '' },
		],
		[
			'an unterminated quote',
			'attachment; filename="unterminated.srt',
			{
				type: 'attachment',
				parameters: { filename: 'unterminated.srt' },
				filename: 'unterminated.srt',
			},
		],
		[
			'an unquoted value with spaces',
			'attachment; filename=my file.srt',
			{ type: 'attachment', parameters: { filename: 'my file.srt' }, filename: 'my file.srt' },
		],
		[
			'no disposition type',
			'filename="no-type.srt"',
			{ type: '', parameters: { filename: 'no-type.srt' }, filename: 'no-type.srt' },
		],
		[
			'duplicate plain values (the first is kept)',
			'attachment; filename="a.srt"; filename="b.srt"',
			{ type: 'attachment', parameters: { filename: 'a.srt' }, filename: 'a.srt' },
		],
		[
			'duplicate extended values (the first is kept)',
			"attachment; filename*=UTF-8''first.txt; filename*=UTF-8''second.txt",
			{ type: 'attachment', parameters: { filename: 'first.txt' }, filename: 'first.txt' },
		],
		[
			'an unknown charset (the plain value stays)',
			'attachment; filename*=x-klingon\'\'abc.txt; filename="fallback.txt"',
			{ type: 'attachment', parameters: { filename: 'fallback.txt' }, filename: 'fallback.txt' },
		],
		[
			'an extended value without quotes around the charset',
			'attachment; filename*=just-text.txt; filename="fallback.txt"',
			{ type: 'attachment', parameters: { filename: 'fallback.txt' }, filename: 'fallback.txt' },
		],
		[
			'a quoted extended value',
			'attachment; filename*="UTF-8\'\'quoted%20ext.srt"',
			{
				type: 'attachment',
				parameters: { filename: 'quoted ext.srt' },
				filename: 'quoted ext.srt',
			},
		],
		[
			'a stray percent sign in an extended value',
			"attachment; filename*=UTF-8''bad%zzpercent.srt",
			{
				type: 'attachment',
				parameters: { filename: 'bad%zzpercent.srt' },
				filename: 'bad%zzpercent.srt',
			},
		],
		[
			'a parameter without a name or value',
			'attachment; =value; novalue; filename=ok.srt',
			{ type: 'attachment', parameters: { filename: 'ok.srt' }, filename: 'ok.srt' },
		],
		[
			'junk after a closing quote',
			'attachment; filename="a.srt"junk; size=1',
			{ type: 'attachment', parameters: { filename: 'a.srt', size: '1' }, filename: 'a.srt' },
		],
		[
			'a parameter named like an Object.prototype member',
			'attachment; __proto__=x; constructor=y',
			{ type: 'attachment', parameters: { ['__proto__']: 'x', constructor: 'y' } },
		],
	])('never throws on %s and returns what it can read', (_name, header, expected) => {
		const parsed = parseContentDisposition(header);
		expect(parsed).toEqual(expected);
		expect(Object.keys(parsed.parameters)).toEqual(Object.keys(expected.parameters));
	});

	it('never throws on arbitrary strings', () => {
		const alphabet = [
			'a',
			';',
			'=',
			'"',
			'\\',
			"'",
			'*',
			'%',
			'F',
			'0',
			' ',
			'ש',
			'🎉',
			'\u0000',
			'filename',
			'UTF-8',
		];
		let seed = 12345;
		const nextIndex = (): number => {
			seed = (seed * 1103515245 + 12345) % 2 ** 31;
			return seed % alphabet.length;
		};
		for (let sample = 0; sample < 2000; sample++) {
			const header = Array.from({ length: nextIndex() * 3 }, () => alphabet[nextIndex()]).join('');
			expect(() => parseContentDisposition(header)).not.toThrow();
		}
	});
});

describe('downloadsFor: one SRT download serves SRT, WebVTT and the cues', () => {
	it.each<[Parameters<typeof downloadsFor>[0]['choices'], boolean, number]>([
		[['srt'], false, 1],
		[['srt', 'vtt'], false, 1],
		[['vtt'], true, 1],
		[['srt', 'vtt'], true, 1],
		[['docx'], true, 2],
		[['srt', 'txt', 'pdf', 'docx', 'vtt'], true, 4],
		// The job's default may be TXT: counted as two.
		[['job_default'], true, 2],
	])('%j, cues %s: %i', (choices, cues, expected) => {
		expect(downloadsFor({ choices, cues })).toBe(expected);
	});
});
