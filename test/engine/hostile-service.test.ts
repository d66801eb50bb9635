// A hostile or compromised service, or a man in the middle, against the nodes and the credential inside n8n's own
// engine: a redirect that would carry the API key away, answers larger than any transcript, an answer trickled out
// a byte at a time, a download that names its own file type, and a Base URL that would send the key in clear text.
// Each case answers from a server of its own on loopback; the credential's Test button runs as n8n runs it
// (support/engine/credential-test.ts), against that server or the sandbox.
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { INode, INodeListSearchResult } from 'n8n-workflow';
import { LoadOptionsContext } from 'n8n-core';
import { Workflow } from 'n8n-workflow';

import {
	actionNode,
	ACTION_NODE,
	binaryBytes,
	CREDENTIAL_TYPE,
	engineAdditionalData,
	FixtureCredentialsHelper,
	fixtureCredentials,
	loadPackage,
	nodeError,
	nodeType,
	PackageNodeTypes,
	runWorkflow,
	type TestCredentials,
} from '../support/engine/harness';
import { runCredentialTest } from '../support/engine/credential-test';
import { useEngineSandbox } from '../support/engine/engine-sandbox';

const env = useEngineSandbox({ recordExchanges: true });
const MIB = 1024 * 1024;
const KEY = 'svc_sk_live_hostileService000000001';

interface SeenRequest {
	method: string;
	url: string;
	headers: IncomingHttpHeaders;
	startedAtMs: number;
	/** Body bytes written to this request's answer before its connection closed. */
	bytesWritten: number;
	/** Whether the client closed the connection before the answer was complete. */
	closedEarly: boolean;
	/** Settles when the exchange's connection has closed, early or not. */
	closed: Promise<void>;
}

interface HostileServer {
	baseUrl: string;
	requests: SeenRequest[];
	close(): Promise<void>;
}

/** A server on loopback whose every answer `answer` writes; it records what reached it and how each exchange ended. */
async function hostileServer(
	answer: (response: ServerResponse, seen: SeenRequest, index: number) => void,
): Promise<HostileServer> {
	const requests: SeenRequest[] = [];
	const server = createServer((incoming, response) => {
		const seen: SeenRequest = {
			method: incoming.method ?? 'GET',
			url: incoming.url ?? '/',
			headers: incoming.headers,
			startedAtMs: Date.now(),
			bytesWritten: 0,
			closedEarly: false,
			closed: once(response, 'close').then(() => {
				seen.closedEarly = !response.writableFinished;
			}),
		};
		requests.push(seen);
		incoming.resume();
		answer(response, seen, requests.length - 1);
	});
	server.listen(0, '127.0.0.1');
	await once(server, 'listening');
	return {
		baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		requests,
		close: async () => {
			server.closeAllConnections();
			server.close();
			await once(server, 'close');
		},
	};
}

/** Writes `total` bytes (or forever) in 1 MiB chunks as fast as the client reads them, counting what went out. */
function stream(response: ServerResponse, seen: SeenRequest, total = Infinity): void {
	const chunk = Buffer.alloc(MIB, 0x41);
	const writeMore = () => {
		while (!response.destroyed && seen.bytesWritten < total) {
			const piece = chunk.subarray(0, Math.min(chunk.length, total - seen.bytesWritten));
			seen.bytesWritten += piece.length;
			if (!response.write(piece)) {
				response.once('drain', writeMore);
				return;
			}
		}
		if (!response.destroyed) response.end();
	};
	writeMore();
}

function jsonAnswer(response: ServerResponse, status: number, body: unknown): void {
	const bytes = Buffer.from(JSON.stringify(body));
	response.writeHead(status, {
		'content-type': 'application/json',
		'content-length': String(bytes.length),
		'x-request-id': 'req_hostile',
	});
	response.end(bytes);
}

const ACCOUNT = {
	account_id: 'acct_catcher',
	effective_tier: 'platinum',
	api_access: true,
	wallet_balance: 1,
	status: 'active',
};

