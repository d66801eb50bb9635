// The pack on n8n's distributed engine (test/support/queue/shared-cluster.ts: one main, two workers, two webhook
// processors behind a round-robin router, PostgreSQL and Redis, binary data in n8n's database mode), started once for
// every file of the queue tier by its global setup. Everything is proven by counting: executions and their items
// through the main's public API, which worker ran what from the workers' logs, where every webhook went from the
// router's log, every request the service saw from a counting proxy. The figures land in
// test/e2e/.work/queue/results/<v>[-ci].json.
// This file: the webhook trigger behind two webhook processors: one execution per event, forgeries refused, copies
// and redeliveries to the other processor.
import { setTimeout as delay } from 'node:timers/promises';

import { SandboxAdmin } from '../../sandbox/admin-client';
import type { RoutingPolicy } from '../support/n8n/webhook-router';
import {
	allExecutions,
	emittedItems,
	executionIdSet,
	finishedExecutions,
	withData,
} from '../support/queue/executions';
import {
	completionEvent,
	createJob,
	deliver,
	type Answer,
	type JobEvent,
} from '../support/queue/service';
import { TRIGGER_NODE } from '../support/queue/workflows';
import {
	CI_PROFILE,
	countBy,
	queueSuite,
	RETRY_TIME_SCALE,
	runsOf,
	WORKFLOWS,
} from '../support/queue/shared-cluster';

const { cluster, services, triggerUrl, figures } = queueSuite();

/** Events per measurement of copies sent to two processors. */
const COPIED_EVENTS = CI_PROFILE ? 10 : 20;

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
