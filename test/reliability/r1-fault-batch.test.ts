// R1 fault batch: 1,000 Transcribe and Download items (live and test keys of one account, run side by side)
// while the sandbox injects about 10 % faults across every route — 500/502/503, 429 bursts, connection resets,
// answers lost after the write committed, 2 s latency spikes. Counted through the sandbox's own records and
// the proxy's log of every exchange: 0 duplicate slots or jobs, 0 lost items, 0 avoidable failures.
// RELIABILITY_SCALE (e.g. 0.1) shrinks the batch for a quick run; the default is the issue's count.

import type { INodeExecutionData } from 'n8n-workflow';

import { startCountingProxy, type CountingProxy } from '../support/sandbox/counting-proxy';
import { ACTION_NODE_NAME, runTranscribeAndDownload, wavItems } from '../support/engine/batch-runs';
import { SandboxAdmin, type SandboxRecords } from '../../sandbox/admin-client';
import type { FaultConfig, FaultRule } from '../../sandbox/faults';
import { startSandbox, type RunningSandbox } from '../../sandbox/server';
import { captureLogs, Evidence, scanForSecrets } from '../support/reliability/evidence';
import { itemTrail, judgeFailure } from '../support/reliability/item-trail';
import { reliabilityScale } from '../support/reliability/scale';

const TOTAL_ITEMS = Math.max(20, Math.round(1000 * reliabilityScale()));
const SEED = 7_000_001;

/** About 10 % of requests on every route get one of these (the rules are tried in order). */
const BACKGROUND_FAULTS: FaultRule[] = [
	{ route: '*', kind: '500', probability: 0.02 },
	{ route: '*', kind: '502', probability: 0.015 },
	{ route: '*', kind: '503', probability: 0.015 },
	{ route: '*', kind: '429', probability: 0.015 },
	{ route: '*', kind: 'reset', probability: 0.01 },
	{ route: '*', kind: 'drop_after_commit', probability: 0.015 },
	{ route: '*', kind: 'latency', probability: 0.01, latency_ms: 2000 },
];
/** After every 200 requests the next four, whatever their route, are answered 429 (fewer than a call's attempts). */
const BURST: FaultRule = { route: '*', kind: '429', count: 4 };
const REQUESTS_BETWEEN_BURSTS = 200;

interface Outcome {
	key: 'live' | 'test';
	fileName: string;
	item: INodeExecutionData;
}

let sandbox: RunningSandbox;
let proxy: CountingProxy;
let admin: SandboxAdmin;
let records: SandboxRecords;
const outcomes: Outcome[] = [];
const evidence = new Evidence();
let inputCount = 0;

beforeAll(async () => {
	captureLogs(evidence);
	sandbox = await startSandbox({
		port: 0,
		quiet: true,
		jobSeconds: 1,
		seed: SEED,
		// Limits far above the batch's needs, in short windows: every 429 here is an injected one, and its
		// Retry-After stays short.
		rateLimits: { windowSeconds: 2, perTier: { platinum: 10_000 } },
	});
	proxy = await startCountingProxy(sandbox.baseUrl);
	admin = new SandboxAdmin(sandbox.baseUrl);
	const faults: FaultConfig = { seed: SEED, rules: BACKGROUND_FAULTS };
	await admin.setFaults(faults);
	// Bursts follow the traffic, not the clock: a clock would pile them onto the last few items' calls. Re-arming
	// keeps the seeded stream going (no seed on later calls) and adds a fresh burst.
	let nextBurstAt = REQUESTS_BETWEEN_BURSTS;
	const bursts = setInterval(() => {
		if (proxy.exchanges.length < nextBurstAt) return;
		nextBurstAt = proxy.exchanges.length + REQUESTS_BETWEEN_BURSTS;
		void admin.setFaults({ rules: [BURST, ...BACKGROUND_FAULTS] });
	}, 100);

	try {
		const perKey = Math.ceil(TOTAL_ITEMS / 2);
		const batches = (['live', 'test'] as const).map(async (key) => {
			const items = await wavItems(key === 'live' ? perKey : TOTAL_ITEMS - perKey, `r1-${key}`);
			inputCount += items.length;
			const apiKey =
				key === 'live' ? sandbox.keys.platinum_live.key : sandbox.keys.platinum_test.key;
			const run = await runTranscribeAndDownload({
				items,
				credentials: { apiKey, baseUrl: proxy.baseUrl },
				concurrency: 10,
				formats: ['txt'],
				options: { pollIntervalSeconds: 0.5, maxPollIntervalSeconds: 2, maxWaitSeconds: 300 },
				continueOnFail: true,
			});
			if (run.error) evidence.addError(`R1 ${key} run error`, run.error);
			expect(run.error).toBeUndefined();
			const output = run.output(ACTION_NODE_NAME);
			evidence.addItems(`R1 ${key} output`, output);
			for (const item of output) {
				const paired = item.pairedItem as { item: number };
				outcomes.push({ key, fileName: items[paired.item].binary!.data.fileName!, item });
			}
		});
		await Promise.all(batches);
	} finally {
		clearInterval(bursts);
		await admin.clearFaults();
	}
	records = await admin.records(sandbox.keys.platinum_live.account_id);
});

