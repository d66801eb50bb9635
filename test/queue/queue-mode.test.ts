// The pack on n8n's distributed engine: one main, two workers (concurrency 5) and two webhook processors behind a
// round-robin router, sharing PostgreSQL and Redis, the packed package installed in every process as users install
// it, binary data in n8n's database mode. Everything is proven by counting: executions and their items through the
// main's public API, which worker ran what from the workers' logs, where every webhook went from the router's log,
// every request the service saw from a counting proxy. The figures land in test/e2e/.work/queue/results/<v>.json.
import { createReadStream } from 'node:fs';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

import { startCountingProxy, type CountingProxy } from '../support/sandbox/counting-proxy';
import { SandboxAdmin } from '../../sandbox/admin-client';
import { startSandbox, type RunningSandbox } from '../../sandbox/server';
import { ARTIFACT_FORMATS, type ArtifactFormat } from '../../src/artifacts';
import { batchFiles, makeWav, writeWavFile } from '../support/fixtures/media';
import { ARTIFACT_MIME_TYPES } from '../support/n8n/artifacts';
import { CREDENTIAL_TYPE } from '../support/n8n/environment';
import { serviceArtifact } from '../support/n8n/executions';
import type { ExecutionWithData } from '../support/n8n/rest';
import { isN8nVersionId, WORK_DIR, type N8nVersionId } from '../support/n8n/versions';
import { triggerProductionUrl } from '../support/n8n/workflows';
import { startQueueCluster, type QueueCluster, type WorkerRun } from '../support/queue/cluster';
import type { RoutingPolicy } from '../support/n8n/webhook-router';
import {
	allExecutions,
	emittedItems,
	executionIdSet,
	finishedExecutions,
	withData,
} from '../support/queue/executions';
import { postMedia, runManyExecutions } from '../support/queue/many-executions';
import { judgePausedExecution } from '../support/queue/paused-outcome';
import {
	completionEvent,
	createJob,
	deliver,
	type Answer,
	type JobEvent,
} from '../support/queue/service';
import {
	TRANSCRIBE_NODE,
	TRIGGER_NODE,
	transcribeWorkflow,
	triggerWorkflow,
	writeToDiskWorkflow,
} from '../support/queue/workflows';
import {
	answered,
	ARTIFACT_ROUTES,
	DOWNLOAD,
	MAX_WAIT_SECONDS,
	PAUSE_FORMATS,
	rules,
	STATUS_READ,
} from '../support/reliability/pause-faults';
import { Tally } from '../support/reliability/tally';
import { JobHolder } from '../support/sandbox/client';

function queueVersionId(): N8nVersionId {
	const versionId = process.env.QUEUE_N8N_VERSION ?? '';
	if (!isN8nVersionId(versionId) || versionId === '1.123') {
		throw new Error(
			`QUEUE_N8N_VERSION must be 2.8, 2.15 or 2.41 (got "${versionId}"); run npm run test:queue`,
		);
	}
	return versionId;
}

/**
 * `QUEUE_PROFILE=ci` (what .ci/run sets) proves the same things with fewer executions and a smaller large file, so
 * both versions fit CI's time budget; `npm run test:queue` on its own runs the full counts the README reports.
 */
const CI_PROFILE = process.env.QUEUE_PROFILE === 'ci';

const versionId = queueVersionId();
const workDir = path.join(WORK_DIR, 'queue', `${versionId}${CI_PROFILE ? '-ci' : ''}`);
const resultsFile = path.join(
	WORK_DIR,
	'queue',
	'results',
	`${versionId}${CI_PROFILE ? '-ci' : ''}.json`,
);

const WORKERS = 2;
const WORKER_CONCURRENCY = 5;
const SLOTS = WORKERS * WORKER_CONCURRENCY;

/**
 * The largest binary n8n's database mode can hand a node: node-postgres reads a bytea column as hex text ("\x" + two
 * characters per byte) and V8 strings stop at 2^29 − 24 characters, so 2^28 − 13 bytes is the most that comes back.
 * A 256 MiB file (13 bytes more) is stored but can never be read: the worker logs "Cannot create a string longer
 * than 0x1fffffe8 characters" and the execution stays "running".
 */
const DATABASE_MODE_LARGEST_BINARY = 2 ** 28 - 13;
const MIB = 1024 * 1024;
const LARGE_FILE_BYTES = CI_PROFILE ? 64 * MIB : DATABASE_MODE_LARGEST_BINARY;

const CREDENTIALS = {
	main: { id: 'tssQueueMain0001', name: 'Transcription Service (queue suite)' },
	slow: { id: 'tssQueueSlow0001', name: 'Transcription Service (long jobs)' },
	limited: { id: 'tssQueueLimit001', name: 'Transcription Service (rate-limited account)' },
	r5: { id: 'tssQueueR5Fault1', name: 'Transcription Service (R5 faults)' },
};

const WORKFLOWS = {
	transcribe: { id: 'tssQTranscribe01', path: 'queue-transcribe' },
	floor: { id: 'tssQFloorWrite01', path: 'queue-floor' },
	trigger: { id: 'tssQTrigger00001', path: '' },
	pauseWide: { id: 'tssQPauseWide001', path: 'queue-pause-wide' },
	pauseMulti: { id: 'tssQPauseMulti01', path: 'queue-pause-multi' },
	many: { id: 'tssQMany00000001', path: 'queue-many' },
	pauseR5: { id: 'tssQPauseR5Fault', path: 'queue-pause-r5' },
};

