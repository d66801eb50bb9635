// Many small executions against one account, the shape of form uploads and trigger-driven flows: N single-item
// executions started at once through the router, run side by side on the workers. What it counts: the executions
// and their items (completed or failed, with the error code), every request the service saw (from a counting proxy
// in front of it), 429 answers per rate-limit window and those after the pacers had learnt each bucket, and which
// worker ran what. Shared by the queue suite and P5.
import { setTimeout as delay } from 'node:timers/promises';

import type { RateLimitBucket } from '../../../src/api';
import { bucketOf, type CountingProxy, type Exchange } from '../sandbox/counting-proxy';
import { makeWav } from '../fixtures/media';
import type { QueueCluster } from './cluster';
import { emittedItems, executionIdSet, finishedExecutions, withData } from './executions';
import { TRANSCRIBE_NODE } from './workflows';

export interface ManyExecutionsOptions {
	cluster: QueueCluster;
	workflowId: string;
	webhookPath: string;
	count: number;
	/**
	 * In front of the service the workflow's credential points at, stamping exchanges with the service's clock (so
	 * each answer falls in the service's rate-limit window); only this run's exchanges are counted.
	 */
	proxy: CountingProxy;
	windowSeconds: number;
	mediaSeconds?: number;
	timeoutMs?: number;
}

export interface ManyExecutionsResult {
	executions: number;
	completedItems: number;
	failedItems: number;
	/** error.code → how many items failed with it. */
	failureCodes: Record<string, number>;
	/** Accepted writes (POST /uploads, PUT …/binary, POST /transcriptions). */
	writes: number;
	/** Rate-limit windows from the first accepted write to the last, both included. */
	writeWindows: number;
	/** From the start of the first accepted write to the end of the last (the service's clock). */
	writeSpanMs: number;
	/** Accepted writes per rate-limit window, the window of the run's first request being 0. */
	writesByWindow: Record<number, number>;
	rateLimited: number;
	/** 429 answers per rate-limit window, the window of the run's first request being 0. */
	rateLimitedByWindow: Record<number, number>;
	/** 429 answers after window 0: depends on where in window 0 the first request fell (P5's figure). */
	rateLimitedAfterFirstWindow: number;
	/**
	 * Per bucket, the first rate-limit window its pacers see whole (the window of the run's first request being 0): the
	 * window after that of the bucket's first request, or that window itself when the request came at its very start.
	 */
	firstWholeWindowByBucket: Partial<Record<RateLimitBucket, number>>;
	/**
	 * 429 answers in a later window than its bucket's first whole one: the pacers had then seen a whole window of what
	 * every process spends, wherever in its window the first request fell.
	 */
	rateLimitedAfterFirstWholeWindow: number;
	statusRequests: number;
	artifactRequests: number;
	/** Uploads n8n first answered 503 (database ping timed out) and that were sent again. */
	uploadsSentAgain: number;
	/** Executions each worker started (a paused execution counts once per run). */
	runsByWorker: Record<string, number>;
	/** From the first upload sent to the last execution finished. */
	elapsedMs: number;
	/** When each execution finished, ms after the first upload, ascending. */
	finishedAtMs: number[];
	/** Executions finished per minute between the first and the last to finish (the steady rate). */
	steadyPerMinute: number | null;
}

export interface Upload {
	status: number;
	/** Answers 503 before this one: n8n refuses requests while its last database ping has timed out. */
	unavailable: number;
}

/**
 * POSTs media to a production webhook as a form or an app would, sending it again while n8n answers 503: under a
 * burst on two cores a process's 5 s database ping can time out, and until the next one succeeds (2 s later) it
 * refuses every request before starting anything.
 */
export async function postMedia(
	routerBaseUrl: string,
	webhookPath: string,
	fileName: string,
	bytes: Buffer,
): Promise<Upload> {
	for (let unavailable = 0; ; unavailable++) {
		const response = await fetch(`${routerBaseUrl}/webhook/${webhookPath}`, {
			method: 'POST',
			headers: {
				'content-type': 'audio/wav',
				'content-disposition': `attachment; filename="${fileName}"`,
			},
			body: bytes,
		});
		await response.body?.cancel();
		if (response.status !== 503 || unavailable >= 10)
			return { status: response.status, unavailable };
		await delay(1000);
	}
}