const JOB = {
	job_id: 'job_hostile',
	status: 'completed',
	created_at: '2026-11-27T10:00:00Z',
	updated_at: '2026-11-27T10:01:00Z',
	media_duration_seconds: 60,
	credits_used: 1,
	analysis: { language: 'he', dialect: null },
	links: {
		self: '/api/v1/transcriptions/job_hostile',
		artifact: '/api/v1/transcriptions/job_hostile/artifact',
	},
};

const servers: HostileServer[] = [];
async function serve(
	answer: (response: ServerResponse, seen: SeenRequest, index: number) => void,
): Promise<HostileServer> {
	const server = await hostileServer(answer);
	servers.push(server);
	return server;
}
afterEach(async () => {
	await Promise.all(servers.splice(0).map(async (server) => await server.close()));
});

const credentialsFor = (server: HostileServer): TestCredentials => ({
	apiKey: KEY,
	baseUrl: server.baseUrl,
});

const download = (format: string) =>
	actionNode({
		resource: 'transcription',
		operation: 'downloadArtifact',
		jobId: 'job_hostile',
		format,
		binaryPropertyName: 'data',
	});

const getJob = actionNode({ resource: 'transcription', operation: 'get', jobId: 'job_hostile' });

describe("the credential's Test button", () => {
	const NOT_AN_ACCOUNT =
		"No account came back from GET {Path Prefix}/account: the answer was a redirect, a page that is not the service's, or an error the test cannot name. Check the Base URL and Path Prefix; the node's Account → Get shows the service's whole answer.";

	test('does not follow a redirect to another origin: the API key never reaches it', async () => {
		const catcher = await serve((response) => jsonAnswer(response, 200, ACCOUNT));
		const redirector = await serve((response) => {
			response.writeHead(302, { location: `${catcher.baseUrl}/api/v1/account` });
			response.end();
		});

		const result = await runCredentialTest(credentialsFor(redirector));

		expect(redirector.requests).toHaveLength(1);
		expect(redirector.requests[0].headers.authorization).toBe(`Bearer ${KEY}`);
		expect(catcher.requests).toEqual([]);
		expect(result).toEqual({ status: 'Error', message: NOT_AN_ACCOUNT });
	});

	test('a wrong key with a valid prefix: says invalid_api_key and what to do', async () => {
		const result = await runCredentialTest(
			env.credentials('svc_sk_live_notAKeyOfAnyAccount0000001'),
		);
		expect(result).toEqual({
			status: 'Error',
			message:
				'The service refused the API Key (invalid_api_key): it does not know this key, or the key was revoked. Copy a current key from the dashboard.',
		});
	});

	test.each([
		['a revoked key', 'invalid_api_key', () => env.sandbox.keys.revoked_live.key],
		[
			"a known key with the other mode's prefix",
			'invalid_api_key_mode',
			() => env.sandbox.keys.platinum_live.key.replace('svc_sk_live_', 'svc_sk_test_'),
		],
		[
			'a key of an account without API access',
			'plan_downgraded_api_revoked',
			() => env.sandbox.keys.no_api_access_live.key,
		],
	])('%s: the message names %s', async (_case, code, key) => {
		const result = await runCredentialTest(env.credentials(key()));
		expect(result.status).toBe('Error');
		expect(result.message).toContain(`(${code})`);
	});

	test('a key whose user is gone: invalid_api_key_user', async () => {
		const orphan = await env.admin.createKey({ orphan: true });
		const result = await runCredentialTest(env.credentials(orphan.key));
		expect(result.message).toContain('(invalid_api_key_user)');
	});

	test('a working key: Connection successful', async () => {
		expect(await runCredentialTest(env.live)).toEqual({
			status: 'OK',
			message: 'Connection successful!',
		});
	});

	test('an error page in place of the service: says to check the Base URL', async () => {
		const page = await serve((response) => {
			response.writeHead(404, { 'content-type': 'text/html' });
			response.end('<html><body>Not Found</body></html>');
		});
		expect(await runCredentialTest(credentialsFor(page))).toEqual({
			status: 'Error',
			message: NOT_AN_ACCOUNT,
		});
	});

	test('a plain http:// Base URL to another host is refused before any request, naming the field', async () => {
		const result = await runCredentialTest({
			apiKey: KEY,
			baseUrl: 'http://transcription.example',
		});
		expect(result).toEqual({
			status: 'Error',
			message:
				'The credential\'s Base URL must start with https:// (plain http:// is accepted only for this machine: 127.0.0.1, [::1] or localhost). Got "http://transcription.example".',
		});
	});
});