/** The rate limit of the many-executions account: 15 writes per 5 s window (one job a second). */
const LIMITED_WINDOW_SECONDS = 5;
const LIMITED_WRITES_PER_WINDOW = 15;
const MANY_EXECUTIONS = CI_PROFILE ? 40 : 200;
/** Events per measurement of copies sent to two processors. */
const COPIED_EVENTS = CI_PROFILE ? 10 : 20;
/**
 * The service's retry schedule (first retry after 1 min ± 20 %) as is, or in CI a quarter of it (the sandbox's time
 * scale): what matters is that the copy comes after the first delivery has been handled, not the minute itself.
 */
const RETRY_TIME_SCALE = CI_PROFILE ? 0.25 : 1;

/** R5's batch on real n8n (every tenth item not media, so its job fails). */
const R5_ITEMS = CI_PROFILE ? 10 : 30;
/** The service's retries × 0.1 (6 s, 54 s, 5 min, 12 min ± 20 %), so that a lost answer is delivered again soon. */
const R5_TIME_SCALE = 0.1;
/** First deliveries whose answer the router loses after the processor handled them. */
const R5_LOST_ANSWERS = CI_PROFILE ? 1 : 3;
/** How long the batch may take once its last job has ended: past it, its jobs count as stalled. */
const R5_STALL_BOUND_MS = 240_000;
const R5_SEED = 5_000_117;

interface Services {
	/** Jobs of 2 s, generous limits: Transcribe and Download, the trigger, the multi-item pause. */
	main: RunningSandbox;
	mainProxy: CountingProxy;
	/** Jobs of 20 s: long enough for every paused execution to be waiting at once. */
	slow: RunningSandbox;
	/** One account whose write bucket is the bottleneck. */
	limited: RunningSandbox;
	limitedProxy: CountingProxy;
	/** R5's account: fault rules on its routes, jobs held until the test ends them, retries time-scaled. */
	r5: RunningSandbox;
	r5Proxy: CountingProxy;
}

let services: Services;
let cluster: QueueCluster;
let triggerUrl: string;
const figures: Record<string, unknown> = {};

async function startServices(): Promise<Services> {
	const generous = { perTier: { platinum: 600, premium: 600 } };
	const main = await startSandbox({
		port: 0,
		quiet: true,
		allowLocalWebhooks: true,
		jobSeconds: 2,
		rateLimits: generous,
		timeScale: RETRY_TIME_SCALE,
	});
	const slow = await startSandbox({
		port: 0,
		quiet: true,
		allowLocalWebhooks: true,
		jobSeconds: 20,
		rateLimits: generous,
	});
	const limited = await startSandbox({
		port: 0,
		quiet: true,
		allowLocalWebhooks: true,
		jobSeconds: 1,
		rateLimits: {
			windowSeconds: LIMITED_WINDOW_SECONDS,
			perTier: { platinum: LIMITED_WRITES_PER_WINDOW, premium: LIMITED_WRITES_PER_WINDOW },
		},
	});
	// Stamped with each service's own clock, so every answer falls in the service's rate-limit window.
	const mainProxy = await startCountingProxy(main.baseUrl, { now: () => main.clock.now() });
	const limitedProxy = await startCountingProxy(limited.baseUrl, {
		now: () => limited.clock.now(),
	});
	const r5 = await startSandbox({
		port: 0,
		quiet: true,
		allowLocalWebhooks: true,
		jobSeconds: 2,
		rateLimits: generous,
		timeScale: R5_TIME_SCALE,
	});
	const r5Proxy = await startCountingProxy(r5.baseUrl, { now: () => r5.clock.now() });
	return { main, mainProxy, slow, limited, limitedProxy, r5, r5Proxy };
}

function credentialFile(
	reference: { id: string; name: string },
	service: RunningSandbox,
	baseUrl: string,
) {
	return {
		...reference,
		type: CREDENTIAL_TYPE,
		data: {
			apiKey: service.keys.platinum_live.key,
			signingSecret: service.keys.platinum_live.signing_secret,
			previousSigningSecret: '',
			baseUrl,
			pathPrefix: '/api/v1',
		},
	};
}

function suiteWorkflows() {
	return [
		transcribeWorkflow({
			...WORKFLOWS.transcribe,
			credential: CREDENTIALS.main,
			formats: [...ARTIFACT_FORMATS],
			waitMode: 'poll',
		}),
		writeToDiskWorkflow(WORKFLOWS.floor.id, WORKFLOWS.floor.path, '={{ $json.query.floorFile }}'),
		triggerWorkflow(WORKFLOWS.trigger.id, CREDENTIALS.main),
		transcribeWorkflow({
			...WORKFLOWS.pauseWide,
			credential: CREDENTIALS.slow,
			formats: ['srt'],
			waitMode: 'pauseUntilWebhook',
		}),
		transcribeWorkflow({
			...WORKFLOWS.pauseMulti,
			fromFolder: true,
			credential: CREDENTIALS.main,
			formats: ['srt', 'txt'],
			waitMode: 'pauseUntilWebhook',
		}),
		transcribeWorkflow({
			...WORKFLOWS.pauseR5,
			fromFolder: true,
			credential: CREDENTIALS.r5,
			formats: [...PAUSE_FORMATS],
			waitMode: 'pauseUntilWebhook',
			maxWaitSeconds: MAX_WAIT_SECONDS,
			onError: 'continueErrorOutput',
		}),
		transcribeWorkflow({
			...WORKFLOWS.many,
			credential: CREDENTIALS.limited,
			formats: ['srt'],
			waitMode: 'poll',
		}),
	];
}

