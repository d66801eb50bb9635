import sanitize from 'sanitize-filename';

import {
	ARTIFACT_FORMATS,
	artifactFileName,
	cleanFileName,
	MAX_FILE_NAME_BYTES,
} from '../../src/artifacts';
import { artifactFileNameFrom } from '../../nodes/shared/artifact';

// Names from Content-Disposition (and uploads) become n8n binary file names that users write to disk.
describe('cleanFileName', () => {
	it.each([
		['interview.srt', 'interview.srt'],
		['ראיון עם דנה.srt', 'ראיון עם דנה.srt'],
		['Café crème.docx', 'Café crème.docx'],
		['🎙️ podcast.txt', '🎙️ podcast.txt'],
		['مقابلة.pdf', 'مقابلة.pdf'],
	])('keeps real letters: %j', (input, expected) => {
		expect(cleanFileName(input)).toBe(expected);
	});

	it.each([
		['a NUL', 'report\u0000.srt', 'report_.srt'],
		['CR/LF (header injection)', 'a\r\nX-Evil: 1.srt', 'a__X-Evil_ 1.srt'],
		['a tab and DEL', 'a\tb\u007f.srt', 'a_b_.srt'],
		['a C1 control', 'a\u0085b.srt', 'a_b.srt'],
		['path separators', '../../etc/passwd', '.._.._etc_passwd'],
		['a Windows path', 'C:\\Users\\x.srt', 'C__Users_x.srt'],
		['characters Windows refuses', 'a<b>c:d"e|f?g*h.srt', 'a_b_c_d_e_f_g_h.srt'],
	])('replaces %s with "_"', (_label, input, expected) => {
		expect(cleanFileName(input)).toBe(expected);
	});

	it.each([
		['a right-to-left override', 'invoice\u202Etrs.exe', 'invoicetrs.exe'],
		['isolates and embeddings', '\u2066a\u2069\u202Ab\u202C.srt', 'ab.srt'],
		['marks and the Arabic letter mark', 'a\u200Eb\u200F\u061Cc.srt', 'abc.srt'],
		['a zero-width space and a BOM', '\uFEFFa\u200Bb.srt', 'ab.srt'],
	])('removes invisible formatting: %s', (_label, input, expected) => {
		expect(cleanFileName(input)).toBe(expected);
	});

	it('keeps zero-width joiners, which scripts and emoji need', () => {
		expect(cleanFileName('می\u200Cخواهم.txt')).toBe('می\u200Cخواهم.txt');
		expect(cleanFileName('👩\u200D💻.txt')).toBe('👩\u200D💻.txt');
	});

	it.each([
		['', ''],
		['   ', ''],
		['.', ''],
		['..', ''],
		['\u202E', ''],
		['\u0000\u0000', ''],
	])('returns "" for %j, so the caller picks the fallback', (input, expected) => {
		expect(cleanFileName(input)).toBe(expected);
	});

	it('drops trailing dots and spaces, and prefixes Windows device names', () => {
		expect(cleanFileName('notes. . ')).toBe('notes');
		expect(cleanFileName('CON.srt')).toBe('_CON.srt');
		expect(cleanFileName('lpt1')).toBe('_lpt1');
		expect(cleanFileName('console.srt')).toBe('console.srt');
	});

	it(`bounds the name to ${MAX_FILE_NAME_BYTES} bytes of UTF-8, keeping the extension`, () => {
		const long = cleanFileName(`${'a'.repeat(8000)}.srt`);
		expect(Buffer.byteLength(long, 'utf8')).toBe(MAX_FILE_NAME_BYTES);
		expect(long.endsWith('.srt')).toBe(true);
		const hebrew = cleanFileName(`${'ש'.repeat(500)}.docx`);
		expect(Buffer.byteLength(hebrew, 'utf8')).toBeLessThanOrEqual(MAX_FILE_NAME_BYTES);
		expect(hebrew).toMatch(/^ש+\.docx$/);
	});

	it('never splits a character when it cuts', () => {
		const name = cleanFileName(`${'😀'.repeat(100)}.srt`);
		expect(name).toMatch(/^(😀)+\.srt$/u);
	});

	// sanitize-filename (a well-kept library doing the same job) must find nothing left to change.
	const hostile = [
		'invoice\u202Etrs.exe',
		'a\r\nSet-Cookie: x.srt',
		'../../../root/.ssh/authorized_keys',
		'C:\\Windows\\System32\\cmd.exe',
		'nul.srt',
		'COM1',
		'trailing dots...',
		'  spaced  .srt  ',
		'\u0000\u0001\u001f\u007f\u0080\u009f.srt',
		'q?u*o<t>e|s:"x".srt',
		`${'x'.repeat(300)}.pdf`,
		`${'ראיון'.repeat(100)}.srt`,
		'ראיון עם דנה.srt',
		'\uFEFF\u200B\u2066hidden\u2069.txt',
	];
	it.each(hostile)('leaves nothing for sanitize-filename to change: %j', (input) => {
		const cleaned = cleanFileName(input);
		expect(cleaned).not.toBe('');
		expect(sanitize(cleaned)).toBe(cleaned);
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
