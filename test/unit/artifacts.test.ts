import contentDisposition from 'content-disposition';

import {
	ARTIFACT_FORMATS,
	ARTIFACT_MEDIA_TYPES,
	artifactFileName,
	formatForMediaType,
	normalizeArtifactFormat,
	parseContentDisposition,
} from '../../src/artifacts';
import { artifactFileNameFrom, downloadsFor } from '../../nodes/shared/artifact';
import {
	type SelectArtifactFormatInput,
	type SelectArtifactFormatResult,
	formatContentDisposition,
	selectArtifactFormat,
} from '../../src/service';

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

describe('selectArtifactFormat (4.7 order: path extension > format query > Accept > output_format)', () => {
	const cases: Array<[string, SelectArtifactFormatInput, SelectArtifactFormatResult]> = [
		// (1) path extension
		[
			'path beats query, Accept and output_format',
			{ pathFormat: 'pdf', queryFormat: 'docx', accept: 'text/plain', outputFormat: 'srt' },
			{ ok: true, format: 'pdf', source: 'path' },
		],
		[
			'path is case-insensitive',
			{ pathFormat: 'DOCX' },
			{ ok: true, format: 'docx', source: 'path' },
		],
		[
			'unsupported path value is an error even with a valid query',
			{ pathFormat: 'mp3', queryFormat: 'srt' },
			{ ok: false, code: 'unsupported_artifact_format', source: 'path', value: 'mp3' },
		],
		[
			'the plain_text alias is not a path extension (4.8 lists four)',
			{ pathFormat: 'plain_text' },
			{ ok: false, code: 'unsupported_artifact_format', source: 'path', value: 'plain_text' },
		],
		[
			'an empty path value counts as absent',
			{ pathFormat: '', queryFormat: 'srt' },
			{ ok: true, format: 'srt', source: 'query' },
		],
		// (2) format query parameter
		[
			'query beats Accept and output_format',
			{ queryFormat: 'docx', accept: 'application/pdf', outputFormat: 'srt' },
			{ ok: true, format: 'docx', source: 'query' },
		],
		[
			'query accepts the plain_text alias',
			{ queryFormat: 'plain_text' },
			{ ok: true, format: 'txt', source: 'query' },
		],
		[
			'query is trimmed and case-insensitive',
			{ queryFormat: ' PDF ' },
			{ ok: true, format: 'pdf', source: 'query' },
		],
		[
			'unsupported query value is an error even with a valid Accept',
			{ queryFormat: 'html', accept: 'application/pdf' },
			{ ok: false, code: 'unsupported_artifact_format', source: 'query', value: 'html' },
		],
		[
			'an empty query value counts as absent',
			{ queryFormat: '  ', accept: 'application/pdf' },
			{ ok: true, format: 'pdf', source: 'accept' },
		],
		// (3) Accept
		[
			'Accept beats output_format',
			{ accept: 'application/pdf', outputFormat: 'srt' },
			{ ok: true, format: 'pdf', source: 'accept' },
		],
		[
			'Accept with the DOCX media type',
			{ accept: DOCX },
			{ ok: true, format: 'docx', source: 'accept' },
		],
		[
			'Accept application/x-subrip over output_format plain_text',
			{ accept: 'application/x-subrip', outputFormat: 'plain_text' },
			{ ok: true, format: 'srt', source: 'accept' },
		],
		[
			'Accept text/plain with parameters',
			{ accept: 'text/plain; charset=utf-8' },
			{ ok: true, format: 'txt', source: 'accept' },
		],
		[
			'Accept media types are case-insensitive',
			{ accept: 'APPLICATION/PDF' },
			{ ok: true, format: 'pdf', source: 'accept' },
		],
		[
			'the highest q-value wins',
			{ accept: `application/pdf;q=0.5, ${DOCX};q=0.9`, outputFormat: 'srt' },
			{ ok: true, format: 'docx', source: 'accept' },
		],
		[
			'a preferred type beats a low-q wildcard',
			{ accept: 'application/pdf, */*;q=0.1', outputFormat: 'srt' },
			{ ok: true, format: 'pdf', source: 'accept' },
		],
		[
			'a wildcard with a higher q keeps output_format',
			{ accept: 'application/pdf;q=0.5, */*', outputFormat: 'srt' },
			{ ok: true, format: 'srt', source: 'output_format' },
		],
		[
			'q=0 refuses a type even under a wildcard',
			{ accept: 'application/x-subrip;q=0, */*', outputFormat: 'srt' },
			{ ok: true, format: 'txt', source: 'accept' },
		],
		[
			'*/* falls through to output_format',
			{ accept: '*/*', outputFormat: 'srt' },
			{ ok: true, format: 'srt', source: 'output_format' },
		],
		[
			'*/* without output_format gives text/plain',
			{ accept: '*/*' },
			{ ok: true, format: 'txt', source: 'default' },
		],
		[
			'text/* picks the one text format',
			{ accept: 'text/*', outputFormat: 'srt' },
			{ ok: true, format: 'txt', source: 'accept' },
		],
		[
			'application/* keeps output_format when it is among the matches',
			{ accept: 'application/*', outputFormat: 'srt' },
			{ ok: true, format: 'srt', source: 'output_format' },
		],
		[
			'equal q-values: the first listed wins when output_format is not among them',
			{ accept: `${DOCX}, application/pdf`, outputFormat: 'srt' },
			{ ok: true, format: 'docx', source: 'accept' },
		],
		[
			'equal q-values that include the fallback keep the fallback',
			{ accept: 'application/pdf, text/plain' },
			{ ok: true, format: 'txt', source: 'default' },
		],
		[
			'no supported type falls through to output_format',
			{ accept: 'image/png', outputFormat: 'srt' },
			{ ok: true, format: 'srt', source: 'output_format' },
		],
		[
			'no supported type and no output_format gives text/plain',
			{ accept: 'image/png' },
			{ ok: true, format: 'txt', source: 'default' },
		],
		[
			'a range with an invalid q-value is ignored',
			{ accept: 'application/pdf;q=abc', outputFormat: 'srt' },
			{ ok: true, format: 'srt', source: 'output_format' },
		],
		[
			'a malformed Accept is ignored',
			{ accept: 'pdf, */x', outputFormat: 'srt' },
			{ ok: true, format: 'srt', source: 'output_format' },
		],
		// (4) output_format, then the spec's default text/plain
		[
			'output_format srt',
			{ outputFormat: 'srt' },
			{ ok: true, format: 'srt', source: 'output_format' },
		],
		[
			'output_format plain_text means txt',
			{ outputFormat: 'plain_text' },
			{ ok: true, format: 'txt', source: 'output_format' },
		],
		['nothing given: text/plain', {}, { ok: true, format: 'txt', source: 'default' }],
		[
			'all null: text/plain',
			{ pathFormat: null, queryFormat: null, accept: null, outputFormat: null },
			{ ok: true, format: 'txt', source: 'default' },
		],
		[
			'an unknown output_format: text/plain',
			{ outputFormat: 'vtt' },
			{ ok: true, format: 'txt', source: 'default' },
		],
	];

	it.each(cases)('%s', (_name, input, expected) => {
		expect(selectArtifactFormat(input)).toEqual(expected);
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

describe('formatContentDisposition (docs/api-notes.md: ASCII fallback + UTF-8 filename*)', () => {
	it('writes both filename= and filename*=', () => {
		expect(formatContentDisposition('clip.srt')).toBe(
			`attachment; filename="clip.srt"; filename*=UTF-8''clip.srt`,
		);
	});

	it('percent-encodes a Hebrew name and falls back to underscores', () => {
		expect(formatContentDisposition('ראיון עם דנה.srt')).toBe(
			`attachment; filename="_____ __ ___.srt"; filename*=UTF-8''%D7%A8%D7%90%D7%99%D7%95%D7%9F%20%D7%A2%D7%9D%20%D7%93%D7%A0%D7%94.srt`,
		);
	});

	it('drops accents in the fallback and escapes quotes and backslashes', () => {
		expect(formatContentDisposition('Café "v2" \\ (final)*.pdf', 'inline')).toBe(
			`inline; filename="Cafe \\"v2\\" \\\\ (final)*.pdf"; filename*=UTF-8''Caf%C3%A9%20%22v2%22%20%5C%20%28final%29%2A.pdf`,
		);
	});

	it.each([
		'clip.srt',
		'ראיון עם דנה.srt',
		'🎙 clip 🎉.docx',
		'say "hi".txt',
		'back\\slash.txt',
		'100% done.srt',
		'a;b=c.srt',
		"it's (final) *v2*.pdf",
		'tab\tand\nnewline.txt',
		'Café Zürich.pdf',
		'מסמך – final (2).docx',
		' spaced  name .srt',
	])('parses back to the same name with the library and with ours: %j', (name) => {
		const header = formatContentDisposition(name);
		expect(contentDisposition.parse(header)).toEqual(
			expect.objectContaining({ type: 'attachment', parameters: { filename: name } }),
		);
		expect(parseContentDisposition(header)).toEqual({
			type: 'attachment',
			parameters: { filename: name },
			filename: name,
		});
	});
});

describe('artifactFileName (stem of the uploaded file + selected extension)', () => {
	it.each<[string | null | undefined, (typeof ARTIFACT_FORMATS)[number], string]>([
		['clip.final.wav', 'srt', 'clip.final.srt'],
		['interview.mp3', 'pdf', 'interview.pdf'],
		['ראיון עם דנה.m4a', 'docx', 'ראיון עם דנה.docx'],
		['noextension', 'txt', 'noextension.txt'],
		['trailing.', 'srt', 'trailing.srt'],
		['.wav', 'srt', 'transcript.srt'],
		['folder/sub/clip.wav', 'txt', 'clip.txt'],
		['C:\\Users\\me\\clip.wav', 'txt', 'clip.txt'],
		['  spaced .wav', 'srt', 'spaced.srt'],
		['', 'srt', 'transcript.srt'],
		[null, 'pdf', 'transcript.pdf'],
		[undefined, 'docx', 'transcript.docx'],
	])('artifactFileName(%j, %j) → %j', (uploaded, format, expected) => {
		expect(artifactFileName(uploaded, format)).toBe(expected);
	});
});

describe('the file name of a download: the Format names the extension, the service only the stem', () => {
	it.each<[string | undefined, (typeof ARTIFACT_FORMATS)[number], string]>([
		['attachment; filename="invoice.html"', 'srt', 'invoice.srt'],
		['attachment; filename="meeting.srt"', 'srt', 'meeting.srt'],
		["attachment; filename*=UTF-8''%D7%A8%D7%90%D7%99%D7%95%D7%9F.txt", 'docx', 'ראיון.docx'],
		["attachment; filename*=UTF-8''invoice%E2%80%AEcod.exe", 'pdf', 'invoicecod.pdf'],
		['attachment; filename="../../etc/passwd"', 'txt', '.._.._etc_passwd.txt'],
		['attachment; filename="a.b.c.html"', 'txt', 'a.b.c.txt'],
		['attachment; filename="report.final_v2"', 'pdf', 'report.final_v2.pdf'],
		['attachment; filename="trailing. "', 'srt', 'trailing.srt'],
		[`attachment; filename="${'x'.repeat(300)}.pdf"`, 'docx', `${'x'.repeat(195)}.docx`],
		['attachment; filename=".htaccess"', 'srt', 'job_1.srt'],
		['attachment', 'srt', 'job_1.srt'],
		[undefined, 'pdf', 'job_1.pdf'],
	])('%j asked as %s → %j', (header, format, expected) => {
		expect(artifactFileNameFrom(header, 'job_1', format)).toBe(expected);
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
