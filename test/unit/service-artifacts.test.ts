// src/service, the service's side of an artifact (the sandbox builds its answers with it): which format a download
// request selects (spec 4.7) and the Content-Disposition it answers with (docs/api-notes.md), read back by the nodes'
// parser and the content-disposition library.
import contentDisposition from 'content-disposition';

import { parseContentDisposition } from '../../src/artifacts';
import {
	type SelectArtifactFormatInput,
	type SelectArtifactFormatResult,
	formatContentDisposition,
	selectArtifactFormat,
} from '../../src/service';

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

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
