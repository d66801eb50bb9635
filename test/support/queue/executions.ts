// Reading what a queue-mode n8n did, through the main's public API: every execution of a workflow (paged), waiting
// until a number of them have finished, and the items a node emitted.
import { setTimeout as delay } from 'node:timers/promises';

import type { ExecutionItem, ExecutionSummary, ExecutionWithData, N8nApi } from '../n8n/rest';

export interface ExecutionPage {
	data: ExecutionSummary[];
	nextCursor?: string | null;
}

/** Every execution of the workflow (the public API pages 250 at a time), oldest first. */
export async function allExecutions(
	api: N8nApi,
	workflowId: string,
	status?: string,
): Promise<ExecutionSummary[]> {
	const executions: ExecutionSummary[] = [];
	let cursor: string | null | undefined;
	do {
		const query = new URLSearchParams({
			workflowId,
			limit: '250',
			...(status ? { status } : {}),
			...(cursor ? { cursor } : {}),
		});
		const page = await getWhenReady<ExecutionPage>(
			`${api.baseUrl}/api/v1/executions?${query.toString()}`,
			{ 'x-n8n-api-key': api.session.apiKey },
		);
		executions.push(...page.data);
		cursor = page.nextCursor;
	} while (cursor);
	return executions.sort((a, b) => Number(a.id) - Number(b.id));
}

/**
 * A GET that waits out n8n's 503 "Database is not ready!": under load on two cores the main's periodic database ping
 * can time out, and until the next one succeeds the main answers 503 to everything.
 */
async function getWhenReady<T>(url: string, headers: Record<string, string>): Promise<T> {
	for (let attempt = 1; ; attempt++) {
		const response = await fetch(url, { headers });
		if (response.ok) return (await response.json()) as T;
		const text = await response.text();
		if (response.status !== 503 || attempt >= 30)
			throw new Error(`GET ${url} → ${response.status}: ${text.slice(0, 500)}`);
		await delay(2000);
	}
}

export function isFinished(execution: ExecutionSummary): boolean {
	return execution.stoppedAt !== null && !['running', 'new', 'waiting'].includes(execution.status);
}

/** Waits until `count` executions of the workflow not in `before` have finished; returns them, oldest first. */
export async function finishedExecutions(
	api: N8nApi,
	workflowId: string,
	before: ReadonlySet<string>,
	count: number,
	{ timeoutMs = 300_000, intervalMs = 1000 } = {},
): Promise<ExecutionSummary[]> {
	const deadline = Date.now() + timeoutMs;
	let fresh: ExecutionSummary[] = [];
	while (Date.now() < deadline) {
		fresh = (await allExecutions(api, workflowId)).filter((execution) => !before.has(execution.id));
		const done = fresh.filter(isFinished);
		if (done.length >= count && done.length === fresh.length) return done;
		await delay(intervalMs);
	}
	const byStatus = new Map<string, number>();
	for (const execution of fresh)
		byStatus.set(execution.status, (byStatus.get(execution.status) ?? 0) + 1);
	throw new Error(
		`Timed out after ${timeoutMs} ms waiting for ${count} finished executions of ${workflowId}; seen: ${JSON.stringify(Object.fromEntries(byStatus))}`,
	);
}

export async function executionIdSet(api: N8nApi, workflowId: string): Promise<Set<string>> {
	return new Set((await allExecutions(api, workflowId)).map((execution) => execution.id));
}

export async function executionWhenReady(
	api: N8nApi,
	executionId: string,
): Promise<ExecutionWithData> {
	return await getWhenReady<ExecutionWithData>(
		`${api.baseUrl}/api/v1/executions/${executionId}?includeData=true`,
		{ 'x-n8n-api-key': api.session.apiKey },
	);
}

/** Fetches executions with their data, a few at a time. */
export async function withData(
	api: N8nApi,
	executions: readonly ExecutionSummary[],
	parallel = 8,
): Promise<ExecutionWithData[]> {
	const results: ExecutionWithData[] = new Array(executions.length);
	let next = 0;
	await Promise.all(
		Array.from({ length: parallel }, async () => {
			while (next < executions.length) {
				const index = next++;
				results[index] = await executionWhenReady(api, executions[index].id);
			}
		}),
	);
	return results;
}

/**
 * The items a node's last run emitted on an output (0: success; 1: the error output of "Continue (using error
 * output)"); a paused node runs twice, and its last run holds what it output.
 */
export function emittedItems(
	execution: ExecutionWithData,
	nodeName: string,
	output = 0,
): ExecutionItem[] {
	const runs = execution.data.resultData.runData[nodeName] ?? [];
	const last = runs[runs.length - 1];
	return last?.data?.main?.[output] ?? [];
}
