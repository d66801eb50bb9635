// The pack on n8n's distributed engine (test/support/queue/shared-cluster.ts: one main, two workers, two webhook
// processors behind a round-robin router, PostgreSQL and Redis, binary data in n8n's database mode), started once for
// every file of the queue tier by its global setup. Everything is proven by counting: executions and their items
// through the main's public API, which worker ran what from the workers' logs, where every webhook went from the
// router's log, every request the service saw from a counting proxy. The figures land in
// test/e2e/.work/queue/results/<v>[-ci].json.
// This file: many single-item executions against one rate-limited account, on both workers.
import { runManyExecutions } from '../support/queue/many-executions';
import {
	CI_PROFILE,
	LIMITED_WINDOW_SECONDS,
	LIMITED_WRITES_PER_WINDOW,
	queueSuite,
	WORKFLOWS,
} from '../support/queue/shared-cluster';

const { cluster, services, figures } = queueSuite();

const MANY_EXECUTIONS = CI_PROFILE ? 40 : 200;

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
