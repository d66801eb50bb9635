// Attacks on the nodes, each proven closed through n8n's own engine against the sandbox:
// ids that would change the request path, duplicate writes under n8n's Retry On Fail, a test delivery repeated
// against a 503, a list whose cursor never ends, and signing secrets pasted with whitespace.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { PublicTranscriptionWebhookEvent } from '../../src/api';
import { makeWav } from '../support/fixtures/media';
import {
	actionNode,
	ACTION_NODE,
	binaryItem,
	nodeError,
	runWorkflow,
	type TestCredentials,
} from '../support/engine/harness';
import { useEngineSandbox } from '../support/engine/engine-sandbox';
import { TriggerUnderTest } from '../support/engine/webhook-harness';

const env = useEngineSandbox({ jobSeconds: 1, recordExchanges: true });
const wav = makeWav({ seconds: 1 });

async function freshAccount(mode: 'live' | 'test' = 'test') {
	const key = await env.admin.createKey({ mode, tier: 'platinum' });
	if (!key.signing_secret) throw new Error('the sandbox gave the account no signing secret');
	const credentials: TestCredentials = {
		...env.credentials(key.key),
		signingSecret: key.signing_secret,
	};
	return { accountId: key.account_id, credentials, signingSecret: key.signing_secret };
}

describe('ids with dot segments or separators are refused before any request', () => {
	it.each([
		[
			'Get',
			{ resource: 'transcription', operation: 'get', jobId: '..' },
			'Job',
			'".." is a path segment, not an id',
		],
		[
			'Get',
			{ resource: 'transcription', operation: 'get', jobId: '.' },
			'Job',
			'"." is a path segment, not an id',
		],
		[
			'Download Artifact',
			{
				resource: 'transcription',
				operation: 'downloadArtifact',
				jobId: '../account',
				format: 'srt',
			},
			'Job',
			'it contains a path separator ("/" or "\\")',
		],
		[
			'Create',
			{ resource: 'transcription', operation: 'create', uploadId: '..' },
			'Upload ID',
			'".." is a path segment, not an id',
		],
	])(
		'%s with %j: invalid_id naming the parameter, nothing sent',
		async (_operation, parameters, parameter, problem) => {
			const { credentials } = await freshAccount();
			const error = nodeError(await runWorkflow({ nodes: [actionNode(parameters)], credentials }));
			expect(error.code).toBe('invalid_id');
			expect(error.message).toBe(`The parameter "${parameter}" is not a valid id: ${problem}`);
			expect(env.proxy.exchanges).toHaveLength(0);
		},
	);

	it.each([
		['..', '".." is a path segment, not an id'],
		['/api/v1/uploads/%2e%2e/binary', '".." is a path segment, not an id'],
		['/api/v1/uploads/%2E/binary', '"." is a path segment, not an id'],
	])('Send Media with Upload %j: invalid_id, the media is not sent', async (upload, problem) => {
		const { credentials } = await freshAccount();
		const error = nodeError(
			await runWorkflow({
				nodes: [
					actionNode({
						resource: 'upload',
						operation: 'sendMedia',
						upload,
						binaryPropertyName: 'data',
					}),
				],
				credentials,
				input: [await binaryItem({ data: wav, fileName: 'a.wav', mimeType: 'audio/wav' })],
			}),
		);
		expect(error.code).toBe('invalid_id');
		expect(error.message).toBe(`The parameter "Upload" is not a valid id: ${problem}`);
		expect(env.proxy.exchanges).toHaveLength(0);
	});

	it('the trigger emits a signed event whose job_id is ".." but fetches nothing for it', async () => {
		const { credentials, signingSecret } = await freshAccount();
		const trigger = await TriggerUnderTest.start({
			parameters: { downloadArtifact: true, artifactFormat: 'srt' },
			credentials,
			runExecutions: true,
		});
		try {
			const event: PublicTranscriptionWebhookEvent = {
				event: 'transcription.completed',
				event_id: 'evt_dot_segment',
				job_id: '..',
				status: 'completed',
				created_at: new Date().toISOString(),
				links: {
					self: `${env.proxy.baseUrl}/api/v1/transcriptions/..`,
					artifact: `${env.proxy.baseUrl}/api/v1/artifact.srt`,
				},
			};
			const call = await trigger.postSignedEvent(event, signingSecret);
			expect(call.status).toBe(200);
			const [item] = call.executionOutput!;
			expect(item.json.job_id).toBe('..');
			expect(item.json.artifact_error).toEqual({
				code: 'invalid_id',
				message: 'The event\'s job_id is not a valid id: ".." is a path segment, not an id',
			});
			expect(item.binary).toBeUndefined();
			expect(env.proxy.exchanges).toHaveLength(0);
		} finally {
			await trigger.close();
		}
	});
});

