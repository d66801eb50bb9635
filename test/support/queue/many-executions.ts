// Many small executions against one account, the shape of form uploads and trigger-driven flows: N single-item
// executions started at once through the router, run side by side on the workers. What it counts: the executions
// and their items (completed or failed, with the error code), every request the service saw (from a counting proxy
// in front of it), 429 answers per rate-limit window, and which worker ran what. Shared by the queue suite and P5.
import { setTimeout as delay } from 'node:timers/promises';

import type { CountingProxy, Exchange } from '../sandbox/counting-proxy';
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
	rateLimitedAfterFirstWindow: number;
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

const WRITE_ROUTES = [
	{ method: 'POST', path: /\/uploads$/ },
	{ method: 'PUT', path: /\/uploads\/[^/]+\/binary$/ },
	{ method: 'POST', path: /\/transcriptions$/ },
];

export function isWrite(exchange: Exchange): boolean {
	const path = exchange.url.split('?')[0];
	return WRITE_ROUTES.some((route) => route.method === exchange.method && route.path.test(path));
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
	// exchanges with. Starting the run with one makes window 0 a whole window in which every worker's pacer learns the
	// budget; a run begun in a window's last moments leaves it a sliver and pushes that learning (and its 429s) into
	// window 1 (seen once on 2.15: 4 writes in window 0, two 429s in 1). The run waits for that start (at most one
	// window) instead of moving the sandbox clock to it, as the engine tier does: n8n's workers read X-RateLimit-Reset
	// against their own wall clock, so a service clock set ahead would make every pacer wait longer than the service
	// asks, and the suite would measure that skew instead of the pack.
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
	const rateLimitedByWindow: Record<number, number> = {};
	for (const exchange of exchanges.filter((candidate) => candidate.status === 429)) {
		const window = windowOf(exchange) - firstWindow;
		rateLimitedByWindow[window] = (rateLimitedByWindow[window] ?? 0) + 1;
	}
	const rateLimited = Object.values(rateLimitedByWindow).reduce((sum, count) => sum + count, 0);
	const acceptedWrites = exchanges.filter(
		(exchange) => isWrite(exchange) && typeof exchange.status === 'number' && exchange.status < 300,
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
		rateLimited,
		rateLimitedByWindow,
		rateLimitedAfterFirstWindow: rateLimited - (rateLimitedByWindow[0] ?? 0),
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