beforeAll(async () => {
	const started = Date.now();
	services = await startServices();
	const workflows = suiteWorkflows();
	const trigger = workflows.find((workflow) => workflow.id === WORKFLOWS.trigger.id)!;
	cluster = await startQueueCluster({
		versionId,
		workDir,
		workers: WORKERS,
		webhookProcessors: 2,
		workerConcurrency: WORKER_CONCURRENCY,
		credentials: [
			credentialFile(CREDENTIALS.main, services.main, services.mainProxy.baseUrl),
			credentialFile(CREDENTIALS.slow, services.slow, services.slow.baseUrl),
			credentialFile(CREDENTIALS.limited, services.limited, services.limitedProxy.baseUrl),
			credentialFile(CREDENTIALS.r5, services.r5, services.r5Proxy.baseUrl),
		],
		workflows: (routerBaseUrl) => {
			triggerUrl = triggerProductionUrl(routerBaseUrl, trigger, TRIGGER_NODE);
			return workflows;
		},
		activate: Object.values(WORKFLOWS).map((workflow) => workflow.id),
	});
	figures.cluster = {
		n8n: cluster.install.n8nVersion,
		node: cluster.install.nodeVersion,
		postgres: cluster.postgres.version,
		redis: cluster.redis.version,
		workers: WORKERS,
		workerConcurrency: WORKER_CONCURRENCY,
		webhookProcessors: cluster.webhookProcessors.length,
		binaryDataMode: 'database',
		startSeconds: Math.round((Date.now() - started) / 1000),
	};
	process.stderr.write(
		`\n[queue] n8n ${cluster.install.n8nVersion} on Node ${cluster.install.nodeVersion}: main ${cluster.main.baseUrl}, router ${cluster.router.baseUrl}, ready in ${figures.cluster && (figures.cluster as { startSeconds: number }).startSeconds} s (logs: ${workDir})\n`,
	);
}, 900_000);

afterAll(async () => {
	await cluster?.stop();
	await services?.mainProxy.close();
	await services?.limitedProxy.close();
	await services?.r5Proxy.close();
	await services?.r5.close();
	await services?.main.close();
	await services?.slow.close();
	await services?.limited.close();
	await mkdir(path.dirname(resultsFile), { recursive: true });
	await writeFile(
		resultsFile,
		`${JSON.stringify({ versionId, profile: CI_PROFILE ? 'ci' : 'full', figures }, null, '\t')}\n`,
	);
	process.stderr.write(`[queue] figures: ${JSON.stringify(figures)}\n`);
});

/** Worker runs of these executions that were not there before. */
function runsOf(runs: WorkerRun[], executionIds: Iterable<string>): WorkerRun[] {
	const ids = new Set(executionIds);
	return runs.filter((run) => ids.has(run.executionId));
}

function countBy<T>(values: T[], key: (value: T) => string): Record<string, number> {
	const counts: Record<string, number> = {};
	for (const value of values) counts[key(value)] = (counts[key(value)] ?? 0) + 1;
	return counts;
}

async function expectArtifactsAsServed(
	execution: ExecutionWithData,
	formats: readonly ArtifactFormat[],
): Promise<void> {
	const [item] = emittedItems(execution, TRANSCRIBE_NODE);
	expect(item.json.error).toBeUndefined();
	expect(item.json.status).toBe('completed');
	const jobId = String(item.json.job_id);
	for (const format of formats) {
		const binary = item.binary?.[format];
		expect(binary?.mimeType).toBe(ARTIFACT_MIME_TYPES[format]);
		// In PostgreSQL, where every process of the cluster reads it (n8n's queue-mode default).
		expect(binary?.id).toMatch(/^database:/);
		const stored = await cluster.api.binaryData(binary!);
		const served = await serviceArtifact(
			services.main.baseUrl,
			services.main.keys.platinum_live.key,
			jobId,
			format,
		);
		expect(stored.equals(served)).toBe(true);
	}
}