describe('a plain http:// Base URL in the nodes', () => {
	test.each(['http://transcription.example', 'http://10.0.0.8:4010', 'http://[2001:db8::1]'])(
		'%s: refused before any request, naming the Base URL',
		async (baseUrl) => {
			const error = nodeError(
				await runWorkflow({
					nodes: [actionNode({ resource: 'account', operation: 'get' })],
					credentials: { apiKey: KEY, baseUrl },
				}),
			);
			expect(error.message).toBe(
				"The credential's Base URL must start with https:// (plain http:// is accepted only for this machine: 127.0.0.1, [::1] or localhost)",
			);
			expect(error.description).toContain(`Got "${baseUrl}"`);
			expect(env.proxy.exchanges).toHaveLength(0);
		},
	);

	test('http://localhost (this machine) is accepted', async () => {
		const port = new URL(env.nodeBaseUrl).port;
		const result = await runWorkflow({
			nodes: [actionNode({ resource: 'account', operation: 'get' })],
			credentials: { ...env.live, baseUrl: `http://localhost:${port}` },
		});
		expect(result.error).toBeUndefined();
		expect(result.output(ACTION_NODE)[0].json.account_id).toBe('acct_sandbox_platinum');
	});
});

describe('answers larger than any transcript', () => {
	test('an "SRT" declaring 256 MiB is refused from its Content-Length, before its body is read', async () => {
		const server = await serve((response, seen) => {
			response.writeHead(200, {
				'content-type': 'application/x-subrip',
				'content-length': String(256 * MIB),
			});
			stream(response, seen, 256 * MIB);
		});
		const error = nodeError(
			await runWorkflow({ nodes: [download('srt')], credentials: credentialsFor(server) }),
		);
		expect(error.code).toBe('response_too_large');
		expect(error.message).toBe(
			"The service's answer to GET /api/v1/transcriptions/job_hostile/artifact.srt (HTTP 200) declares 256 MiB (Content-Length), more than the 64 MiB accepted; nothing was read",
		);
		expect(error.description).toMatch(/^Error code: response_too_large · .*Base URL/);
		// Not retried: the same answer would come again.
		expect(server.requests).toHaveLength(1);
		await server.requests[0].closed;
		expect(server.requests[0].closedEarly).toBe(true);
		// What the socket buffers took before the node closed the connection, far from the 256 MiB.
		expect(server.requests[0].bytesWritten).toBeLessThan(32 * MIB);
	});

	test('an artifact without a Content-Length is read no further than 64 MiB', async () => {
		const server = await serve((response, seen) => {
			response.writeHead(200, { 'content-type': 'application/pdf' });
			stream(response, seen);
		});
		const error = nodeError(
			await runWorkflow({ nodes: [download('pdf')], credentials: credentialsFor(server) }),
		);
		expect(error.code).toBe('response_too_large');
		expect(error.message).toBe(
			"The service's answer to GET /api/v1/transcriptions/job_hostile/artifact.pdf (HTTP 200) went past 64 MiB without a Content-Length; reading stopped there",
		);
		expect(server.requests).toHaveLength(1);
		await server.requests[0].closed;
		expect(server.requests[0].closedEarly).toBe(true);
		expect(server.requests[0].bytesWritten).toBeLessThan(96 * MIB);
	});

	test('a JSON answer is held to 8 MiB: a 9 MiB job snapshot is refused', async () => {
		const padded = { ...JOB, padding: 'x'.repeat(9 * MIB) };
		const server = await serve((response) => jsonAnswer(response, 200, padded));
		const error = nodeError(
			await runWorkflow({ nodes: [getJob], credentials: credentialsFor(server) }),
		);
		expect(error.code).toBe('response_too_large');
		expect(error.message).toMatch(
			/^The service's answer to GET \/api\/v1\/transcriptions\/job_hostile \(HTTP 200\) declares 9 MiB \(Content-Length\), more than the 8 MiB accepted; nothing was read$/,
		);
	});

	test('an error answer is held to 8 MiB even on a download', async () => {
		const server = await serve((response, seen) => {
			response.writeHead(500, { 'content-type': 'application/json' });
			stream(response, seen);
		});
		const error = nodeError(
			await runWorkflow({ nodes: [download('docx')], credentials: credentialsFor(server) }),
		);
		expect(error.code).toBe('response_too_large');
		expect(error.message).toContain('(HTTP 500) went past 8 MiB without a Content-Length');
	});

	test('a 40 MiB PDF, under the limit, is downloaded whole', async () => {
		const pdf = Buffer.alloc(40 * MIB, 0x25);
		const server = await serve((response) => {
			response.writeHead(200, {
				'content-type': 'application/pdf',
				'content-length': String(pdf.length),
				'content-disposition': 'attachment; filename="long-meeting.pdf"',
			});
			response.end(pdf);
		});
		const result = await runWorkflow({
			nodes: [download('pdf')],
			credentials: credentialsFor(server),
		});
		expect(result.error).toBeUndefined();
		const [item] = result.output(ACTION_NODE);
		expect(item.json).toMatchObject({ file_name: 'long-meeting.pdf', size_bytes: pdf.length });
		expect((await binaryBytes(item.binary!.data)).equals(pdf)).toBe(true);
	});
});