export async function runManyExecutions(
	options: ManyExecutionsOptions,
): Promise<ManyExecutionsResult> {
	const { cluster, proxy } = options;
	const before = await executionIdSet(cluster.api, options.workflowId);
	const runsBefore = new Set(
		(await cluster.workerRuns()).map((run) => `${run.worker}:${run.executionId}:${run.job}`),
	);
	const firstExchange = proxy.exchanges.length;
	const media = makeWav({ seconds: options.mediaSeconds ?? 1 });

	// The service starts rate-limit windows at multiples of their length on its own clock, the one the proxy stamps
	// exchanges with. Starting the run with one usually leaves most of window 0 to the pacers' learning (P5's figure
	// counts 429s after window 0). It cannot promise it: the first request reaches the service only after n8n's webhook
	// and a worker have handled an upload, which under load can be late in window 0, and the learning (and its 429s)
	// then spills into window 1 (seen once on 2.15: 4 writes in window 0, two 429s in 1). So the suite's rule counts
	// from each bucket's first whole window instead (`rateLimitedAfterFirstWholeWindow`). The run waits for the start
	// (at most one window) instead of moving the sandbox clock to it, as the engine tier does: n8n's workers read
	// X-RateLimit-Reset against their own wall clock, so a service clock set ahead would make every pacer wait longer
	// than the service asks, and the suite would measure that skew instead of the pack.
	const windowMs = options.windowSeconds * 1000;
	await delay(windowMs - (proxy.now() % windowMs));
	const startedAt = Date.now();
	const uploads = await Promise.all(
		Array.from({ length: options.count }, (_, index) =>
			postMedia(cluster.router.baseUrl, options.webhookPath, `many-${index + 1}.wav`, media),
		),
	);
	const refused = uploads.filter((upload) => upload.status !== 200);
	if (refused.length > 0) {
		throw new Error(
			`${refused.length} uploads were refused: ${refused
				.slice(0, 5)
				.map((upload) => upload.status)
				.join(', ')}`,
		);
	}

	const finished = await finishedExecutions(
		cluster.api,
		options.workflowId,
		before,
		options.count,
		{ timeoutMs: options.timeoutMs ?? 600_000, intervalMs: 2000 },
	);
	const elapsedMs = Date.now() - startedAt;
	const executions = await withData(cluster.api, finished);

	const failureCodes: Record<string, number> = {};
	let completedItems = 0;
	let failedItems = 0;
	for (const execution of executions) {
		const items = emittedItems(execution, TRANSCRIBE_NODE);
		if (execution.status !== 'success' || items.length === 0) {
			failedItems++;
			const code = `execution_${execution.status}`;
			failureCodes[code] = (failureCodes[code] ?? 0) + 1;
			continue;
		}
		for (const item of items) {
			const error = item.json.error as { code?: string } | undefined;
			if (error || item.json.status !== 'completed') {
				failedItems++;
				const code = error?.code ?? `status_${String(item.json.status)}`;
				failureCodes[code] = (failureCodes[code] ?? 0) + 1;
			} else {
				completedItems++;
			}
		}
	}

	const exchanges = proxy.exchanges.slice(firstExchange);
	const windowOf = (exchange: Exchange) => Math.floor(exchange.startedAtMs / windowMs);
	const firstWindow = exchanges.length > 0 ? Math.min(...exchanges.map(windowOf)) : 0;
	const acceptedWrites = exchanges.filter(
		(exchange) =>
			bucketOf(exchange) === 'writes' &&
			typeof exchange.status === 'number' &&
			exchange.status < 300,
	);
	const writeWindowIndexes = acceptedWrites.map(windowOf);
	const writesByWindow: Record<number, number> = {};
	for (const window of writeWindowIndexes)
		writesByWindow[window - firstWindow] = (writesByWindow[window - firstWindow] ?? 0) + 1;
	const writeWindows =
		acceptedWrites.length > 0
			? Math.max(...writeWindowIndexes) - Math.min(...writeWindowIndexes) + 1
			: 0;
	const writeSpanMs =
		acceptedWrites.length > 0
			? Math.max(...acceptedWrites.map((exchange) => exchange.finishedAtMs)) -
				Math.min(...acceptedWrites.map((exchange) => exchange.startedAtMs))
			: 0;

	const runsByWorker: Record<string, number> = {};
	const ids = new Set(finished.map((execution) => execution.id));
	for (const run of await cluster.workerRuns()) {
		if (!ids.has(run.executionId) || runsBefore.has(`${run.worker}:${run.executionId}:${run.job}`))
			continue;
		runsByWorker[run.worker] = (runsByWorker[run.worker] ?? 0) + 1;
	}

	const finishedAtMs = finished
		.map((execution) => new Date(execution.stoppedAt as string).getTime() - startedAt)
		.sort((a, b) => a - b);
	const span = finishedAtMs[finishedAtMs.length - 1] - finishedAtMs[0];
	return {
		executions: finished.length,
		uploadsSentAgain: uploads.filter((upload) => upload.unavailable > 0).length,
		completedItems,
		failedItems,
		failureCodes,
		writes: acceptedWrites.length,
		writeWindows,
		writeSpanMs,
		writesByWindow,
		...rateLimitCounts(exchanges, windowMs),
		statusRequests: exchanges.filter(
			(exchange) =>
				exchange.method === 'GET' && /\/transcriptions\/[^/?]+(\?|$)/.test(exchange.url),
		).length,
		artifactRequests: exchanges.filter((exchange) => /\/artifact/.test(exchange.url)).length,
		runsByWorker,
		elapsedMs,
		finishedAtMs,
		steadyPerMinute:
			finishedAtMs.length > 1 && span > 0 ? ((finishedAtMs.length - 1) * 60_000) / span : null,
	};
}