describe('Transcribe and Download runs on the workers', () => {
	it('turns uploads into transcripts on the workers, all four artifacts byte-identical to the service’s', async () => {
		const before = await executionIdSet(cluster.api, WORKFLOWS.transcribe.id);
		const statuses = await Promise.all(
			['one', 'two', 'three'].map((name, index) =>
				postMedia(
					cluster.router.baseUrl,
					WORKFLOWS.transcribe.path,
					`queue-${name}.wav`,
					makeWav({ seconds: 1 + index }),
				),
			),
		);
		expect(statuses.map((upload) => upload.status)).toEqual([200, 200, 200]);

		const finished = await finishedExecutions(cluster.api, WORKFLOWS.transcribe.id, before, 3);
		const executions = await withData(cluster.api, finished);
		for (const execution of executions) {
			expect(execution.status).toBe('success');
			await expectArtifactsAsServed(execution, ARTIFACT_FORMATS);
		}
		// Each execution ran exactly once, on a worker; the main and the webhook processors ran none.
		const runs = runsOf(
			await cluster.workerRuns(),
			executions.map((execution) => execution.id),
		);
		expect(runs).toHaveLength(3);
		expect(new Set(runs.map((run) => run.executionId)).size).toBe(3);
		for (const process of [cluster.main, ...cluster.webhookProcessors]) {
			expect(await process.log()).not.toMatch(/Worker started execution/);
		}
		figures.transcribe = { executions: 3, runsByWorker: countBy(runs, (run) => run.worker) };
	});

	it(`uploads ${CI_PROFILE ? 'a 64 MiB file' : 'the largest file database mode carries (256 MiB − 13 bytes)'} through the workers, costing a worker what n8n’s own node reading it costs`, async () => {
		const mediaFile = path.join(cluster.filesFolder, 'long-recording.wav');
		const size = await writeWavFile(mediaFile, { bytes: LARGE_FILE_BYTES });
		expect(size).toBe(LARGE_FILE_BYTES);
		const floorFile = path.join(cluster.filesFolder, 'floor-copy.wav');

		/**
		 * Sends the file to a workflow and measures the peak RSS growth of the worker that ran the execution. The workers
		 * are restarted first, so each measurement starts from a fresh process: what one large read leaves resident would
		 * otherwise be counted in the next one's baseline, not its growth.
		 */
		const measure = async (workflow: { id: string; path: string }, query = '') => {
			await Promise.all(cluster.workers.map((worker) => worker.stop()));
			await Promise.all(cluster.workers.map((worker) => worker.start()));
			const before = await executionIdSet(cluster.api, workflow.id);
			const baseline = new Map<string, number>();
			for (const worker of cluster.workers) {
				await worker.resetPeakRss();
				baseline.set(worker.name, await worker.rssBytes());
			}
			const response = await fetch(`${cluster.router.baseUrl}/webhook/${workflow.path}${query}`, {
				method: 'POST',
				headers: {
					'content-type': 'audio/wav',
					'content-length': String(size),
					'content-disposition': 'attachment; filename="long-recording.wav"',
				},
				body: createReadStream(mediaFile) as unknown as ReadableStream,
				duplex: 'half',
			} as RequestInit);
			expect(response.status).toBe(200);
			await response.body?.cancel();
			const [finished] = await finishedExecutions(cluster.api, workflow.id, before, 1, {
				timeoutMs: 600_000,
			});
			const run = (await cluster.workerRuns()).find(
				(candidate) => candidate.executionId === finished.id,
			);
			expect(run).toBeDefined();
			const worker = cluster.workers.find((candidate) => candidate.name === run!.worker)!;
			const growth = (await worker.peakRssBytes()) - (baseline.get(worker.name) ?? 0);
			return { execution: finished, worker: worker.name, growthMiB: Math.round(growth / MIB) };
		};

		const ours = await measure(WORKFLOWS.transcribe);
		const [execution] = await withData(cluster.api, [ours.execution]);
		expect(execution.status).toBe('success');
		await expectArtifactsAsServed(execution, ARTIFACT_FORMATS);
		// The service received every byte (it refuses a size mismatch) into the slot of that job.
		const jobId = String(emittedItems(execution, TRANSCRIBE_NODE)[0].json.job_id);
		const { uploads } = await new SandboxAdmin(services.main.baseUrl).records();
		const upload = uploads.find((candidate) => candidate.job_id === jobId);
		expect(upload).toMatchObject({ bytes_received: size, size_bytes: size });

		const floor = await measure(WORKFLOWS.floor, `?floorFile=${encodeURIComponent(floorFile)}`);
		expect(floor.execution.status).toBe('success');
		expect((await stat(floorFile)).size).toBe(size);
		await rm(floorFile);
		await rm(mediaFile);

		figures.largeFile = {
			bytes: size,
			transcribeAndDownloadPeakGrowthMiB: ours.growthMiB,
			n8nWriteToDiskPeakGrowthMiB: floor.growthMiB,
			workers: [ours.worker, floor.worker],
		};
		// n8n's database mode itself reads the whole binary into the worker (a Buffer, and the hex text it is parsed
		// from), for any node: ~10 × the file. A fresh worker's peak moves by ±40 MiB between identical runs of the 64 MiB
		// file here (622–685 MiB), more than a fraction of one copy can be told from, so this checks the pack costs no more
		// than n8n's own node reading the same upload, within that noise; the pack's own growth (1.5 MiB for a 1 GiB
		// file) is benchmark P2's, where nothing else reads the file.
		expect(ours.growthMiB).toBeLessThan(floor.growthMiB * 1.25);
	});
});