describe('each attempt has a deadline, not only an idle timeout', () => {
	/** The job snapshot as an answer that sends its headers at once, then one byte every `everyMs`. */
	function trickle(response: ServerResponse, seen: SeenRequest, everyMs: number): void {
		const body = Buffer.from(JSON.stringify(JOB));
		response.writeHead(200, {
			'content-type': 'application/json',
			'content-length': String(body.length),
		});
		const timer = setInterval(() => {
			if (response.destroyed || seen.bytesWritten >= body.length) {
				clearInterval(timer);
				if (!response.destroyed) response.end();
				return;
			}
			response.write(body.subarray(seen.bytesWritten, seen.bytesWritten + 1));
			seen.bytesWritten++;
		}, everyMs);
		response.on('close', () => clearInterval(timer));
	}

	test('a status answer trickled a byte every 5 s is given up at 60 s and asked again', async () => {
		const server = await serve((response, seen, index) => {
			if (index === 0) trickle(response, seen, 5_000);
			else jsonAnswer(response, 200, JOB);
		});
		const result = await runWorkflow({ nodes: [getJob], credentials: credentialsFor(server) });

		expect(result.error).toBeUndefined();
		expect(result.output(ACTION_NODE)[0].json).toMatchObject({ job_id: 'job_hostile' });
		const [trickled, retried] = server.requests;
		expect(server.requests).toHaveLength(2);
		await trickled.closed;
		expect(trickled.closedEarly).toBe(true);
		// About 12 of its ~300 bytes: the trickle never kept the attempt alive past its 60 s.
		expect(trickled.bytesWritten).toBeLessThan(20);
		expect(retried.startedAtMs - trickled.startedAtMs).toBeGreaterThanOrEqual(60_000);
	}, 180_000);

	test("the editor's job list (no execution) gives a trickled answer up at its 20 s", async () => {
		const server = await serve((response, seen, index) => {
			if (index === 0) trickle(response, seen, 1_000);
			else
				jsonAnswer(response, 200, {
					items: [JOB],
					total: 1,
					links: { self: '/', next: null, prev: null },
				});
		});
		const found = await searchJobList(credentialsFor(server));
		expect(found.results.map((entry) => entry.value)).toEqual(['job_hostile']);
		expect(server.requests).toHaveLength(2);
		await server.requests[0].closed;
		expect(server.requests[0].closedEarly).toBe(true);
		expect(server.requests[1].startedAtMs - server.requests[0].startedAtMs).toBeGreaterThanOrEqual(
			20_000,
		);
	}, 120_000);
});

