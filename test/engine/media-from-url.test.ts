// Media Source "URL": Transcribe and Download, Send Media and Create Slot take the recording from a link, inside n8n's
// engine, against the sandbox and the test media host on loopback. What each rule promises is counted from the two
// servers' own records (what the media host sent, with which headers; what the service stored), never from the node.

import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { makeWav } from '../support/fixtures/media';
import {
	actionNode,
	ACTION_NODE,
	binaryBytes,
	binaryStoreFiles,
	nodeError,
	runWorkflow,
	type RunResult,
} from '../support/engine/harness';
import { useEngineSandbox } from '../support/engine/engine-sandbox';
import { freshAccounts, type FreshAccount } from '../support/engine/accounts';
import { bearerLinkCredential, useMediaHost } from '../support/media/media-host';

const env = useEngineSandbox({
	recordExchanges: true,
	rateLimits: { perTier: { premium: 10_000, platinum: 10_000 } },
});
const freshAccount = freshAccounts(env);
const host = useMediaHost();

/** 40 s of 16 kHz mono: 1.2 MiB, far more than the transcripts the run stores. */
const EPISODE = makeWav({ seconds: 40 });
const SHORT = makeWav({ seconds: 2 });
const SECRET_QUERY = 'X-Amz-Signature=5ecr3t5ignature0000&X-Amz-Expires=600';

beforeAll(() => {
	host.add('episode-12.wav', { bytes: EPISODE, contentType: 'audio/wav' });
	host.add('short.wav', { bytes: SHORT, contentType: 'audio/wav' });
	host.add('download', {
		bytes: SHORT,
		contentType: 'application/octet-stream',
		contentDisposition:
			'attachment; filename="x.wav"; filename*=UTF-8\'\'%D7%A9%D7%99%D7%97%D7%94.wav',
	});
	host.add('untyped.mp3', { bytes: SHORT, contentType: 'application/octet-stream' });
});

const transcribe = (parameters: IDataObject = {}, continueOnFail = false) =>
	actionNode(
		{
			resource: 'transcription',
			operation: 'transcribeAndDownload',
			mediaSource: 'url',
			formats: ['srt', 'txt'],
			options: { pollIntervalSeconds: 0.2, maxPollIntervalSeconds: 0.5 },
			...parameters,
		},
		{ continueOnFail },
	);

async function run(
	account: FreshAccount,
	nodeParameters: IDataObject,
	options: {
		continueOnFail?: boolean;
		input?: INodeExecutionData[];
		mediaLinkCredential?: IDataObject;
	} = {},
): Promise<RunResult> {
	return await runWorkflow({
		nodes: [transcribe(nodeParameters, options.continueOnFail)],
		credentials: account.credentials,
		input: options.input,
		mediaLinkCredential: options.mediaLinkCredential as never,
	});
}

async function storeGrowth(work: () => Promise<void>): Promise<number[]> {
	const before = await binaryStoreFiles();
	await work();
	const after = await binaryStoreFiles();
	return [...after].filter(([file]) => !before.has(file)).map(([, size]) => size);
}

const mediaGets = () => host.requests.filter((request) => request.method === 'GET');