type RateLimitCounts = Pick<
	ManyExecutionsResult,
	| 'rateLimited'
	| 'rateLimitedByWindow'
	| 'rateLimitedAfterFirstWindow'
	| 'firstWholeWindowByBucket'
	| 'rateLimitedAfterFirstWholeWindow'
>;

/** The 429 answers among a run's exchanges (stamped with the service's clock), by rate-limit window of `windowMs`. */
export function rateLimitCounts(exchanges: readonly Exchange[], windowMs: number): RateLimitCounts {
	const windowOf = (exchange: Exchange) => Math.floor(exchange.startedAtMs / windowMs);
	const firstWindow = exchanges.length > 0 ? Math.min(...exchanges.map(windowOf)) : 0;
	const refused = exchanges.filter((exchange) => exchange.status === 429);
	const rateLimitedByWindow: Record<number, number> = {};
	for (const exchange of refused) {
		const window = windowOf(exchange) - firstWindow;
		rateLimitedByWindow[window] = (rateLimitedByWindow[window] ?? 0) + 1;
	}

	// Each process's pacer learns a bucket from the answers to its first requests there. A bucket's first whole window
	// is the first the pacers see from its start: after it, no process may be refused in that bucket.
	const firstRequestMs = new Map<RateLimitBucket, number>();
	for (const exchange of exchanges) {
		const bucket = bucketOf(exchange);
		if (bucket === undefined) continue;
		const first = firstRequestMs.get(bucket) ?? exchange.startedAtMs;
		firstRequestMs.set(bucket, Math.min(first, exchange.startedAtMs));
	}
	const firstWholeWindowByBucket: Partial<Record<RateLimitBucket, number>> = {};
	for (const [bucket, first] of firstRequestMs)
		firstWholeWindowByBucket[bucket] = Math.ceil(first / windowMs) - firstWindow;
	// A 429 of no bucket (no operation's path) counts against the rule from window 0 on.
	const lastLearningWindow = (exchange: Exchange) => {
		const bucket = bucketOf(exchange);
		return bucket === undefined ? 0 : (firstWholeWindowByBucket[bucket] ?? 0);
	};

	return {
		rateLimited: refused.length,
		rateLimitedByWindow,
		rateLimitedAfterFirstWindow: refused.length - (rateLimitedByWindow[0] ?? 0),
		firstWholeWindowByBucket,
		rateLimitedAfterFirstWholeWindow: refused.filter(
			(exchange) => windowOf(exchange) - firstWindow > lastLearningWindow(exchange),
		).length,
	};
}