describe("n8n's Retry On Fail never writes twice", () => {
	const transcribe = (retry: boolean) => ({
		...actionNode({
			resource: 'transcription',
			operation: 'transcribeAndDownload',
			binaryPropertyName: 'data',
			formats: ['txt'],
			options: { pollIntervalSeconds: 0.2, maxPollIntervalSeconds: 0.5 },
		}),
		...(retry ? { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 } : {}),
	});

	it('a job committed before the node failed is replayed on the retry: 1 slot, 1 job, 2 keys', async () => {
		const { accountId, credentials } = await freshAccount('live');
		// Every answer to POST /transcriptions is lost on the first run (5 attempts), though the job is committed.
		await env.admin.setFaults({
			rules: [{ route: 'createTranscription', kind: 'drop_after_commit', count: 5 }],
		});
		const result = await runWorkflow({
			nodes: [transcribe(true)],
			credentials,
			input: [await binaryItem({ data: wav, fileName: 'retry.wav', mimeType: 'audio/wav' })],
		});
		expect(result.error).toBeUndefined();
		const [item] = result.output(ACTION_NODE);
		expect(item.json.status).toBe('completed');
		const records = await env.admin.records(accountId);
		expect(records.uploads).toHaveLength(1);
		expect(records.jobs).toHaveLength(1);
		const posts = env.proxy.exchanges.filter((exchange) => exchange.method === 'POST');
		const keys = new Set(posts.map((post) => post.requestHeaders['idempotency-key']));
		expect(posts.filter((post) => post.url.endsWith('/transcriptions'))).toHaveLength(6);
		expect(keys.size).toBe(2);
	});

	it('a new execution of the same item writes anew', async () => {
		const { accountId, credentials } = await freshAccount('test');
		const input = [await binaryItem({ data: wav, fileName: 'twice.wav', mimeType: 'audio/wav' })];
		await runWorkflow({ nodes: [transcribe(false)], credentials, input });
		await runWorkflow({ nodes: [transcribe(false)], credentials, input });
		const records = await env.admin.records(accountId);
		expect(records.uploads).toHaveLength(2);
		expect(records.jobs).toHaveLength(2);
	});
});

describe('Send Test Event is not repeated blindly', () => {
	it('against a 503 it is sent once and the item says why it was not repeated', async () => {
		const { credentials } = await freshAccount();
		await env.admin.setFaults({ rules: [{ route: 'testWebhook', kind: '503' }] });
		const error = nodeError(
			await runWorkflow({
				nodes: [
					actionNode({
						resource: 'webhook',
						operation: 'sendTestEvent',
						webhookUrl: 'https://example.com/hook',
						eventType: 'transcription.completed',
					}),
				],
				credentials,
			}),
		);
		expect(error.context.http_status).toBe(503);
		expect(error.message).toMatch(
			/\(not repeated: the call is not idempotent and the service may have acted on it\)$/,
		);
		expect(env.proxy.exchanges.filter((exchange) => exchange.method === 'POST')).toHaveLength(1);
	});
});

describe('Get Many (Return All) stops on a cursor it was given before', () => {
	let broken: Server;
	let brokenUrl: string;
	let requests = 0;

	beforeAll(async () => {
		// A service whose links.next alternates between two pages forever.
		broken = createServer((request, response) => {
			requests++;
			const cursor = Number(
				new URL(request.url ?? '/', 'http://x').searchParams.get('cursor') ?? 0,
			);
			const next = cursor === 0 ? 100 : 0;
			response.writeHead(200, { 'content-type': 'application/json' }).end(
				JSON.stringify({
					items: [{ job_id: `job_${cursor}`, status: 'completed' }],
					total: 1000,
					links: {
						self: request.url,
						next: `/api/v1/transcriptions?limit=100&cursor=${next}`,
						prev: null,
					},
				}),
			);
		});
		broken.listen(0, '127.0.0.1');
		await once(broken, 'listening');
		brokenUrl = `http://127.0.0.1:${(broken.address() as AddressInfo).port}`;
	});
	afterAll(() => {
		broken.closeAllConnections();
		broken.close();
	});

	it('fails with pagination_stopped after the second page instead of looping', async () => {
		const error = nodeError(
			await runWorkflow({
				nodes: [actionNode({ resource: 'transcription', operation: 'getAll', returnAll: true })],
				credentials: { apiKey: 'svc_sk_live_brokenPaging000000001', baseUrl: brokenUrl },
			}),
		);
		expect(error.code).toBe('pagination_stopped');
		expect(error.message).toBe(
			"The service's next page repeats cursor 0 after 2 pages (2 jobs); stopped instead of looping",
		);
		expect(requests).toBe(2);
	});
});

describe('signing secrets pasted with surrounding whitespace', () => {
	it.each([
		['a trailing newline', (secret: string) => `${secret}\n`],
		['spaces around it', (secret: string) => `  ${secret}  `],
	])('the trigger accepts events when the secret has %s', async (_label, paste) => {
		const { credentials, signingSecret } = await freshAccount();
		const trigger = await TriggerUnderTest.start({
			parameters: {},
			credentials: { ...credentials, signingSecret: paste(signingSecret) },
			runExecutions: true,
		});
		try {
			const event: PublicTranscriptionWebhookEvent = {
				event: 'transcription.failed',
				event_id: `evt_whitespace_${paste('').length}`,
				job_id: 'job_whitespace',
				status: 'failed',
				created_at: new Date().toISOString(),
				links: {
					self: `${env.proxy.baseUrl}/api/v1/transcriptions/job_whitespace`,
					artifact: null,
				},
			};
			const call = await trigger.postSignedEvent(event, signingSecret);
			expect(call.status).toBe(200);
			expect(call.executionOutput?.[0].json.event_id).toBe(event.event_id);
		} finally {
			await trigger.close();
		}
	});
});