describe('Transcribe and Download, Media Source URL, a host that sends Content-Length', () => {
	test("streams the file into the upload: exact size declared and sent, 0 bytes in n8n's binary store", async () => {
		const account = await freshAccount();
		let result: RunResult | undefined;
		const newFiles = await storeGrowth(async () => {
			result = await run(account, {
				mediaUrl: `${host.url('/file/episode-12.wav')}?${SECRET_QUERY}`,
			});
		});
		expect(result?.error).toBeUndefined();
		const [item] = result!.output(ACTION_NODE);
		expect(item.json).toMatchObject({ status: 'completed', text: expect.any(String) });
		expect(item.binary?.srt.fileName).toBe('episode-12.srt');
		expect((await binaryBytes(item.binary!.txt)).toString('utf8')).toBe(item.json.text);

		const records = await env.admin.records(account.accountId);
		expect(records.uploads).toHaveLength(1);
		expect(records.uploads[0]).toMatchObject({
			filename: 'episode-12.wav',
			content_type: 'audio/wav',
			size_bytes: EPISODE.length,
			bytes_received: EPISODE.length,
		});
		expect(records.jobs).toHaveLength(1);
		const put = env.proxy.exchanges.find((exchange) => exchange.method === 'PUT');
		expect(put?.requestHeaders['content-length']).toBe(String(EPISODE.length));
		expect(put?.requestBytes).toBe(EPISODE.length);

		// Only the transcripts (SRT and TXT) were stored, nothing of the media's size.
		expect(newFiles.length).toBe(2);
		expect(newFiles.every((size) => size < EPISODE.length / 100)).toBe(true);

		const [get] = mediaGets();
		expect(mediaGets()).toHaveLength(1);
		expect(get.headers['accept-encoding']).toBe('identity');
		expect(get.headers.authorization).toBeUndefined();
		expect(JSON.stringify(get.headers)).not.toContain(account.credentials.apiKey);
		expect(get.bytesSent).toBe(EPISODE.length);
		// The pre-signed query reached the host and nothing else.
		expect(get.url).toContain(SECRET_QUERY);
		expect(JSON.stringify(result!.run.data.resultData.runData)).not.toContain('5ecr3t5ignature');
	});

	test('file name from Content-Disposition (filename*), else the path; the type from the extension when the host says octet-stream', async () => {
		const account = await freshAccount();
		const result = await runWorkflow({
			nodes: [transcribe({ mediaUrl: host.url('/file/download'), formats: ['srt'] })],
			credentials: account.credentials,
		});
		expect(result.error).toBeUndefined();
		expect(result.output(ACTION_NODE)[0].binary?.srt.fileName).toBe('שיחה.srt');
		const untyped = await run(account, {
			mediaUrl: host.url('/file/untyped.mp3'),
			formats: ['srt'],
		});
		expect(untyped.error).toBeUndefined();
		const uploads = (await env.admin.records(account.accountId)).uploads.map((upload) => [
			upload.filename,
			upload.content_type,
		]);
		expect(uploads).toEqual(
			expect.arrayContaining([
				['שיחה.wav', 'audio/wav'],
				['untyped.mp3', 'audio/mpeg'],
			]),
		);
	});

	test("Link Options → File Name and Content Type are declared instead of the host's", async () => {
		const account = await freshAccount();
		const result = await run(account, {
			mediaUrl: host.url('/file/short.wav'),
			linkOptions: { fileName: 'Board meeting.wav', contentType: 'audio/x-wav' },
		});
		expect(result.error).toBeUndefined();
		expect(result.output(ACTION_NODE)[0].binary?.srt.fileName).toBe('Board meeting.srt');
		const [upload] = (await env.admin.records(account.accountId)).uploads;
		expect([upload.filename, upload.content_type]).toEqual(['Board meeting.wav', 'audio/x-wav']);
	});
});

describe('Transcribe and Download, Media Source URL, a host that sends no length', () => {
	test("stores the file in n8n's binary store, then uploads its exact size from there", async () => {
		const account = await freshAccount();
		let result: RunResult | undefined;
		const newFiles = await storeGrowth(async () => {
			result = await run(account, { mediaUrl: host.url('/chunked/episode-12.wav') });
		});
		expect(result?.error).toBeUndefined();
		expect(result!.output(ACTION_NODE)[0].json.status).toBe('completed');
		expect(host.requests[0].headers['transfer-encoding']).toBeUndefined();
		const [upload] = (await env.admin.records(account.accountId)).uploads;
		expect(upload).toMatchObject({ size_bytes: EPISODE.length, bytes_received: EPISODE.length });
		expect(newFiles).toContain(EPISODE.length);
	});
});