/** The Job field's From List, as the editor asks for it (n8n-core's LoadOptionsContext, no execution). */
async function searchJobList(credentials: TestCredentials): Promise<INodeListSearchResult> {
	const loader = await loadPackage();
	const nodeTypes = new PackageNodeTypes(loader);
	const parameters = {
		resource: 'transcription',
		operation: 'get',
		jobId: { __rl: true, mode: 'list', value: '' },
	};
	const node: INode = {
		id: 'uuid-hostile',
		name: 'Temp-Node',
		type: nodeType('transcriptionService'),
		typeVersion: 2,
		position: [0, 0],
		parameters,
		credentials: { [CREDENTIAL_TYPE]: { id: 'cred-1', name: 'Transcription Service account' } },
	};
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	const additionalData = engineAdditionalData({
		executionId: 'editor',
		credentialsHelper: new FixtureCredentialsHelper(loader, fixtureCredentials(credentials)),
	});
	additionalData.currentNodeParameters = parameters;
	const context = new LoadOptionsContext(workflow, node, additionalData, 'jobId');
	const method = nodeTypes.getByNameAndVersion(node.type, node.typeVersion).methods?.listSearch
		?.searchJobs;
	if (!method) throw new Error('The node has no listSearch.searchJobs');
	return await method.call(context);
}

describe('the Format, not the service, decides the file', () => {
	const htmlAnswer = (response: ServerResponse) => {
		response.writeHead(200, {
			'content-type': 'text/html; charset=utf-8',
			'content-disposition': 'attachment; filename="invoice.html"',
		});
		response.end('<script>alert(1)</script>');
	};

	test('Format SRT answered as text/html named invoice.html: an SRT binary named invoice.srt', async () => {
		const server = await serve(htmlAnswer);
		const result = await runWorkflow({
			nodes: [download('srt')],
			credentials: credentialsFor(server),
		});
		expect(result.error).toBeUndefined();
		const [item] = result.output(ACTION_NODE);
		expect(item.json).toMatchObject({
			format: 'srt',
			file_name: 'invoice.srt',
			mime_type: 'application/x-subrip',
		});
		expect(item.binary?.data).toMatchObject({
			fileName: 'invoice.srt',
			mimeType: 'application/x-subrip',
			fileExtension: 'srt',
		});
	});

	test.each([
		['a path', 'attachment; filename="../../etc/cron.d/job.html"', '.._.._etc_cron.d_job.docx'],
		['a bidi override', "attachment; filename*=UTF-8''invoice%E2%80%AEcod.exe", 'invoicecod.docx'],
		['no name', 'attachment', 'job_hostile.docx'],
		['only an extension', 'attachment; filename=".exe"', 'job_hostile.docx'],
	])('a service name with %s keeps only a clean stem', async (_case, disposition, fileName) => {
		const server = await serve((response) => {
			response.writeHead(200, {
				'content-type': 'application/octet-stream',
				'content-disposition': disposition,
			});
			response.end('PK');
		});
		const result = await runWorkflow({
			nodes: [download('docx')],
			credentials: credentialsFor(server),
		});
		expect(result.error).toBeUndefined();
		expect(result.output(ACTION_NODE)[0].binary?.data).toMatchObject({
			fileName,
			mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
		});
	});

	test('Job Default answered as text/html: refused with unexpected_media_type, nothing saved', async () => {
		const server = await serve(htmlAnswer);
		const error = nodeError(
			await runWorkflow({ nodes: [download('job_default')], credentials: credentialsFor(server) }),
		);
		expect(error.code).toBe('unexpected_media_type');
		expect(error.message).toBe(
			'The service answered the job\'s default artifact with "text/html", which is none of SRT, TXT, PDF or DOCX',
		);
		expect(error.context.job_id).toBe('job_hostile');
	});
});
