// The one cluster every file of the queue tier shares: one main, two workers (concurrency 5) and two webhook
// processors behind a round-robin router, sharing PostgreSQL and Redis, the packed package installed in every process
// as users install it, binary data in n8n's database mode; the sandboxes the workflows' credentials point at, each
// behind a counting proxy where a test counts what the service saw. test/queue/global-setup.ts starts it once per jest
// run (per n8n version) and test/queue/global-teardown.ts stops it and writes the figures every file measured to
// test/e2e/.work/queue/results/<v>[-ci].json; test/queue/test-environment.ts hands it to each file (queueSuite()).
// Jest runs the tier in band (npm run test:queue), so the files reach the same live objects the global setup made.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { startCountingProxy, type CountingProxy } from '../sandbox/counting-proxy';
import { startSandbox, type RunningSandbox } from '../../../sandbox/server';
import { ARTIFACT_FORMATS } from '../../../src/artifacts';
import { CREDENTIAL_TYPE } from '../n8n/environment';
import { isN8nVersionId, WORK_DIR, type N8nVersionId } from '../n8n/versions';
import { triggerProductionUrl } from '../n8n/workflows';
import { startQueueCluster, type QueueCluster, type WorkerRun } from './cluster';
import {
	TRIGGER_NODE,
	transcribeLinkWorkflow,
	transcribeWorkflow,
	triggerWorkflow,
	writeToDiskWorkflow,
} from './workflows';
import { MAX_WAIT_SECONDS, PAUSE_FORMATS } from '../reliability/pause-faults';

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
export const CI_PROFILE = process.env.QUEUE_PROFILE === 'ci';

export const WORKERS = 2;
const WORKER_CONCURRENCY = 5;
export const SLOTS = WORKERS * WORKER_CONCURRENCY;

const CREDENTIALS = {
	main: { id: 'tssQueueMain0001', name: 'Transcription Service (queue suite)' },
	slow: { id: 'tssQueueSlow0001', name: 'Transcription Service (long jobs)' },
	limited: { id: 'tssQueueLimit001', name: 'Transcription Service (rate-limited account)' },
	r5: { id: 'tssQueueR5Fault1', name: 'Transcription Service (R5 faults)' },
};

export const WORKFLOWS = {
	transcribe: { id: 'tssQTranscribe01', path: 'queue-transcribe' },
	floor: { id: 'tssQFloorWrite01', path: 'queue-floor' },
	trigger: { id: 'tssQTrigger00001', path: '' },
	pauseWide: { id: 'tssQPauseWide001', path: 'queue-pause-wide' },
	pauseMulti: { id: 'tssQPauseMulti01', path: 'queue-pause-multi' },
	many: { id: 'tssQMany00000001', path: 'queue-many' },
	pauseR5: { id: 'tssQPauseR5Fault', path: 'queue-pause-r5' },
	byUrl: { id: 'tssQByUrl0000001', path: 'queue-by-url' },
	byHttpRequest: { id: 'tssQByHttpReq001', path: 'queue-by-http-request' },
};

/** The rate limit of the many-executions account: 15 writes per 5 s window (one job a second). */
export const LIMITED_WINDOW_SECONDS = 5;
export const LIMITED_WRITES_PER_WINDOW = 15;
/**
 * The service's retry schedule (first retry after 1 min ± 20 %) as is, or in CI a quarter of it (the sandbox's time
 * scale): what matters is that the copy comes after the first delivery has been handled, not the minute itself.
 */
export const RETRY_TIME_SCALE = CI_PROFILE ? 0.25 : 1;

/** The service's retries × 0.1 (6 s, 54 s, 5 min, 12 min ± 20 %), so that a lost answer is delivered again soon. */
const R5_TIME_SCALE = 0.1;