describe('Transcribe and Download, Media Source URL, redirects', () => {
	test('followed on the same origin and to another one; a loop or more than 10 hops is refused', async () => {
		const account = await freshAccount();
		const same = await run(account, { mediaUrl: host.url('/redirect/3/file/short.wav') });
		expect(same.error).toBeUndefined();
		const elsewhere = await run(account, {
			mediaUrl: `${host.url('/elsewhere/file/short.wav')}?${SECRET_QUERY}`,
		});
		expect(elsewhere.error).toBeUndefined();
		expect(host.requests.filter((request) => request.server === 'other')).toHaveLength(1);
		expect((await env.admin.records(account.accountId)).jobs).toHaveLength(2);

		const loop = await run(account, { mediaUrl: host.url('/loop/short.wav') });
		expect(nodeError(loop)).toMatchObject({
			code: 'media_too_many_redirects',
			message: `The media link ${host.url('/loop/short.wav')} redirected more than 10 times`,
		});
		expect((await env.admin.records(account.accountId)).uploads).toHaveLength(2);
	});

	test('only to http:// and https://, never from https:// down to http://', async () => {
		const account = await freshAccount();
		for (const scheme of ['ftp', 'file', 'javascript']) {
			const result = await run(account, { mediaUrl: host.url(`/to/${scheme}/x.wav`) });
			expect(nodeError(result).code).toBe('media_link_invalid');
			expect(nodeError(result).message).toContain(`redirected to a ${scheme}:// URL`);
		}
		expect((await env.admin.records(account.accountId)).uploads).toHaveLength(0);
	});
});

describe('Transcribe and Download, Media Source URL, a private link', () => {
	test("without a credential: the host's 401 is the item's error, no slot is made", async () => {
		const account = await freshAccount();
		const result = await run(account, { mediaUrl: host.url('/private/short.wav') });
		expect(nodeError(result)).toMatchObject({
			code: 'media_access_denied',
			message: `The media host refused the download (HTTP 401) at ${host.url('/private/short.wav')}`,
		});
		expect(nodeError(result).description).toContain(
			'set "Link Authentication" to a Media Link credential',
		);
		expect((await env.admin.records(account.accountId)).counts).toEqual({ uploads: 0, jobs: 0 });
	});

	test('a Media Link credential (header or Basic) goes to its allowed host only', async () => {
		const account = await freshAccount();
		const header = await run(
			account,
			{ mediaUrl: host.url('/private/short.wav'), linkAuthentication: 'mediaLinkCredential' },
			{ mediaLinkCredential: bearerLinkCredential(host, '127.0.0.1') },
		);
		expect(header.error).toBeUndefined();
		const basic = await run(
			account,
			{ mediaUrl: host.url('/private/short.wav'), linkAuthentication: 'mediaLinkCredential' },
			{
				mediaLinkCredential: {
					authType: 'basic',
					user: host.basic.user,
					password: host.basic.password,
					allowedHosts: 'localhost, 127.0.0.1',
				},
			},
		);
		expect(basic.error).toBeUndefined();
		expect((await env.admin.records(account.accountId)).jobs).toHaveLength(2);
		expect(host.requests.map((request) => request.headers.authorization?.split(' ')[0])).toEqual([
			'Bearer',
			'Basic',
		]);
	});

	test('a link to a host the credential does not allow gets no request at all', async () => {
		const account = await freshAccount();
		const result = await run(
			account,
			{ mediaUrl: host.url('/private/short.wav'), linkAuthentication: 'mediaLinkCredential' },
			{ mediaLinkCredential: bearerLinkCredential(host, 'media.example.com, *.cdn.example.com') },
		);
		expect(nodeError(result)).toMatchObject({
			code: 'media_credential_not_allowed',
			message: `The Media Link credential is not sent to ${host.url('/private/short.wav')}`,
		});
		expect(host.requests).toHaveLength(0);
	});

	test('after a redirect to another origin the credential is not sent: that host refuses', async () => {
		const account = await freshAccount();
		const result = await run(
			account,
			{
				mediaUrl: host.url('/elsewhere/private/short.wav'),
				linkAuthentication: 'mediaLinkCredential',
			},
			{ mediaLinkCredential: bearerLinkCredential(host, '127.0.0.1') },
		);
		expect(nodeError(result).code).toBe('media_access_denied');
		expect(nodeError(result).description).toContain("sent only to the link's own origin");
		expect(host.requests.map((request) => [request.server, request.headers.authorization])).toEqual(
			[
				['main', `Bearer ${host.token}`],
				['other', undefined],
			],
		);
	});
});

