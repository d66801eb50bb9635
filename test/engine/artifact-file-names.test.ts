// A Content-Disposition file name is the service's word, not a safe path: both nodes must store the artifact under a
// clean name (no path separators, controls or bidi tricks, bounded length, real letters kept), whatever filename* says. A loopback stand-in for the service answers every artifact
// download with a hostile header (the sandbox itself never sends one). And the Format, not the service's Content-Type
// or file name, decides the file's type and extension (a hostile server per case, support/engine/hostile-server.ts).
import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { PublicTranscriptionWebhookEvent } from '../../src/api';
import {
	actionNode,
	ACTION_NODE,
	nodeError,
	runWorkflow,
	type TestCredentials,
} from '../support/engine/harness';
import { credentialsFor, download, useHostileServers } from '../support/engine/hostile-server';
import { TriggerUnderTest } from '../support/engine/webhook-harness';

// [name in filename*, name the binary must get]: forward slashes, backslashes (a separator on Windows only), and names
// with nothing left once separators are gone.
const HOSTILE_NAMES: Array<[string, string]> = [
	['../../etc/passwd.srt', '.._.._etc_passwd.srt'],
	['..\\..\\startup\\evil.srt', '.._.._startup_evil.srt'],
	// Nothing usable left: the node names the file after the job.
	['/', 'job_1.srt'],
	['..', 'job_1.srt'],
	// Controls would break a header or a log line; a bidi override hides the real extension, which the Format replaces.
	['report\u0000.srt', 'report_.srt'],
	['a\r\nSet-Cookie: x.srt', 'a__Set-Cookie_ x.srt'],
	['invoice\u202Etrs.exe', 'invoicetrs.srt'],
	// Bounded (200 bytes of UTF-8), the extension kept; Hebrew stays Hebrew.
	[`${'a'.repeat(8000)}.srt`, `${'a'.repeat(196)}.srt`],
	['ראיון עם דנה.srt', 'ראיון עם דנה.srt'],
];
const SIGNING_SECRET = 'whsec_file_names_0001';

let service: Server;
let hostileName = '';
let credentials: TestCredentials;

beforeAll(async () => {
	service = createServer((request, response) => {
		if (!/\/transcriptions\/[^/]+\/artifact/.test(request.url ?? '')) {
			response.writeHead(404, { 'content-type': 'application/json' }).end('{}');
			return;
		}
		response
			.writeHead(200, {
				'content-type': 'application/x-subrip; charset=utf-8',
				'content-disposition': `attachment; filename="passwd.srt"; filename*=UTF-8''${encodeURIComponent(hostileName)}`,
			})
			.end('1\n00:00:00,000 --> 00:00:01,000\nhello\n');
	});
	service.listen(0, '127.0.0.1');
	await once(service, 'listening');
	credentials = {
		apiKey: 'svc_sk_live_fileNames000000000001',
		baseUrl: `http://127.0.0.1:${(service.address() as AddressInfo).port}`,
		signingSecret: SIGNING_SECRET,
	};
});
afterAll(() => {
	service.closeAllConnections();
	service.close();
});

/** [short label for the test title, name sent, name expected]. */
const CASES = HOSTILE_NAMES.map(([sent, safe]) => [JSON.stringify(sent).slice(0, 40), sent, safe]);

it.each(CASES)('Download Artifact stores %s under a clean name', async (_label, sent, safe) => {
	hostileName = sent;
	const result = await runWorkflow({
		nodes: [
			actionNode({
				resource: 'transcription',
				operation: 'downloadArtifact',
				jobId: 'job_1',
				format: 'srt',
			}),
		],
		credentials,
	});
	expect(result.error).toBeUndefined();
	const [item] = result.output(ACTION_NODE);
	expect(item.json.file_name).toBe(safe);
	expect(item.binary?.data.fileName).toBe(safe);
});

it.each(CASES)(
	"the trigger's artifact download stores %s under a clean name",
	async (_label, sent, safe) => {
		hostileName = sent;
		const trigger = await TriggerUnderTest.start({
			parameters: { downloadArtifact: true, artifactFormat: 'srt' },
			credentials,
			runExecutions: true,
		});
		try {
			const event: PublicTranscriptionWebhookEvent = {
				event: 'transcription.completed',
				event_id: `evt_file_names_${sent.length}`,
				job_id: 'job_1',
				status: 'completed',
				created_at: new Date().toISOString(),
				links: {
					self: `${credentials.baseUrl}/api/v1/transcriptions/job_1`,
					artifact: `${credentials.baseUrl}/api/v1/transcriptions/job_1/artifact`,
				},
			};
			const call = await trigger.postSignedEvent(event, SIGNING_SECRET);
			expect(call.status).toBe(200);
			const [item] = call.executionOutput!;
			expect(item.json.artifact_error).toBeUndefined();
			expect(item.binary?.data.fileName).toBe(safe);
		} finally {
			await trigger.close();
		}
	},
);

const serve = useHostileServers();

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