describe('Trigger behind two webhook processors', () => {
	const secret = () => services.main.keys.platinum_live.signing_secret;

	/** The trigger's executions not in `before`, with the event_id each one started for. */
	async function triggerExecutions(before: ReadonlySet<string>, count: number) {
		const finished = await finishedExecutions(cluster.api, WORKFLOWS.trigger.id, before, count);
		const executions = await withData(cluster.api, finished);
		return executions.map((execution) => ({
			id: execution.id,
			status: execution.status,
			eventId: String(emittedItems(execution, TRIGGER_NODE)[0]?.json.event_id),
		}));
	}

	/** How many executions the trigger started, in total, once nothing new has arrived for `quietMs`. */
	async function settledExecutionCount(quietMs = 5000): Promise<number> {
		let count = (await allExecutions(cluster.api, WORKFLOWS.trigger.id)).length;
		for (;;) {
			await delay(quietMs);
			const now = (await allExecutions(cluster.api, WORKFLOWS.trigger.id)).length;
			if (now === count) return count;
			count = now;
		}
	}

	afterEach(() => {
		cluster.router.policy = 'round-robin';
		cluster.router.loseAnswer = () => false;
	});

	it('starts one execution on a worker for each signed event the service delivers through the router', async () => {
		const before = await executionIdSet(cluster.api, WORKFLOWS.trigger.id);
		const firstRecord = cluster.router.records.length;
		const jobIds = await Promise.all(
			[1, 2, 3, 4].map((index) =>
				createJob(
					services.main.baseUrl,
					services.main.keys.platinum_live.key,
					triggerUrl,
					`meeting-${index}.wav`,
				),
			),
		);

		const executions = await triggerExecutions(before, 4);
		expect(executions.every((execution) => execution.status === 'success')).toBe(true);
		const deliveries = cluster.router.records
			.slice(firstRecord)
			.filter((record) => record.eventId !== null);
		expect(deliveries).toHaveLength(4);
		expect(new Set(executions.map((execution) => execution.eventId))).toEqual(
			new Set(deliveries.map((record) => record.eventId)),
		);
		// Round robin: both processors received deliveries; workers ran every execution, once.
		expect(new Set(deliveries.map((record) => record.target)).size).toBe(2);
		const runs = runsOf(
			await cluster.workerRuns(),
			executions.map((execution) => execution.id),
		);
		expect(runs).toHaveLength(4);
		expect(jobIds).toHaveLength(4);
		figures.triggerDeliveries = {
			events: 4,
			byProcessor: countBy(deliveries, (record) => record.target),
			runsByWorker: countBy(runs, (run) => run.worker),
		};
	});

	it('answers forged deliveries with 401 on either processor and starts nothing', async () => {
		const before = await settledExecutionCount(1000);
		const runsBefore = (await cluster.workerRuns()).length;
		const firstRecord = cluster.router.records.length;
		const event = completionEvent(services.main.baseUrl);
		const forgeries: Array<(headers: Record<string, string>) => Record<string, string>> = [
			(headers) => ({ ...headers, 'X-Service-Signature': `v1=${'0'.repeat(64)}` }),
			(headers) => ({
				...headers,
				'X-Service-Timestamp': String(Math.floor(Date.now() / 1000) - 3600),
			}),
			(headers) =>
				Object.fromEntries(
					Object.entries(headers).filter(([name]) => name !== 'X-Service-Signature'),
				),
			(headers) => ({ ...headers, 'X-Service-Event-ID': 'evt_someone_else' }),
		];
		const answers: Answer[] = [];
		for (const forge of forgeries) {
			answers.push(await deliver(triggerUrl, secret(), event, forge));
			answers.push(await deliver(triggerUrl, 'whsec_not_the_accounts_secret', event, forge));
		}

		expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 401));
		const targets = cluster.router.records.slice(firstRecord).map((record) => record.target);
		expect(new Set(targets)).toEqual(new Set(['webhook-1', 'webhook-2']));
		expect(await settledExecutionCount()).toBe(before);
		expect((await cluster.workerRuns()).length).toBe(runsBefore);
	});

	it('starts no second execution when the service redelivers an event to the other processor after its retry interval', async () => {
		const before = await executionIdSet(cluster.api, WORKFLOWS.trigger.id);
		const firstRecord = cluster.router.records.length;
		// Each first delivery is accepted by one processor but its answer is lost, so the service delivers the event
		// again after its first retry interval (1 min ± 20 %, times RETRY_TIME_SCALE), and the router sends that copy to
		// the other processor.
		cluster.router.policy = 'redelivery-to-another-processor';
		cluster.router.loseAnswer = (_request, firstOfEvent) => firstOfEvent;
		const admin = new SandboxAdmin(services.main.baseUrl);
		const jobIds: string[] = [];
		// Jobs a few seconds apart: no two first deliveries are accepted at the same moment (see the measurements below).
		for (const index of [1, 2, 3]) {
			jobIds.push(
				await createJob(
					services.main.baseUrl,
					services.main.keys.platinum_live.key,
					triggerUrl,
					`retried-${index}.wav`,
				),
			);
			await delay(3000);
		}
		const attemptsOf = async () =>
			(await admin.webhookDeliveries()).filter((record) =>
				jobIds.includes(JSON.parse(record.body).job_id as string),
			);
		for (;;) {
			const attempts = await attemptsOf();
			if (attempts.filter((record) => record.attempt === 2).length === jobIds.length) break;
			await delay(2000);
		}

		const executions = await triggerExecutions(before, 3);
		expect(await settledExecutionCount()).toBe(before.size + 3);
		const attempts = await attemptsOf();
		const deliveries = cluster.router.records.slice(firstRecord);
		const spacingSeconds: number[] = [];
		for (const eventId of new Set(attempts.map((record) => record.event_id))) {
			const [first, second] = attempts
				.filter((record) => record.event_id === eventId)
				.sort((a, b) => a.attempt - b.attempt);
			expect(second.status_code).toBe(200);
			spacingSeconds.push(Math.round((Date.parse(second.at) - Date.parse(first.at)) / 1000));
			const routed = deliveries.filter((record) => record.eventId === eventId);
			expect(routed.map((record) => record.status)).toEqual(['answer_lost', 200]);
			expect(new Set(routed.map((record) => record.target)).size).toBe(2);
			expect(routed[1].answer).toEqual({ received: true, ignored: 'duplicate event_id' });
			expect(executions.filter((execution) => execution.eventId === eventId)).toHaveLength(1);
		}
		figures.triggerRetrySpacing = {
			events: 3,
			secondsBetweenAttempts: spacingSeconds,
			retryTimeScale: RETRY_TIME_SCALE,
			executions: 3,
		};
	});

	it('starts no second execution for a copy that reaches the other processor a few seconds later', async () => {
		const before = await executionIdSet(cluster.api, WORKFLOWS.trigger.id);
		cluster.router.policy = 'redelivery-to-another-processor';
		const events = Array.from({ length: 6 }, () => completionEvent(services.main.baseUrl));
		const answers: Array<[Answer, Answer]> = [];
		for (const event of events) {
			const first = await deliver(triggerUrl, secret(), event);
			await delay(3000);
			answers.push([first, await deliver(triggerUrl, secret(), event)]);
		}

		expect(answers.map(([first]) => first.body)).toEqual(events.map(() => ({ received: true })));
		expect(answers.map(([, second]) => second.body)).toEqual(
			events.map(() => ({ received: true, ignored: 'duplicate event_id' })),
		);
		await triggerExecutions(before, events.length);
		expect(await settledExecutionCount()).toBe(before.size + events.length);
	});

	/**
	 * Sends copies of fresh events as `send` says, with the router's `policy`; how many events started two executions.
	 * Every event must start one execution at least and two at most.
	 */
	async function copiesStartedTwice(
		policy: RoutingPolicy,
		send: (event: JobEvent) => Promise<unknown>,
		count = COPIED_EVENTS,
	): Promise<number> {
		cluster.router.policy = policy;
		const before = await executionIdSet(cluster.api, WORKFLOWS.trigger.id);
		const events = Array.from({ length: count }, () => completionEvent(services.main.baseUrl));
		await Promise.all(events.map(send));
		const total = await settledExecutionCount();
		const executions = await triggerExecutions(before, total - before.size);
		let twice = 0;
		for (const event of events) {
			const started = executions.filter((execution) => execution.eventId === event.event_id);
			expect(started.length).toBeGreaterThanOrEqual(1);
			expect(started.length).toBeLessThanOrEqual(2);
			if (started.length === 2) twice++;
		}
		return twice;
	}

	const sameInstant = (event: JobEvent) =>
		Promise.all([deliver(triggerUrl, secret(), event), deliver(triggerUrl, secret(), event)]);
	// The other copy sent the moment the first one's 200 arrives (what the sandbox's duplicate fault does).
	const rightAfterThe200 = async (event: JobEvent) => {
		await deliver(triggerUrl, secret(), event);
		await deliver(triggerUrl, secret(), event);
	};
	// Every event's first copy at once (half on each processor), the other copies three seconds later.
	const fewSecondsLaterUnderLoad = async (event: JobEvent) => {
		await deliver(triggerUrl, secret(), event);
		await delay(3000);
		await deliver(triggerUrl, secret(), event);
	};

	it('measures the copies that start a second execution when the router sends them to the other processor', async () => {
		figures.triggerCopiesOnTheOtherProcessor = {
			events: COPIED_EVENTS,
			sameInstant: await copiesStartedTwice('redelivery-to-another-processor', sameInstant),
			rightAfterThe200: await copiesStartedTwice(
				'redelivery-to-another-processor',
				rightAfterThe200,
			),
			fewSecondsLaterWhileBothProcessorsAccept: await copiesStartedTwice(
				'redelivery-to-another-processor',
				fewSecondsLaterUnderLoad,
			),
		};
	});

	it('starts no second execution for any copy when deliveries are routed by event id (the README’s setup)', async () => {
		const startedTwice = {
			sameInstant: await copiesStartedTwice('event-affinity', sameInstant),
			rightAfterThe200: await copiesStartedTwice('event-affinity', rightAfterThe200),
			fewSecondsLaterWhileBothProcessorsAccept: await copiesStartedTwice(
				'event-affinity',
				fewSecondsLaterUnderLoad,
			),
		};
		figures.triggerCopiesRoutedByEventId = { events: COPIED_EVENTS, ...startedTwice };
		expect(startedTwice).toEqual({
			sameInstant: 0,
			rightAfterThe200: 0,
			fewSecondsLaterWhileBothProcessorsAccept: 0,
		});
		// Both processors took deliveries.
		const recent = cluster.router.records.slice(-120).filter((record) => record.eventId !== null);
		expect(new Set(recent.map((record) => record.target)).size).toBe(2);
	});
});