afterAll(async () => {
	await proxy?.close();
	await sandbox?.close();
});

const failedOutcomes = () => outcomes.filter((outcome) => outcome.item.json.error !== undefined);

test(`R1: faults were injected into about 10 % of ${TOTAL_ITEMS} items' requests`, () => {
	const faulted = proxy.exchanges.filter(
		(exchange) =>
			exchange.status === 'no_response' ||
			exchange.status === 429 ||
			Number(exchange.status) >= 500,
	);
	const share = faulted.length / proxy.exchanges.length;
	const byAnswer = new Map<string, number>();
	for (const exchange of faulted)
		byAnswer.set(String(exchange.status), (byAnswer.get(String(exchange.status)) ?? 0) + 1);
	const replays = [...records.uploads, ...records.jobs].reduce(
		(sum, record) => sum + record.idempotent_replays,
		0,
	);
	process.stderr.write(
		`R1: ${proxy.exchanges.length} requests, ${faulted.length} faulted (${(share * 100).toFixed(1)} %: ` +
			`${[...byAnswer].map(([status, count]) => `${status}×${count}`).join(', ')}), ${replays} idempotent replays, ` +
			`${failedOutcomes().length} items failed\n`,
	);
	expect(share).toBeGreaterThan(0.05);
});

test('R1: 0 duplicate upload slots or jobs (sandbox records)', () => {
	const slotsPerFile = new Map<string, number>();
	for (const upload of records.uploads)
		slotsPerFile.set(upload.filename, (slotsPerFile.get(upload.filename) ?? 0) + 1);
	const uploadFile = new Map(records.uploads.map((upload) => [upload.upload_id, upload.filename]));
	const jobsPerFile = new Map<string, number>();
	for (const job of records.jobs) {
		const fileName = uploadFile.get(job.upload_id) ?? job.upload_id;
		jobsPerFile.set(fileName, (jobsPerFile.get(fileName) ?? 0) + 1);
	}
	const duplicateSlots = [...slotsPerFile].filter(([, count]) => count > 1);
	const duplicateJobs = [...jobsPerFile].filter(([, count]) => count > 1);
	expect({ duplicateSlots, duplicateJobs }).toEqual({ duplicateSlots: [], duplicateJobs: [] });
});

test('R1: 0 lost items — every input has exactly one output, a completed job with its transcript or a reported error', () => {
	expect(outcomes).toHaveLength(inputCount);
	const perFile = new Map<string, number>();
	for (const outcome of outcomes)
		perFile.set(outcome.fileName, (perFile.get(outcome.fileName) ?? 0) + 1);
	expect([...perFile.values()].filter((count) => count !== 1)).toEqual([]);
	expect(perFile.size).toBe(inputCount);

	const jobsById = new Map(records.jobs.map((job) => [job.job_id, job]));
	const unaccounted = outcomes.filter(({ item }) => {
		if (item.json.error !== undefined)
			return typeof (item.json.error as { message?: unknown }).message !== 'string';
		const job = jobsById.get(String(item.json.job_id));
		return !(
			job?.status === 'completed' &&
			item.json.status === 'completed' &&
			item.binary?.txt !== undefined
		);
	});
	expect(unaccounted.map((outcome) => outcome.fileName)).toEqual([]);

	// A job the outputs never mention would be work the user cannot find.
	const mentioned = new Set(
		outcomes.map(({ item }) =>
			String(item.json.job_id ?? (item.json.error as { job_id?: string } | undefined)?.job_id),
		),
	);
	expect(records.jobs.filter((job) => !mentioned.has(job.job_id)).map((job) => job.job_id)).toEqual(
		[],
	);
});

test('R1: 0 failures a spec section 7 retry policy would have avoided', () => {
	const verdicts = failedOutcomes().map((outcome) => ({
		fileName: outcome.fileName,
		error: outcome.item.json.error,
		...judgeFailure(itemTrail(outcome.fileName, proxy.exchanges, records)),
	}));
	const unavoidable = verdicts.filter((verdict) => !verdict.avoidable);
	if (unavoidable.length > 0)
		process.stderr.write(
			`R1: ${unavoidable.length} unavoidable failure(s): ${JSON.stringify(unavoidable)}\n`,
		);
	expect(verdicts.filter((verdict) => verdict.avoidable)).toEqual([]);
});

test('R4 (R1 run): no API key or signing secret in any output item, error or log line', () => {
	const { platinum_live, platinum_test } = sandbox.keys;
	const findings = scanForSecrets(evidence, {
		'live API key': platinum_live.key,
		'test API key': platinum_test.key,
		'signing secret': platinum_live.signing_secret,
	});
	expect(evidence.size).toBeGreaterThan(inputCount);
	expect(findings).toEqual([]);
});
