// src/media: the rules a media link passes before the node requests it, how errors and output show it, where a
// redirect leads, which hosts a Media Link credential goes to, and the file name and type the upload slot declares.
import { lookup } from 'mime-types';

import {
	extensionOfMediaType,
	hostList,
	hostMatches,
	isSameOrigin,
	mediaFileDetails,
	mediaLinkTargetProblem,
	mediaTypeOfExtension,
	parseMediaLink,
	redactLink,
	redirectTarget,
	urlTextProblem,
} from '../../src/media';

describe('parseMediaLink: what a Media URL may be', () => {
	it.each([
		'https://media.example.com/episodes/42.mp3',
		'http://127.0.0.1:8080/a.wav',
		'https://bucket.s3.eu-west-1.amazonaws.com/rec.m4a?X-Amz-Signature=abc&X-Amz-Expires=600',
		'  https://media.example.com/a.mp3  ',
		'https://media.example.com/%D7%A9%D7%99%D7%97%D7%94.wav',
	])('%j is a link the node requests', (raw) => {
		const url = parseMediaLink(raw);
		expect(url).toBeInstanceOf(URL);
		expect((url as URL).href).toBe(new URL(raw.trim()).href);
	});

	it.each([
		['', 'The media URL is empty'],
		['   ', 'The media URL is empty'],
		['ftp://media.example.com/a.wav', 'must start with https:// or http://, not ftp://'],
		['file:///etc/passwd', 'must start with https:// or http://, not file://'],
		['javascript:alert(1)', 'must start with https:// or http://, not javascript://'],
		['media.example.com/a.wav', 'is not an absolute URL'],
		['/episodes/a.wav', 'is not an absolute URL'],
		['https://evil.example\\@media.example.com/a.wav', 'contains a backslash'],
		['https://media.example.com\\a.wav', 'contains a backslash'],
		['https://user:pass@media.example.com/a.wav', 'names a user or password before its host'],
		['https://token@media.example.com/a.wav', 'names a user or password before its host'],
		['https:user:pass@media.example.com/a.wav', 'names a user or password before its host'],
		['https:/token@media.example.com/a.wav', 'names a user or password before its host'],
		['https://media.example.com/a b.wav', 'contains a space or a control character'],
		['https://media.example.com/a\u0000.wav', 'contains a space or a control character'],
		['https://media.example.com/\r\nX-Injected: 1', 'contains a space or a control character'],
	])('%j is refused: media_link_invalid, "%s"', (raw, message) => {
		const problem = parseMediaLink(raw);
		expect(problem).toEqual({
			code: 'media_link_invalid',
			message: expect.stringContaining(message),
		});
	});

	it('an "@" after the host (a path or a query) is not a user name', () => {
		expect(parseMediaLink('https://media.example.com/@speaker/ep1.mp3')).toBeInstanceOf(URL);
		expect(parseMediaLink('https://media.example.com/a.mp3?by=a@b')).toBeInstanceOf(URL);
	});

	it('urlTextProblem reads the text as written, before any parser does', () => {
		expect(urlTextProblem('https://evil.example\\@api.example')?.kind).toBe('backslash');
		expect(new URL('https://evil.example\\@api.example').hostname).toBe('evil.example');
		expect(urlTextProblem('https://a@api.example')?.kind).toBe('user_info');
		expect(urlTextProblem('https://api.example/x@y')).toBeUndefined();
	});
});

describe('redactLink: a link as errors, logs and output show it', () => {
	it.each([
		[
			'https://bucket.s3.amazonaws.com/rec/a.m4a?X-Amz-Signature=5ecr3t&X-Amz-Credential=AKIA',
			'https://bucket.s3.amazonaws.com/rec/a.m4a?…',
		],
		['https://media.example.com/a.mp3#t=30', 'https://media.example.com/a.mp3'],
		['https://media.example.com:8443/a.mp3', 'https://media.example.com:8443/a.mp3'],
		['http://127.0.0.1:9/a.wav?', 'http://127.0.0.1:9/a.wav'],
		['not a url?token=5ecr3t', 'not a url?…'],
	])('%s → %s', (link, shown) => {
		expect(redactLink(link)).toBe(shown);
		expect(redactLink(link)).not.toContain('5ecr3t');
	});
});

describe('redirectTarget: where a redirect leads, if the node follows it', () => {
	const from = new URL('https://media.example.com/a/b.mp3?sig=1');

	it('resolves relative Locations against the URL that answered', () => {
		expect((redirectTarget(from, '/c.mp3') as URL).href).toBe('https://media.example.com/c.mp3');
		expect((redirectTarget(from, 'c.mp3?x=1') as URL).href).toBe(
			'https://media.example.com/a/c.mp3?x=1',
		);
		expect((redirectTarget(from, 'https://cdn.example.net/c.mp3') as URL).href).toBe(
			'https://cdn.example.net/c.mp3',
		);
	});

	it.each([
		[undefined, 'without a Location header'],
		['', 'without a Location header'],
		['ftp://cdn.example.net/c.mp3', 'to a ftp:// URL; only https:// and http:// are followed'],
		['file:///etc/passwd', 'to a file:// URL'],
		['http://cdn.example.net/c.mp3', 'from https:// to http://'],
		['https://evil.example\\@cdn.example.net/c.mp3', 'contains a backslash'],
		['https://user:pass@cdn.example.net/c.mp3', 'names a user or password before its host'],
		['//user:pass@cdn.example.net/c.mp3', 'names a user or password before its host'],
	])('Location %j is not followed: %s', (location, message) => {
		expect(redirectTarget(from, location)).toEqual({
			code: 'media_link_invalid',
			message: expect.stringContaining(message),
		});
	});

	it('http to https is followed; the origin decides whether a credential goes along', () => {
		const plain = new URL('http://media.example.com/a.mp3');
		const upgraded = redirectTarget(plain, 'https://media.example.com/a.mp3') as URL;
		expect(upgraded.protocol).toBe('https:');
		expect(isSameOrigin(plain, upgraded)).toBe(false);
		expect(isSameOrigin(from, new URL('https://media.example.com/other'))).toBe(true);
		expect(isSameOrigin(from, new URL('https://media.example.com:444/other'))).toBe(false);
	});
});