describe('Pause Until Webhook across workers and webhook processors', () => {
	it('holds no worker slot while waiting, and resumes each execution once, on either worker', async () => {
		const before = await executionIdSet(cluster.api, WORKFLOWS.pauseWide.id);
		const count = 2 * SLOTS;
		const media = makeWav({ seconds: 1 });
		const statuses = await Promise.all(
			Array.from({ length: count }, (_, index) =>
				postMedia(cluster.router.baseUrl, WORKFLOWS.pauseWide.path, `paused-${index}.wav`, media),
			),
		);
		expect(statuses.every((upload) => upload.status === 200)).toBe(true);

		// The service's jobs take 20 s: all executions must be waiting at once, twice as many as the workers' slots.
		let mostWaiting = 0;
		for (const deadline = Date.now() + 60_000; Date.now() < deadline && mostWaiting < count;) {
			const waiting = await allExecutions(cluster.api, WORKFLOWS.pauseWide.id, 'waiting');
			mostWaiting = Math.max(
				mostWaiting,
				waiting.filter((execution) => !before.has(execution.id)).length,
			);
			await delay(500);
		}
		expect(mostWaiting).toBeGreaterThan(SLOTS);

		const finished = await finishedExecutions(cluster.api, WORKFLOWS.pauseWide.id, before, count);
		const executions = await withData(cluster.api, finished);
		for (const execution of executions) {
			expect(execution.status).toBe('success');
			const [item] = emittedItems(execution, TRANSCRIBE_NODE);
			expect(item.json.status).toBe('completed');
			expect(item.binary?.srt).toBeDefined();
		}
		// Each execution ran twice on the workers: up to the pause, then from the resume.
		const runs = runsOf(
			await cluster.workerRuns(),
			executions.map((execution) => execution.id),
		);
		const resumedElsewhere = executions.filter((execution) => {
			const [paused, resumed] = runs.filter((run) => run.executionId === execution.id);
			expect(resumed).toBeDefined();
			return paused.worker !== resumed.worker;
		}).length;
		expect(runs).toHaveLength(2 * count);
		const resumers = new Set(
			executions.map(
				(execution) => runs.filter((run) => run.executionId === execution.id)[1].worker,
			),
		);
		expect(resumers.size).toBe(WORKERS);
		expect(resumedElsewhere).toBeGreaterThan(0);
		const resumes = cluster.router.records.filter((record) =>
			record.url.startsWith('/webhook-waiting/'),
		);
		figures.pauseWide = {
			executions: count,
			slots: SLOTS,
			mostWaitingAtOnce: mostWaiting,
			resumedOnTheOtherWorker: resumedElsewhere,
			resumeCallsByProcessor: countBy(resumes, (record) => record.target),
		};
	});

	it('resumes a multi-item execution once when its events split across the two processors', async () => {
		const folder = path.join(cluster.filesFolder, 'multi');
		await mkdir(folder, { recursive: true });
		const items = 6;
		for (let index = 1; index <= items; index++) {
			await writeFile(path.join(folder, `part-${index}.wav`), makeWav({ seconds: 1 }));
		}
		const before = await executionIdSet(cluster.api, WORKFLOWS.pauseMulti.id);
		const firstExchange = services.mainProxy.exchanges.length;
		const firstRecord = cluster.router.records.length;

		const response = await fetch(`${cluster.router.baseUrl}/webhook/${WORKFLOWS.pauseMulti.path}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ glob: path.join(folder, '*.wav') }),
		});
		expect(response.status).toBe(200);
		const [finished] = await finishedExecutions(cluster.api, WORKFLOWS.pauseMulti.id, before, 1);
		const [execution] = await withData(cluster.api, [finished]);
		expect(execution.status).toBe('success');
		const outputs = emittedItems(execution, TRANSCRIBE_NODE);
		expect(outputs).toHaveLength(items);
		for (const output of outputs) {
			expect(output.json.status).toBe('completed');
			expect(output.binary?.srt && output.binary?.txt).toBeDefined();
		}
		// Let late events settle (they meet a finished execution: n8n answers 409 and nothing runs).
		await new SandboxAdmin(services.main.baseUrl).webhookDeliveries({ waitIdle: true });
		await delay(2000);

		const runs = runsOf(await cluster.workerRuns(), [execution.id]);
		expect(runs).toHaveLength(2);
		const resumeCalls = cluster.router.records
			.slice(firstRecord)
			.filter((record) => record.url.startsWith(`/webhook-waiting/${execution.id}`));
		// The service's events (each delivered once), and the node's own checks (no X-Service-Event-ID).
		const eventCalls = resumeCalls.filter((record) => record.eventId !== null);
		expect(eventCalls).toHaveLength(items);
		const exchanges = services.mainProxy.exchanges.slice(firstExchange);
		const statusRequests = exchanges.filter(
			(exchange) =>
				exchange.method === 'GET' && /\/transcriptions\/[^/?]+$/.test(exchange.url.split('?')[0]),
		).length;
		const artifactRequests = exchanges.filter((exchange) => /\/artifact/.test(exchange.url)).length;
		// One resume, one download per artifact (a resume that both processors collected downloaded 24 for 12).
		expect(artifactRequests).toBe(items * 2);
		expect(statusRequests).toBeLessThanOrEqual(2 * items + 2);
		figures.pauseMultiItem = {
			items,
			resumeCallsByProcessor: countBy(resumeCalls, (record) => record.target),
			resumeAnswers: countBy(resumeCalls, (record) => String(record.status)),
			checks: resumeCalls.length - eventCalls.length,
			statusRequests,
			artifactRequests,
			artifactRequestsNeeded: items * 2,
		};
	});
});

describe('R5 on real n8n: a paused batch under faults, over workers and webhook processors', () => {
	afterEach(async () => {
		cluster.router.loseAnswer = () => false;
		await new SandboxAdmin(services.r5.baseUrl).clearFaults();
	});

	it(`outputs every job of a ${R5_ITEMS}-item batch once through 503s, duplicated events, a lost resume answer and a webhook processor restarted mid-wait`, async () => {
		const admin = new SandboxAdmin(services.r5.baseUrl);
		const { account_id: accountId, key: apiKey } = services.r5.keys.platinum_live;
		const folder = path.join(cluster.filesFolder, 'r5');
		await mkdir(folder, { recursive: true });
		for (const file of batchFiles(R5_ITEMS, 'r5')) {
			await writeFile(path.join(folder, file.fileName), file.data);
		}
		const before = await executionIdSet(cluster.api, WORKFLOWS.pauseR5.id);
		const firstExchange = services.r5Proxy.exchanges.length;
		const firstRecord = cluster.router.records.length;

		await admin.setFaults({
			seed: R5_SEED,
			rules: [...rules(['getTranscription'], '503'), ...rules(ARTIFACT_ROUTES, '503')],
			// Every event delivered a second time right after its 2xx; round robin sends most copies to the other processor.
			webhooks: { duplicateProbability: 1 },
		});
		let answersLost = 0;
		cluster.router.loseAnswer = (request, firstOfEvent) =>
			request.eventId !== null && firstOfEvent && answersLost++ < R5_LOST_ANSWERS;
		// The jobs are held from the moment they exist, so they end while the execution waits, around the restart.
		const holder = new JobHolder(admin, accountId);
		const response = await fetch(`${cluster.router.baseUrl}/webhook/${WORKFLOWS.pauseR5.path}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ glob: path.join(folder, '*.wav') }),
		});
		expect(response.status).toBe(200);
		const executionId = await waitingExecution(WORKFLOWS.pauseR5.id, before);
		await holder.stop();
		expect(holder.held).toHaveLength(R5_ITEMS);

		// Half the jobs end; webhook-1 restarts (its memory gone) while their events, copies and retries arrive; the
		// rest end once it is back.
		const half = Math.ceil(R5_ITEMS / 2);
		await holder.release(holder.held.slice(0, half));
		await delay(3000);
		const restarted = cluster.webhookProcessors[0];
		const restartStarted = Date.now();
		await restarted.stop();
		await restarted.start();
		const restartSeconds = Math.round((Date.now() - restartStarted) / 1000);
		await holder.release(holder.held.slice(half));

		const [finished] = await finishedExecutions(cluster.api, WORKFLOWS.pauseR5.id, before, 1, {
			timeoutMs: R5_STALL_BOUND_MS,
		}).catch(() => [undefined]);
		const [execution] = finished ? await withData(cluster.api, [finished]) : [undefined];
		await admin.clearFaults();
		const outcome = await judgePausedExecution({
			execution,
			nodeName: TRANSCRIBE_NODE,
			items: R5_ITEMS,
			formats: PAUSE_FORMATS,
			api: cluster.api,
			admin,
			accountId,
			sandboxBaseUrl: services.r5.baseUrl,
			apiKey,
		});

		// The faults, counted from what answered in the service's or n8n's place.
		const exchanges = services.r5Proxy.exchanges.slice(firstExchange);
		const resumeUrl = `/webhook-waiting/${executionId}`;
		const routed = cluster.router.records
			.slice(firstRecord)
			.filter((record) => record.url.startsWith(resumeUrl));
		const firsts = (await admin.webhookDeliveries()).filter(
			(delivery) => delivery.url.includes(resumeUrl) && delivery.attempt === 1,
		);
		const injected = {
			statusReads503: answered(exchanges, STATUS_READ, 503),
			downloads503: answered(exchanges, DOWNLOAD, 503),
			eventsDuplicated: firsts.length - new Set(firsts.map((delivery) => delivery.event_id)).size,
			resumeAnswersLost: routed.filter((record) => record.status === 'answer_lost').length,
			processorsRestarted: 1,
			requestsMeetingTheRestart: routed.filter(
				(record) => record.target === restarted.name && record.status === 'no_response',
			).length,
		};
		const faults = Object.values(injected).reduce((sum, count) => sum + count, 0);
		const tally = new Tally();
		tally.add({
			feature: 'Pause Until Webhook',
			faultClass: `queue mode, n8n ${cluster.install.n8nVersion}: every fault at once`,
			jobs: outcome.jobs,
			faults,
			lost: outcome.lost.length,
			duplicated: outcome.duplicated.length,
			stalled: outcome.stalled.length,
			detail: JSON.stringify(injected),
		});
		process.stderr.write(
			`\n[queue] R5 totals (${R5_ITEMS} items, ${CI_PROFILE ? 'ci' : 'full'} profile):\n${tally.render()}\n[queue] R5 faults injected: ${JSON.stringify(injected)}\n`,
		);
		figures.r5Pause = {
			items: R5_ITEMS,
			jobs: outcome.jobs,
			faultsInjected: injected,
			lost: outcome.lost,
			duplicated: outcome.duplicated,
			stalled: outcome.stalled,
			webhookProcessorRestartSeconds: restartSeconds,
			resumeCallsByProcessor: countBy(routed, (record) => record.target),
			resumeAnswers: countBy(routed, (record) => String(record.status)),
		};

		expect(outcome.reasons).toEqual([]);
		expect(outcome.jobs).toBe(R5_ITEMS);
		expect({
			lost: outcome.lost,
			duplicated: outcome.duplicated,
			stalled: outcome.stalled,
		}).toEqual({ lost: [], duplicated: [], stalled: [] });
		expect(execution?.status).toBe('success');
		// Every fault class met the batch (a delivery may or may not reach webhook-1 while it is down).
		for (const [name, count] of Object.entries(injected)) {
			if (name !== 'requestsMeetingTheRestart') expect(count).toBeGreaterThan(0);
		}
	});
});

