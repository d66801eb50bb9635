// n8n's Retry On Fail through n8n's own engine against the sandbox: a job committed before the node failed is replayed
// on the retry, not written twice. The rest of the attack review now lives where each behaviour does
// (ids-in-request-paths, action-account-webhook, action-transcription, trigger-webhook); this describe belongs with
// the derived Idempotency-Keys in idempotency-keys.test.ts.
import { makeWav } from '../support/fixtures/media';
import { actionNode, ACTION_NODE, binaryItem, runWorkflow } from '../support/engine/harness';
import { useEngineSandbox } from '../support/engine/engine-sandbox';
import { freshAccounts } from '../support/engine/accounts';

const env = useEngineSandbox({ jobSeconds: 1, recordExchanges: true });
const wav = makeWav({ seconds: 1 });
const freshAccount = freshAccounts(env);

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
