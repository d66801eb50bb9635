// The pack on n8n's distributed engine (test/support/queue/shared-cluster.ts: one main, two workers, two webhook
// processors behind a round-robin router, PostgreSQL and Redis, binary data in n8n's database mode), started once for
// every file of the queue tier by its global setup. Everything is proven by counting: executions and their items
// through the main's public API, which worker ran what from the workers' logs, where every webhook went from the
// router's log, every request the service saw from a counting proxy. The figures land in
// test/e2e/.work/queue/results/<v>[-ci].json.
// This file: R5 on real n8n, a paused batch under every fault at once (docs/reliability.md).
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

import { SandboxAdmin } from '../../sandbox/admin-client';
import { batchFiles } from '../support/fixtures/media';
import {
	allExecutions,
	executionIdSet,
	finishedExecutions,
	withData,
} from '../support/queue/executions';
import { judgePausedExecution } from '../support/queue/paused-outcome';
import { TRANSCRIBE_NODE } from '../support/queue/workflows';
import {
	answered,
	ARTIFACT_ROUTES,
	DOWNLOAD,
	PAUSE_FORMATS,
	rules,
	STATUS_READ,
} from '../support/reliability/pause-faults';
import { Tally } from '../support/reliability/tally';
import { JobHolder } from '../support/sandbox/client';
import { CI_PROFILE, countBy, queueSuite, WORKFLOWS } from '../support/queue/shared-cluster';

const { cluster, services, figures } = queueSuite();

/** R5's batch on real n8n (every tenth item not media, so its job fails). */
const R5_ITEMS = CI_PROFILE ? 10 : 30;

/** First deliveries whose answer the router loses after the processor handled them. */
const R5_LOST_ANSWERS = CI_PROFILE ? 1 : 3;

/** How long the batch may take once its last job has ended: past it, its jobs count as stalled. */
const R5_STALL_BOUND_MS = 240_000;

const R5_SEED = 5_000_117;

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