/** The id of the workflow's one new execution once it is waiting (paused). */
async function waitingExecution(workflowId: string, before: ReadonlySet<string>): Promise<string> {
	for (const deadline = Date.now() + 120_000; Date.now() < deadline;) {
		const waiting = await allExecutions(cluster.api, workflowId, 'waiting');
		const fresh = waiting.find((execution) => !before.has(execution.id));
		if (fresh) return fresh.id;
		await delay(500);
	}
	throw new Error(`no execution of ${workflowId} paused within 120 s`);
}

describe('Many executions against one account', () => {
	it(`runs ${MANY_EXECUTIONS} single-item executions on both workers: 0 failed items, 429s only until the pacers have seen a whole window`, async () => {
		const result = await runManyExecutions({
			cluster,
			workflowId: WORKFLOWS.many.id,
			webhookPath: WORKFLOWS.many.path,
			count: MANY_EXECUTIONS,
			proxy: services.limitedProxy,
			windowSeconds: LIMITED_WINDOW_SECONDS,
		});
		figures.manyExecutions = {
			...result,
			finishedAtMs: undefined,
			writesPerWindow: LIMITED_WRITES_PER_WINDOW,
			windowSeconds: LIMITED_WINDOW_SECONDS,
		};

		expect(result.executions).toBe(MANY_EXECUTIONS);
		expect(result.failureCodes).toEqual({});
		expect(result.completedItems).toBe(MANY_EXECUTIONS);
		expect(result.writes).toBe(3 * MANY_EXECUTIONS);
		// Each bucket's pacers learn it in the window of its first request and, when that request came after the window's
		// start, in the next (the first they see whole); none is refused after, wherever the first request fell.
		expect(result.rateLimitedAfterFirstWholeWindow).toBe(0);
		expect(Object.keys(result.runsByWorker).sort()).toEqual(['worker-1', 'worker-2']);
	});
});