describe('Transcribe and Download, Media Source URL, a host that fails', () => {
	const timeouts = { linkOptions: { idleTimeoutSeconds: 1, deadlineSeconds: 2 } };
	const cases: Array<[string, string, IDataObject, string, RegExp]> = [
		[
			'announces more than it sends',
			'/lying/short.wav',
			{},
			'media_transfer_failed',
			/broke off the download after \d+ of \d+ bytes/,
		],
		[
			'compresses the body it announced',
			'/gzip/short.wav',
			{},
			'media_length_mismatch',
			/sent more than the .* its Content-Length announced/,
		],
		[
			'resets mid-body',
			'/reset/episode-12.wav',
			{},
			'media_transfer_failed',
			/broke off the download after \d+ of \d+ bytes/,
		],
		[
			'stalls (idle timeout)',
			'/stall/episode-12.wav',
			timeouts,
			'media_timeout',
			/sent nothing for 1 s after 65536 of \d+ bytes/,
		],
		[
			'drips past the deadline',
			'/drip/episode-12.wav?everyMs=100',
			timeouts,
			'media_timeout',
			/did not finish before its deadline/,
		],
		['never answers', '/silent/short.wav', timeouts, 'media_timeout', /sent no answer within 1 s/],
		[
			'has no such file',
			'/status/404/short.wav',
			{},
			'media_not_found',
			/has no file at .* \(HTTP 404\)/,
		],
	];
	test.each(cases)(
		"a host that %s: the item's error, no job started",
		async (_name, route, parameters, code, message) => {
			const account = await freshAccount();
			const result = await run(account, {
				mediaUrl: `${host.url(route)}${route.includes('?') ? '&' : '?'}${SECRET_QUERY}`,
				...parameters,
			});
			const error = nodeError(result);
			expect(error.code).toBe(code);
			expect(error.message).toMatch(message);
			expect(JSON.stringify(error)).not.toContain('5ecr3t5ignature');
			const records = await env.admin.records(account.accountId);
			expect(records.jobs).toHaveLength(0);
			expect(records.uploads.every((upload) => upload.bytes_received === 0)).toBe(true);
		},
	);

	test('a 503 is asked again (3 attempts in all), then the item fails naming the host', async () => {
		const account = await freshAccount();
		const result = await run(account, { mediaUrl: host.url('/status/503/short.wav') });
		expect(nodeError(result)).toMatchObject({
			code: 'media_http_error',
			message: `The media host answered HTTP 503 at ${host.url('/status/503/short.wav')}`,
		});
		expect(mediaGets()).toHaveLength(3);
	});

	test('in a batch, a host that breaks off fails its own item; the others carry their transcripts', async () => {
		const account = await freshAccount();
		const input = ['/file/short.wav', '/reset/episode-12.wav', '/file/episode-12.wav'].map(
			(route) => ({ json: { link: host.url(route) } }),
		);
		const result = await run(
			account,
			{ mediaUrl: '={{ $json.link }}', options: { concurrency: 3, pollIntervalSeconds: 0.2 } },
			{ continueOnFail: true, input },
		);
		expect(result.error).toBeUndefined();
		const output = result.output(ACTION_NODE);
		expect(output.map((item) => item.json.status ?? (item.json.error as IDataObject).code)).toEqual(
			['completed', 'media_transfer_failed', 'completed'],
		);
		expect((output[1].json.error as IDataObject).upload_id).toEqual(expect.any(String));
		expect((await env.admin.records(account.accountId)).jobs).toHaveLength(2);
	});
});

describe('Transcribe and Download, Media Source URL, answers lost after the service acted (nothing twice)', () => {
	test('the slot, the upload and the job each lose their answer once: one slot, one job, the file fetched again only for the upload', async () => {
		const account = await freshAccount();
		await env.admin.setFaults({
			rules: [
				{ route: 'createUpload', kind: 'drop_after_commit', count: 1 },
				{ route: 'uploadBinary', kind: 'drop_after_commit', count: 1 },
				{ route: 'createTranscription', kind: 'drop_after_commit', count: 1 },
			],
		});
		const result = await run(account, { mediaUrl: host.url('/file/episode-12.wav') });
		expect(result.error).toBeUndefined();
		expect(result.output(ACTION_NODE)[0].json.status).toBe('completed');
		const records = await env.admin.records(account.accountId);
		expect(records.counts).toEqual({ uploads: 1, jobs: 1 });
		expect(records.uploads[0]).toMatchObject({
			bytes_received: EPISODE.length,
			idempotent_replays: 1,
		});
		expect(records.jobs[0].idempotent_replays).toBe(1);
		// The PUT whose answer was lost is sent again with the file fetched again, and the service answers that it has
		// the bytes: the file is never fetched again for the slot or the job.
		expect(mediaGets()).toHaveLength(2);
	});
});

