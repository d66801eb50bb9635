// The pack on n8n's distributed engine (test/support/queue/shared-cluster.ts: one main, two workers, two webhook
// processors behind a round-robin router, PostgreSQL and Redis, binary data in n8n's database mode), started once for
// every file of the queue tier by its global setup. Everything is proven by counting: executions and their items
// through the main's public API, which worker ran what from the workers' logs, where every webhook went from the
// router's log, every request the service saw from a counting proxy. The figures land in
// test/e2e/.work/queue/results/<v>[-ci].json.
// This file: Pause Until Webhook holds no worker slot while it waits and resumes once, whichever processor the events
// reach.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

import { SandboxAdmin } from '../../sandbox/admin-client';
import { makeWav } from '../support/fixtures/media';
import {
	allExecutions,
	emittedItems,
	executionIdSet,
	finishedExecutions,
	withData,
} from '../support/queue/executions';
import { postMedia } from '../support/queue/many-executions';
import { TRANSCRIBE_NODE } from '../support/queue/workflows';
import {
	countBy,
	queueSuite,
	runsOf,
	SLOTS,
	WORKERS,
	WORKFLOWS,
} from '../support/queue/shared-cluster';

const { cluster, services, figures } = queueSuite();

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
			// The service's events, and the watcher's checks (no X-Service-Event-ID), which go to the same URL.
			events: resumes.filter((record) => record.eventId !== null).length,
			checks: resumes.filter((record) => record.eventId === null).length,
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
