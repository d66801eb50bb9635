// Spec 7 and 8 through the node: retries through injected faults without a second slot or job, pacing from the
// X-RateLimit-* headers, and rate limits that reset too late to wait for. Send Media alone after a lost answer:
// action-upload.test.ts.
import { createRequire } from 'node:module';
import path from 'node:path';

import type { FaultRule } from '../../sandbox/faults';
import { makeWav } from '../support/fixtures/media';
import { startRateLimitWindow } from '../support/sandbox/client';
import {
	actionNode,
	ACTION_NODE,
	binaryItem,
	nodeError,
	runWorkflow,
} from '../support/engine/harness';
import { useControlledClock } from '../support/clock/controlled-clock';
import { useEngineSandbox } from '../support/engine/engine-sandbox';
import { freshAccounts } from '../support/engine/accounts';
import { REPO_ROOT } from '../support/n8n/versions';

// One-second rate windows: an injected 429 asks for one second of patience.
const clock = useControlledClock();
const env = useEngineSandbox({
	clock,
	recordExchanges: true,
	jobSeconds: 1,
	rateLimits: { windowSeconds: 1 },
});
const wav = makeWav({ seconds: 1 });
const freshAccount = freshAccounts(env);

const transcribe = actionNode({
	resource: 'transcription',
	operation: 'transcribeAndDownload',
	binaryPropertyName: 'data',
	formats: ['txt'],
	options: { pollIntervalSeconds: 0.2, maxPollIntervalSeconds: 0.5 },
});

const everyRoute = (kind: FaultRule['kind']): FaultRule[] =>
	(
		[
			'createUpload',
			'uploadBinary',
			'createTranscription',
			'getTranscription',
			'getTranscriptionArtifactByExtension',
		] as const
	).map((route) => ({ route, kind, count: 1 }));

async function transcribeThroughFaults(rules: FaultRule[], mode: 'live' | 'test' = 'test') {
	const { accountId, credentials } = await freshAccount(mode);
	await env.admin.setFaults({ seed: 7, rules });
	const result = await runWorkflow({
		nodes: [transcribe],
		credentials,
		input: [await binaryItem({ data: wav, fileName: 'faulty.wav', mimeType: 'audio/wav' })],
	});
	expect(result.error).toBeUndefined();
	const [item] = result.output(ACTION_NODE);
	expect(item.json.status).toBe('completed');
	expect(typeof item.json.text).toBe('string');
	const records = await env.admin.records(accountId);
	expect(records.counts).toEqual({ uploads: 1, jobs: 1 });
	expect(records.jobs[0].job_id).toBe(item.json.job_id);
	return records;
}

/** The Idempotency-Key of every attempt at a POST path: one key, however many attempts. */
function idempotencyKeysOf(path: string): string[] {
	return env.proxy.exchanges
		.filter((exchange) => exchange.method === 'POST' && exchange.url === path)
		.map((exchange) => String(exchange.requestHeaders['idempotency-key']));
}

describe('retries (spec 7) without a duplicate slot or job', () => {
	test.each(['500', '502', '503'] as const)(
		'HTTP %s once on every step of Transcribe and Download',
		async (kind) => {
			await transcribeThroughFaults(everyRoute(kind));
			const uploadKeys = idempotencyKeysOf('/api/v1/uploads');
			expect(uploadKeys).toHaveLength(2);
			expect(new Set(uploadKeys).size).toBe(1);
			const jobKeys = idempotencyKeysOf('/api/v1/transcriptions');
			expect(jobKeys).toHaveLength(2);
			expect(new Set(jobKeys).size).toBe(1);
		},
	);

	test('429 once on every step: waits Retry-After, then goes on', async () => {
		await transcribeThroughFaults(everyRoute('429'));
		expect(env.proxy.exchanges.filter((exchange) => exchange.status === 429)).toHaveLength(5);
	});

	test('connection reset once on every step (the upload stream is sent again from the start)', async () => {
		await transcribeThroughFaults(everyRoute('reset'), 'live');
		const puts = env.proxy.exchanges.filter((exchange) => exchange.method === 'PUT');
		expect(puts.map((put) => put.status)).toEqual([undefined, 200]);
		expect(puts[1].requestBytes).toBe(wav.length);
	});

	test('response lost after the write committed: the same key replays the slot and the job, the stored bytes are recognised', async () => {
		const records = await transcribeThroughFaults(
			(['createUpload', 'uploadBinary', 'createTranscription'] as const).map((route) => ({
				route,
				kind: 'drop_after_commit' as const,
				count: 1,
			})),
		);
		expect(records.uploads[0].idempotent_replays).toBe(1);
		expect(records.jobs[0].idempotent_replays).toBe(1);
		const puts = env.proxy.exchanges.filter((exchange) => exchange.method === 'PUT');
		expect(puts.map((put) => put.status)).toEqual([undefined, 409]);
	});
});