describe('Media URL, the link itself', () => {
	test.each([
		// An expression that comes out empty (a field left empty is refused by n8n before the run).
		['={{ "" }}', 'The media URL is empty'],
		[
			'ftp://media.example.com/a.wav',
			'The media URL must start with https:// or http://, not ftp://',
		],
		['https://evil.example\\@media.example.com/a.wav', 'The media URL contains a backslash'],
		[
			'https://user:pass@media.example.com/a.wav',
			'The media URL names a user or password before its host',
		],
		['media.example.com/a.wav', 'is not an absolute URL'],
	])('%j is refused before any request: media_link_invalid', async (mediaUrl, message) => {
		const account = await freshAccount();
		const result = await run(account, { mediaUrl });
		expect(nodeError(result).code).toBe('media_link_invalid');
		expect(nodeError(result).message).toContain(message);
		expect(host.requests).toHaveLength(0);
		expect((await env.admin.records(account.accountId)).counts.uploads).toBe(0);
	});
});

describe('Upload → Create Slot From a URL, then Send Media by URL', () => {
	test('the slot from the headers alone (its body closed unread), then the file streamed into it', async () => {
		const account = await freshAccount();
		const size = 32 * 1024 * 1024;
		const link = host.url(`/generated/${size}/long-meeting.wav`);
		const result = await runWorkflow({
			nodes: [
				actionNode(
					{ resource: 'upload', operation: 'createSlot', source: 'url', mediaUrl: link },
					{ name: 'Create Slot' },
				),
				actionNode(
					{ resource: 'upload', operation: 'sendMedia', mediaSource: 'url', mediaUrl: link },
					{ name: 'Send Media' },
				),
			],
			credentials: account.credentials,
		});
		expect(result.error).toBeUndefined();
		expect(result.output('Create Slot')[0].json).toMatchObject({
			filename: 'long-meeting.wav',
			content_type: 'audio/wav',
			size_bytes: size,
		});
		expect(result.output('Send Media')[0].json).toMatchObject({ ok: true, bytes_received: size });
		await Promise.all(host.requests.map(async (request) => await request.closed));
		const [headersOnly, sent] = host.requests;
		expect([headersOnly.closedEarly, sent.closedEarly]).toEqual([true, false]);
		expect(headersOnly.bytesSent).toBeLessThan(size / 4);
		expect(sent.bytesSent).toBe(size);
	});

	test('Create Slot refuses a link without a length (media_length_unknown); Send Media refuses a size other than declared', async () => {
		const account = await freshAccount();
		const unknown = await runWorkflow({
			nodes: [
				actionNode({
					resource: 'upload',
					operation: 'createSlot',
					source: 'url',
					mediaUrl: host.url('/chunked/short.wav'),
				}),
			],
			credentials: account.credentials,
		});
		expect(nodeError(unknown).code).toBe('media_length_unknown');
		const mismatch = await runWorkflow({
			nodes: [
				actionNode({
					resource: 'upload',
					operation: 'sendMedia',
					upload: 'upl_declared',
					mediaSource: 'url',
					mediaUrl: host.url('/file/short.wav'),
					options: { declaredSize: SHORT.length + 1 },
				}),
			],
			credentials: account.credentials,
		});
		expect(nodeError(mismatch)).toMatchObject({
			code: 'upload_size_mismatch',
			message: `The file in ${host.url('/file/short.wav')} is ${SHORT.length} bytes but the slot was declared with ${SHORT.length + 1} bytes`,
		});
		expect(env.proxy.exchanges.filter((exchange) => exchange.method === 'PUT')).toHaveLength(0);
	});
});
