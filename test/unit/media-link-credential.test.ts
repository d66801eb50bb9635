// The Media Link credential on its own: its secret goes only to the hosts it allows, over https (http only on this
// machine), as a header or as Basic; its test asks an allowed host for one byte and follows no redirect. The node's side
// (checked before any request, never after a redirect to another origin) is in engine/media-from-url.test.ts.
import type { IHttpRequestOptions } from 'n8n-workflow';

import { TranscriptionServiceMediaLinkApi } from '../../credentials/TranscriptionServiceMediaLinkApi.credentials';

const credential = new TranscriptionServiceMediaLinkApi();
const HEADER = {
	authType: 'header',
	headerName: 'X-Media-Token',
	headerSecret: 'secret-7f3a',
	allowedHosts: 'media.example.com, *.cdn.example.net',
};

async function authenticate(
	fields: Record<string, string>,
	request: IHttpRequestOptions,
): Promise<IHttpRequestOptions> {
	return await credential.authenticate(fields, request);
}

describe('Media Link credential: authenticate', () => {
	it.each([
		'https://media.example.com/a.mp3',
		'https://eu.cdn.example.net/a.mp3?sig=1',
		'http://127.0.0.1:8080/a.mp3',
	])('%s: an allowed host gets the header', async (url) => {
		const fields = url.startsWith('http://127') ? { ...HEADER, allowedHosts: '127.0.0.1' } : HEADER;
		const authenticated = await authenticate(fields, { url, headers: { Accept: '*/*' } });
		expect(authenticated.headers).toEqual({ Accept: '*/*', 'X-Media-Token': 'secret-7f3a' });
	});

	it('Basic sends user:password as RFC 7617 says', async () => {
		const authenticated = await authenticate(
			{
				authType: 'basic',
				user: 'podcaster',
				password: 'pä:ss',
				allowedHosts: 'media.example.com',
			},
			{ url: 'https://media.example.com/a.mp3' },
		);
		expect(authenticated.headers).toEqual({
			Authorization: `Basic ${Buffer.from('podcaster:pä:ss', 'utf8').toString('base64')}`,
		});
	});

	it.each([
		[
			'https://evil.example/a.mp3',
			/sent only to media\.example\.com, \*\.cdn\.example\.net; the link goes to evil\.example/,
		],
		['https://cdn.example.net/a.mp3', /the link goes to cdn\.example\.net/],
		['http://media.example.com/a.mp3', /sent only over https:\/\//],
	])('%s: refused, nothing sent', async (url, message) => {
		await expect(authenticate(HEADER, { url })).rejects.toThrow(message);
	});

	it('its test asks the Test Link for its first byte and follows no redirect', () => {
		expect(credential.test.request).toMatchObject({
			method: 'GET',
			headers: { Range: 'bytes=0-0' },
			disableFollowRedirect: true,
		});
	});

	it('every secret field is a password field', () => {
		const secrets = credential.properties.filter((property) =>
			['headerSecret', 'password'].includes(property.name),
		);
		expect(secrets.map((property) => property.typeOptions?.password)).toEqual([true, true]);
	});
});