describe('rate limits (spec 8)', () => {
	afterEach(async () => {
		await env.admin.setRateLimits({ windowSeconds: 1, perTier: { premium: 30, platinum: 60 } });
	});

	const getAccount = actionNode(
		{ resource: 'account', operation: 'get' },
		{ continueOnFail: true },
	);

	test('a batch slows down to the X-RateLimit headers instead of meeting 429', async () => {
		// 2 per window × the reads multiplier of 2 = 4 reads per one-second window.
		await env.admin.setRateLimits({ windowSeconds: 1, perTier: { platinum: 2 } });
		const { credentials } = await freshAccount();
		const input = Array.from({ length: 10 }, () => ({ json: {} }));
		const result = await runWorkflow({ nodes: [getAccount], credentials, input });
		const output = result.output(ACTION_NODE);
		expect(output.filter((item) => item.json.error === undefined)).toHaveLength(10);
		expect(env.proxy.exchanges.map((exchange) => exchange.status)).toEqual(Array(10).fill(200));
	});

	test("the pacer waits the node's limit in all, however often other requests take the reopened window first", async () => {
		const { credentials } = await freshAccount();
		const load = createRequire(__filename);
		const { readServiceSettings } = load(
			path.join(REPO_ROOT, 'dist/nodes/shared/transport/settings.js'),
		) as { readServiceSettings: (context: object) => Promise<{ accountKey: string }> };
		const { sharedPacer } = load(
			path.join(REPO_ROOT, 'dist/nodes/shared/transport/pacers-and-job-caches.js'),
		) as { sharedPacer: (accountKey: string) => { reserve: () => number } };
		const { accountKey } = await readServiceSettings({
			getCredentials: async () => credentials,
			getNode: () => ({ name: 'pacer', type: 'pacer', typeVersion: 1 }),
		});
		// Each time the node comes back, the window has gone to someone else and reopens in 30 s again.
		const pacer = sharedPacer(accountKey);
		let reservations = 0;
		pacer.reserve = () => {
			reservations++;
			return 30_000;
		};
		const startMs = clock.now();
		const refused = nodeError(
			await runWorkflow({ nodes: [{ ...getAccount, onError: undefined }], credentials }),
		);
		expect(refused.code).toBe('rate_limit_exceeded');
		expect(env.proxy.exchanges).toHaveLength(0);
		// Four 30 s waits make the node's 2 minutes; the fifth reservation would pass them.
		expect(reservations).toBe(5);
		expect(clock.now() - startMs).toBeGreaterThanOrEqual(120_000);
		expect(clock.now() - startMs).toBeLessThan(150_000);
	});

	test('a window that reopens later than the node waits: reported as rate_limit_exceeded, not waited out', async () => {
		await env.admin.setRateLimits({ windowSeconds: 3600, perTier: { platinum: 1 } });
		await startRateLimitWindow(env.admin, 3600);
		const { accountId, credentials } = await freshAccount();
		// Two reads fit into the window; the third is refused by the pacer, before sending.
		const paced = await runWorkflow({
			nodes: [getAccount],
			credentials,
			input: [{ json: {} }, { json: {} }, { json: {} }],
		});
		const [, , refused] = paced.output(ACTION_NODE);
		expect(refused.json.error).toMatchObject({ code: 'rate_limit_exceeded', http_status: null });
		expect(env.proxy.exchanges).toHaveLength(2);

		// The pacer is the account's in this n8n process: a new execution knows the window is spent and sends nothing.
		const next = nodeError(
			await runWorkflow({ nodes: [{ ...getAccount, onError: undefined }], credentials }),
		);
		expect(next.code).toBe('rate_limit_exceeded');
		expect(next.context.http_status).toBeNull();
		expect(env.proxy.exchanges).toHaveLength(2);

		// Another key of the same account has a pacer of its own: the service answers 429, whose Retry-After is too
		// long to wait.
		const otherKey = await env.admin.createKey({
			mode: 'test',
			tier: 'platinum',
			account_id: accountId,
		});
		const answered = nodeError(
			await runWorkflow({
				nodes: [{ ...getAccount, onError: undefined }],
				credentials: { ...credentials, apiKey: otherKey.key },
			}),
		);
		expect(answered.code).toBe('rate_limit_exceeded');
		expect(answered.httpCode).toBe('429');
		expect(env.proxy.exchanges).toHaveLength(3);
	});
});
