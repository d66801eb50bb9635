// One rule through n8n's engine against the sandbox: an id is one path segment wherever a node puts it in a request
// path. Ids with dot segments or separators are refused before any request, by the action node's operations and by
// the trigger's artifact download. The unit side of the rule: test/unit/ids.test.ts.
import type { PublicTranscriptionWebhookEvent } from '../../src/api';
import { makeWav } from '../support/fixtures/media';
import { actionNode, binaryItem, nodeError, runWorkflow } from '../support/engine/harness';
import { useEngineSandbox } from '../support/engine/engine-sandbox';
import { freshAccounts } from '../support/engine/accounts';
import { TriggerUnderTest } from '../support/engine/webhook-harness';

const env = useEngineSandbox({ jobSeconds: 1, recordExchanges: true });
const wav = makeWav({ seconds: 1 });
const freshAccount = freshAccounts(env);

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