export interface Services {
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

/** What the queue tier's files share: the services, the cluster, and the figures each file measures. */
export interface QueueSuite {
	versionId: N8nVersionId;
	services: Services;
	cluster: QueueCluster;
	/** The trigger workflow's production webhook URL, through the router. */
	triggerUrl: string;
	/** Written to the results file once every file has run, `cluster` first. */
	figures: Record<string, unknown>;
}

declare global {
	/** The suite global-setup.ts started: in jest's own realm, and in each test file's (test-environment.ts). */
	var tssQueueSuite: QueueSuite | undefined;
}

/** The suite, in a test file of the queue tier. */
export function queueSuite(): QueueSuite {
	const suite = globalThis.tssQueueSuite;
	if (!suite) {
		throw new Error(
			'No queue cluster: run the queue tier through npm run test:queue (jest -c test/queue/jest.queue.config.js --runInBand)',
		);
	}
	return suite;
}

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

async function closeServices(services: Partial<Services>): Promise<void> {
	await services.mainProxy?.close();
	await services.limitedProxy?.close();
	await services.r5Proxy?.close();
	await services.r5?.close();
	await services.main?.close();
	await services.slow?.close();
	await services.limited?.close();
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
		transcribeLinkWorkflow({
			...WORKFLOWS.byUrl,
			credential: CREDENTIALS.main,
			through: 'mediaSource',
		}),
		transcribeLinkWorkflow({
			...WORKFLOWS.byHttpRequest,
			credential: CREDENTIALS.main,
			through: 'httpRequest',
		}),
	];
}

const profileSuffix = () => (CI_PROFILE ? '-ci' : '');

/** Starts the services and the cluster for QUEUE_N8N_VERSION (what stopQueueSuite stops); stops them if it fails. */
export async function startQueueSuite(): Promise<QueueSuite> {
	const versionId = queueVersionId();
	const workDir = path.join(WORK_DIR, 'queue', `${versionId}${profileSuffix()}`);
	const started = Date.now();
	let services: Services | undefined;
	try {
		services = await startServices();
		const workflows = suiteWorkflows();
		const trigger = workflows.find((workflow) => workflow.id === WORKFLOWS.trigger.id)!;
		let triggerUrl = '';
		const cluster = await startQueueCluster({
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
		const startSeconds = Math.round((Date.now() - started) / 1000);
		const figures: Record<string, unknown> = {
			cluster: {
				n8n: cluster.install.n8nVersion,
				node: cluster.install.nodeVersion,
				postgres: cluster.postgres.version,
				redis: cluster.redis.version,
				workers: WORKERS,
				workerConcurrency: WORKER_CONCURRENCY,
				webhookProcessors: cluster.webhookProcessors.length,
				binaryDataMode: 'database',
				startSeconds,
			},
		};
		process.stderr.write(
			`\n[queue] n8n ${cluster.install.n8nVersion} on Node ${cluster.install.nodeVersion}: main ${cluster.main.baseUrl}, router ${cluster.router.baseUrl}, ready in ${startSeconds} s (logs: ${workDir})\n`,
		);
		return { versionId, services, cluster, triggerUrl, figures };
	} catch (error) {
		if (services) await closeServices(services);
		throw error;
	}
}

/** Stops what startQueueSuite started and writes the figures of every file. */
export async function stopQueueSuite(suite: QueueSuite): Promise<void> {
	await suite.cluster.stop();
	await closeServices(suite.services);
	const resultsFile = path.join(
		WORK_DIR,
		'queue',
		'results',
		`${suite.versionId}${profileSuffix()}.json`,
	);
	await mkdir(path.dirname(resultsFile), { recursive: true });
	await writeFile(
		resultsFile,
		`${JSON.stringify(
			{ versionId: suite.versionId, profile: CI_PROFILE ? 'ci' : 'full', figures: suite.figures },
			null,
			'\t',
		)}\n`,
	);
	process.stderr.write(`[queue] figures: ${JSON.stringify(suite.figures)}\n`);
}

/** Worker runs of these executions that were not there before. */
export function runsOf(runs: WorkerRun[], executionIds: Iterable<string>): WorkerRun[] {
	const ids = new Set(executionIds);
	return runs.filter((run) => ids.has(run.executionId));
}

export function countBy<T>(values: T[], key: (value: T) => string): Record<string, number> {
	const counts: Record<string, number> = {};
	for (const value of values) counts[key(value)] = (counts[key(value)] ?? 0) + 1;
	return counts;
}