describe('Media Link credential: Allowed Hosts', () => {
	it('a host as written, or any host under *.domain (not the domain itself); case and a final dot do not matter', () => {
		const allowed = hostList('media.example.com, *.cdn.example.net\n  ,');
		expect(allowed).toEqual(['media.example.com', '*.cdn.example.net']);
		expect(hostMatches('MEDIA.example.com.', allowed)).toBe(true);
		expect(hostMatches('eu.cdn.example.net', allowed)).toBe(true);
		expect(hostMatches('a.b.cdn.example.net', allowed)).toBe(true);
		expect(hostMatches('cdn.example.net', allowed)).toBe(false);
		expect(hostMatches('media.example.com.evil.example', allowed)).toBe(false);
		expect(hostMatches('evilcdn.example.net', allowed)).toBe(false);
		expect(hostMatches('[::1]', ['::1'])).toBe(true);
	});

	it('the secret goes only to an allowed host, over https (http only on this machine)', () => {
		expect(
			mediaLinkTargetProblem('media.example.com', new URL('https://media.example.com/a')),
		).toBeUndefined();
		expect(mediaLinkTargetProblem('127.0.0.1', new URL('http://127.0.0.1:8080/a'))).toBeUndefined();
		expect(
			mediaLinkTargetProblem('media.example.com', new URL('http://media.example.com/a')),
		).toMatch(/sent only over https:\/\//);
		expect(mediaLinkTargetProblem('media.example.com', new URL('https://evil.example/a'))).toMatch(
			/sent only to media\.example\.com; the link goes to evil\.example/,
		);
		expect(mediaLinkTargetProblem('', new URL('https://media.example.com/a'))).toMatch(/none set/);
	});
});

describe('mediaFileDetails: the name and type an upload slot declares', () => {
	const url = (path: string) => new URL(`https://media.example.com${path}`);

	it('Content-Disposition first (filename* over filename), then the path, then "media"', () => {
		expect(
			mediaFileDetails({
				url: url('/download?id=1'),
				contentDisposition:
					'attachment; filename="x.wav"; filename*=UTF-8\'\'%D7%A9%D7%99%D7%97%D7%94.wav',
				contentType: 'audio/wav',
			}),
		).toEqual({ fileName: 'שיחה.wav', contentType: 'audio/wav' });
		expect(
			mediaFileDetails({ url: url('/eps/Episode%2042.mp3'), contentType: 'audio/mpeg' }),
		).toEqual({
			fileName: 'Episode 42.mp3',
			contentType: 'audio/mpeg',
		});
		expect(mediaFileDetails({ url: url('/'), contentType: 'audio/mpeg' })).toEqual({
			fileName: 'media.mp3',
			contentType: 'audio/mpeg',
		});
	});

	it("a name without an extension gets the type's; a generic type gives way to the extension's", () => {
		expect(mediaFileDetails({ url: url('/uc'), contentType: 'video/mp4; codecs="avc1"' })).toEqual({
			fileName: 'uc.mp4',
			contentType: 'video/mp4',
		});
		expect(
			mediaFileDetails({ url: url('/a.m4a'), contentType: 'application/octet-stream' }),
		).toEqual({
			fileName: 'a.m4a',
			contentType: 'audio/mp4',
		});
		expect(mediaFileDetails({ url: url('/a.bin') })).toEqual({
			fileName: 'a.bin',
			contentType: 'application/octet-stream',
		});
	});

	it("a name that could hide another or break a path is cleaned like a downloaded transcript's", () => {
		expect(
			mediaFileDetails({
				url: url('/x'),
				contentDisposition: 'attachment; filename="../../etc/passwd.wav"',
			}).fileName,
		).toBe('.._.._etc_passwd.wav');
		expect(
			mediaFileDetails({ url: url('/invoice%E2%80%AEvaw.exe'), contentType: 'audio/wav' }).fileName,
		).toBe('invoicevaw.exe');
	});

	it('every extension maps to the type the mime-types library gives it (or one of its aliases), and back', () => {
		const extensions = [
			'mp3',
			'wav',
			'm4a',
			'aac',
			'ogg',
			'opus',
			'flac',
			'weba',
			'amr',
			'wma',
			'mp4',
			'm4v',
			'mov',
			'webm',
			'mkv',
			'avi',
			'mpeg',
			'3gp',
		];
		for (const extension of extensions) {
			const ours = mediaTypeOfExtension(extension);
			expect([extension, ours]).toEqual([extension, expect.any(String)]);
			const library = lookup(extension);
			expect([extension, extensionOfMediaType(library as string) !== undefined]).toEqual([
				extension,
				true,
			]);
			expect([extension, extensionOfMediaType(ours!)]).toEqual([extension, extension]);
		}
	});
});
