// R5 fault matrix: "nothing lost" for Pause Until Webhook and the Polling Trigger, counted.
//
// Pause Until Webhook: batches of 1, 10 and 100 items per fault class, the real node in n8n-core's engine, the sandbox
// delivering real signed events (retries time-scaled: 3 s, 27 s, 2.5 min, 6 min) to a front door before the resume URL,
// served by two webhook processors (separately loaded copies of the package) while the process that paused keeps its
// watcher. Polling Trigger: its real poll() in n8n-core's PollContext against the sandbox's clock, through a proxy that
// answers in the service's place when a class says so.
//
// Pass, per class: every job that reached a terminal state (the sandbox's records) is output exactly once — completed
// with the bytes the service serves, failed or cancelled as an error item (Pause: on the error output) naming its
// job_id — and none lost, duplicated or stalled (Pause: a batch resumed more than 2 minutes after its last job ended
// counts as stalled). Faults are counted from the records of what answered in the service's or n8n's place
// (the counting proxy, the front door, the sandbox's delivery log), never from the code under test. The totals are
// printed and written to bench/results/ (a dated file and latest.json). RELIABILITY_SCALE shrinks the batches.
import { startCountingProxy, type Exchange } from '../support/sandbox/counting-proxy';
import { SandboxAdmin, type JobRecordView } from '../../sandbox/admin-client';
import type { FaultConfig } from '../../sandbox/faults';
import type { ListOrder } from '../../sandbox/list-order';
import { startSandbox } from '../../sandbox/server';
import type { WebhookDeliveryRecord } from '../../sandbox/webhooks';
import type { RoutedRequest, WebhookRouter } from '../support/n8n/webhook-router';
import { captureLogs, Evidence, scanForSecrets } from '../support/reliability/evidence';
import {
	listAnswer,
	PolledAccount,
	ServiceError,
	type ListCall,
	type PolledAccountOptions,
} from '../support/reliability/polled-account';
import { runListedLate } from '../support/reliability/polled-activation';
import {
	drainBoundMs,
	PLATINUM,
	runPolledLoad,
	type PolledLoad,
} from '../support/reliability/polled-load';
import {
	judgeBatch,
	settleBatch,
	startPausedBatch,
	type BatchOutcome,
	type PausedBatch,
} from '../support/reliability/paused-batch';
import {
	answered,
	ARTIFACT_ROUTES,
	DOWNLOAD,
	FAULT_SHARE,
	MAX_WAIT_SECONDS,
	rules,
	STATUS_READ,
} from '../support/reliability/pause-faults';
import { reliabilityScale } from '../support/reliability/scale';
import { Tally } from '../support/reliability/tally';

const SCALE = reliabilityScale();
/** Pause Until Webhook: items per batch, one batch of each size per fault class. */
const BATCH_SIZES = [...new Set([1, 10, 100].map((size) => Math.max(1, Math.round(size * SCALE))))];
const SEED = 5_000_017;
/** The service's retry schedule × 0.05: 3 s, 27 s, 2.5 min, 6 min (±20 %). */
const TIME_SCALE = 0.05;
/** How long a class's batches may take to finish once its faults are in place: past it, a job counts as stalled. */
const STALL_BOUND_MS = 180_000;

/** Polling Trigger: jobs ending per minute of the service's clock (every fourth failed). */
const JOBS_PER_MINUTE = Math.max(2, Math.round(4 * SCALE));
/** Minutes each polling fault lasts: longer than the trigger's 10-minute overlap. */
const FAULT_MINUTES = 12;
/** Polls after the fault in which the trigger must catch up. */
const CATCH_UP_POLLS = 30;

const tally = new Tally();
const evidence = new Evidence();
const secrets: Record<string, string> = {};

beforeAll(() => captureLogs(evidence));

afterAll(async () => {
	if (tally.classes.length === 0) return;
	process.stderr.write(`\nR5 totals (scale ${SCALE}):\n${tally.render()}\n`);
	const written = await tally.write({
		scale: SCALE,
		pauseBatchSizes: BATCH_SIZES,
		timeScale: TIME_SCALE,
		faultShare: FAULT_SHARE,
		pollingJobsPerMinute: JOBS_PER_MINUTE,
		pollingFaultMinutes: FAULT_MINUTES,
		pollingCatchUpPolls: CATCH_UP_POLLS,
		stallBoundSeconds: STALL_BOUND_MS / 1000,
		maxWaitSeconds: MAX_WAIT_SECONDS,
	});
	process.stderr.write(`R5 written to ${written.join(' and ')}\n`);
});

/** What a Pause Until Webhook class's faults left in the records. */
interface PauseRecords {
	exchanges: Exchange[];
	/** The jobs of the class's accounts, as the service has them. */
	jobs: JobRecordView[];
	/** Every request the front doors saw. */
	doors: RoutedRequest[];
	deliveries: WebhookDeliveryRecord[];
	/** Processes the class restarted. */
	restarts: number;
}

interface PauseClass {
	name: string;
	/** The sandbox's faults for the whole class: per-route rules, webhook duplicates and reorders. */
	faults?: FaultConfig;
	/** Sets up each batch's front door before its run starts. */
	frontDoor?: (router: WebhookRouter) => void;
	/** Jobs held from the moment they exist, so that `during` decides when they end. */
	holdJobs?: boolean;
	/**
	 * Two copies of one event may reach two processes at the same moment, which cannot be told apart without a lock
	 * the processes share: both may collect the results (n8n refuses the second resume). Elsewhere no event resumes twice.
	 */
	copiesAtOnce?: true;
	/** What happens while the batches wait (all of them paused by then); resolves with the processes restarted. */
	during?: (batches: PausedBatch[], admin: SandboxAdmin) => Promise<number>;
	/** The faults injected, counted from the records. */
	injected: (records: PauseRecords) => { count: number; detail: string };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The jobs a run lost, stalled and emitted twice, as detail lines of its tally row (the first `most` of each). */
function missedJobLines(
	outcome: { lost: readonly string[]; stalled: readonly string[]; duplicated: readonly string[] },
	most = Number.POSITIVE_INFINITY,
): string[] {
	return (['lost', 'stalled', 'duplicated'] as const).flatMap((kind) =>
		outcome[kind].length ? [`${kind}: ${outcome[kind].slice(0, most).join(', ')}`] : [],
	);
}

/** What a run missed, counted: every R5 row expects 0 of each. */
function missedCounts(outcome: {
	lost: readonly string[];
	stalled: readonly string[];
	duplicated: readonly string[];
}) {
	return {
		lost: outcome.lost.length,
		duplicated: outcome.duplicated.length,
		stalled: outcome.stalled.length,
	};
}

/** Until `probe` holds, polling every 250 ms, for `ms` at most. */
async function until(what: string, probe: () => Promise<boolean>, ms = 60_000): Promise<void> {
	const deadline = Date.now() + ms;
	while (!(await probe())) {
		if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
		await sleep(250);
	}
}

/** Until the service has had a 200 for an event of each job (from the node, or from n8n itself while starting up). */
async function eventsAnswered(admin: SandboxAdmin, jobIds: readonly string[]): Promise<void> {
	await until(`events of ${jobIds.length} jobs answered 200`, async () => {
		const answered = (await admin.webhookDeliveries()).filter(
			(delivery) => delivery.status_code === 200,
		);
		return jobIds.every((jobId) => answered.some((delivery) => delivery.body.includes(jobId)));
	});
}

/** Ends every held job of each batch but its last, and waits until the node has answered each one's event. */
async function endAllButTheLast(batches: PausedBatch[], admin: SandboxAdmin): Promise<void> {
	const early = batches.map((batch) => (batch.holder?.held ?? []).slice(0, -1));
	await Promise.all(batches.map(async (batch, index) => await batch.holder?.release(early[index])));
	await eventsAnswered(admin, early.flat());
}

const lastHeld = (batch: PausedBatch) => batch.holder?.held.at(-1) as string;

/** Ends the last held job of each batch while n8n answers its event itself ("starting up"): the node never hears it. */
async function loseTheLastEvents(batches: PausedBatch[], admin: SandboxAdmin): Promise<void> {
	for (const batch of batches) batch.run.startingUp = true;
	await Promise.all(batches.map(async (batch) => await batch.holder?.release([lastHeld(batch)])));
	await eventsAnswered(admin, batches.map(lastHeld));
	for (const batch of batches) batch.run.startingUp = false;
}

/** Events answered by n8n itself while it was starting up, never seen by the node. */
const answeredByN8n = (doors: RoutedRequest[]) =>
	doors.filter(
		(request) =>
			request.eventId !== null &&
			(request.answer as { message?: string } | undefined)?.message ===
				'n8n is starting up. Please wait',
	).length;

/** The held jobs of a batch in `parts` consecutive slices. */
function partsOf(batch: PausedBatch, parts: number): string[][] {
	const held = batch.holder?.held ?? [];
	const size = Math.ceil(held.length / parts);
	return Array.from({ length: parts }, (_, part) => held.slice(part * size, (part + 1) * size));
}

const PAUSE_CLASSES: PauseClass[] = [
	{
		name: '429 on status reads',
		faults: { rules: rules(['getTranscription'], '429') },
		injected: ({ exchanges }) => {
			const count = answered(exchanges, STATUS_READ, 429);
			return { count, detail: `${count} status reads answered 429` };
		},
	},
	{
		name: '503 on status reads',
		faults: { rules: rules(['getTranscription'], '503') },
		injected: ({ exchanges }) => {
			const count = answered(exchanges, STATUS_READ, 503);
			return { count, detail: `${count} status reads answered 503` };
		},
	},
	{
		name: '429 on artifact downloads',
		faults: { rules: rules(ARTIFACT_ROUTES, '429') },
		injected: ({ exchanges }) => {
			const count = answered(exchanges, DOWNLOAD, 429);
			return { count, detail: `${count} downloads answered 429` };
		},
	},
	{
		name: '503 on artifact downloads',
		faults: { rules: rules(ARTIFACT_ROUTES, '503') },
		injected: ({ exchanges }) => {
			const count = answered(exchanges, DOWNLOAD, 503);
			return { count, detail: `${count} downloads answered 503` };
		},
	},
	{
		name: 'dropped connections (status reads, downloads)',
		faults: {
			rules: [
				...rules(['getTranscription', ...ARTIFACT_ROUTES], 'reset', FAULT_SHARE / 2),
				...rules(['getTranscription', ...ARTIFACT_ROUTES], 'drop_after_commit', FAULT_SHARE / 2),
			],
		},
		injected: ({ exchanges }) => {
			const reads = answered(exchanges, STATUS_READ, 'no_response');
			const downloads = answered(exchanges, DOWNLOAD, 'no_response');
			return {
				count: reads + downloads,
				detail: `${reads} status reads and ${downloads} downloads cut without an answer (reset before the work, or the answer dropped after it)`,
			};
		},
	},
	{
		name: 'resume answer lost after the node handled it',
		// Every event's first delivery: the node handles it, the service never hears and delivers it again.
		frontDoor: (router) => {
			router.loseAnswer = (request, firstOfEvent) => request.eventId !== null && firstOfEvent;
		},
		injected: ({ doors }) => {
			const count = doors.filter((request) => request.status === 'answer_lost').length;
			return { count, detail: `${count} answers lost after the node handled the event` };
		},
	},
	{
		name: 'duplicate events',
		faults: { webhooks: { duplicateProbability: 1 } },
		copiesAtOnce: true,
		injected: ({ deliveries }) => {
			const firsts = deliveries.filter((delivery) => delivery.attempt === 1);
			const count = firsts.length - new Set(firsts.map((delivery) => delivery.event_id)).size;
			return { count, detail: `${count} events delivered a second time after a 2xx` };
		},
	},
	{
		name: 'reordered events',
		faults: { webhooks: { reorderProbability: 0.5 } },
		injected: ({ deliveries }) => {
			const count = overtaken(deliveries);
			return { count, detail: `${count} events delivered after an event created later` };
		},
	},
	{
		name: 'process restarted mid-wait',
		holdJobs: true,
		// A third of each batch's jobs end; the process that paused and processor 0 restart; another third end;
		// processor 1 restarts; the rest end. Each restarted process has forgotten the execution.
		during: async (batches) => {
			const thirds = batches.map((batch) => partsOf(batch, 3));
			const release = async (part: number) =>
				await Promise.all(
					batches.map(async (batch, index) => await batch.holder?.release(thirds[index][part])),
				);
			await release(0);
			await sleep(4000);
			for (const batch of batches) {
				batch.run.restart('pauser');
				batch.run.restart(0);
			}
			await release(1);
			await sleep(4000);
			for (const batch of batches) batch.run.restart(1);
			await release(2);
			return batches.length * 3;
		},
		injected: ({ restarts }) => ({
			count: restarts,
			detail: `${restarts} processes restarted while their batch waited (per batch: the process that paused, then each webhook processor)`,
		}),
	},
	{
		name: 'events while every process is down',
		holdJobs: true,
		// Every process goes down (its memory with it); meanwhile every job ends, so each event's first delivery finds
		// the resume URL refusing connections and its retry (3 s ± 20 % later) a load balancer answering 503; 8 s on,
		// fresh processes come up, and the service's next retry (27 s ± 20 %) delivers.
		during: async (batches) => {
			for (const batch of batches) {
				batch.run.restartAll();
				batch.run.frontDoor!.outage = 'refuse';
			}
			await Promise.all(
				batches.map(async (batch) => await batch.holder?.release(batch.holder.held)),
			);
			await sleep(2000);
			for (const batch of batches) batch.run.frontDoor!.outage = 'unavailable';
			await sleep(6000);
			for (const batch of batches) batch.run.frontDoor!.outage = undefined;
			return batches.length * 3;
		},
		injected: ({ doors }) => {
			const refused = doors.filter((request) => request.status === 'refused').length;
			const unavailable = doors.filter(
				(request) => request.target === 'none' && request.status === 503,
			).length;
			return {
				count: refused + unavailable,
				detail: `${refused} requests refused and ${unavailable} answered 503 while every process was down (its memory gone)`,
			};
		},
	},
	{
		name: 'the last event lost (answered by n8n starting up)',
		holdJobs: true,
		during: async (batches, admin) => {
			await endAllButTheLast(batches, admin);
			await loseTheLastEvents(batches, admin);
			return 0;
		},
		injected: ({ doors }) => {
			const count = answeredByN8n(doors);
			return {
				count,
				detail: `${count} last events answered 200 by n8n while starting up (the service does not deliver them again)`,
			};
		},
	},
	{
		name: 'the last job cancelled (no event)',
		holdJobs: true,
		during: async (batches, admin) => {
			await endAllButTheLast(batches, admin);
			await Promise.all(batches.map(async (batch) => await admin.cancelJob(lastHeld(batch))));
			return 0;
		},
		injected: ({ jobs }) => {
			const count = jobs.filter((job) => job.status === 'cancelled').length;
			return {
				count,
				detail: `${count} last jobs cancelled, for which the service sends no event`,
			};
		},
	},
	{
		name: 'signing secret rotated mid-pause (the last event lost)',
		holdJobs: true,
		// Half of each batch's jobs end; the account's signing secret is rotated at the service, and 2 s later the user
		// updates the credential and clears Previous Signing Secret; the other half ends but for the last job, whose event
		// is lost: only a check can resume the batch, and every check is made after the rotation.
		during: async (batches, admin) => {
			const halves = batches.map((batch) => {
				const early = (batch.holder?.held ?? []).slice(0, -1);
				const half = Math.ceil(early.length / 2);
				return [early.slice(0, half), early.slice(half)];
			});
			await Promise.all(
				batches.map(async (batch, index) => await batch.holder?.release(halves[index][0])),
			);
			await eventsAnswered(
				admin,
				halves.flatMap(([first]) => first),
			);
			const rotated = batches.map((batch) => `whsec_rotated_${batch.accountId}_${Date.now()}`);
			await Promise.all(
				batches.map(
					async (batch, index) =>
						await admin.updateAccount(batch.accountId, { signing_secret: rotated[index] }),
				),
			);
			await sleep(2000);
			for (const [index, batch] of batches.entries()) {
				batch.run.updateCredentials({ signingSecret: rotated[index], previousSigningSecret: '' });
				batch.signingSecret = rotated[index];
				secrets[`rotated signing secret of ${batch.accountId}`] = rotated[index];
			}
			const rest = halves.map(([, second]) => second);
			await Promise.all(
				batches.map(async (batch, index) => await batch.holder?.release(rest[index])),
			);
			await eventsAnswered(admin, rest.flat());
			await loseTheLastEvents(batches, admin);
			return 0;
		},
		injected: ({ doors, deliveries }) => {
			const rotations = BATCH_SIZES.length;
			const refusedEvents = deliveries.filter((delivery) => delivery.status_code === 401).length;
			const refusedChecks = doors.filter(
				(request) => request.eventId === null && request.status === 401,
			).length;
			return {
				count: rotations + answeredByN8n(doors),
				detail: `${rotations} rotations of the account's signing secret mid-pause (the credential updated 2 s later, its previous secret cleared), ${answeredByN8n(doors)} last events lost to n8n starting up; ${refusedEvents} events refused 401 between the two (delivered again), ${refusedChecks} checks refused 401`,
			};
		},
	},
];

/** Artifacts (job and format) answered 200 more than once: a second collection, or a retry of an answer lost. */
function repeatedDownloads(exchanges: Exchange[]): number {
	const answered = new Map<string, number>();
	for (const exchange of exchanges) {
		if (exchange.method !== 'GET' || !DOWNLOAD.test(exchange.url) || exchange.status !== 200)
			continue;
		const artifact = exchange.url.split('?')[0];
		answered.set(artifact, (answered.get(artifact) ?? 0) + 1);
	}
	return [...answered.values()].reduce((sum, count) => sum + count - 1, 0);
}

/** Events delivered (first attempt) after an event to the same URL that was created later. */
function overtaken(deliveries: WebhookDeliveryRecord[]): number {
	const firsts = deliveries.filter((delivery) => delivery.attempt === 1);
	const byEvent = new Map<string, WebhookDeliveryRecord>();
	for (const delivery of firsts)
		if (!byEvent.has(delivery.event_id)) byEvent.set(delivery.event_id, delivery);
	const events = [...byEvent.values()].map((delivery) => ({
		url: delivery.url,
		createdAt: Date.parse((JSON.parse(delivery.body) as { created_at: string }).created_at),
		sentAt: Date.parse(delivery.at),
	}));
	return events.filter((event) =>
		events.some(
			(other) =>
				other.url === event.url && other.createdAt > event.createdAt && other.sentAt < event.sentAt,
		),
	).length;
}

async function runPauseClass(faultClass: PauseClass, classIndex: number) {
	const sandbox = await startSandbox({
		port: 0,
		quiet: true,
		jobSeconds: 3,
		seed: SEED + classIndex,
		allowLocalWebhooks: true,
		timeScale: TIME_SCALE,
		// Far above the batches' needs in short windows: every 429 is an injected one, its Retry-After short.
		rateLimits: { windowSeconds: 2, perTier: { platinum: 10_000, premium: 10_000 } },
	});
	const proxy = await startCountingProxy(sandbox.baseUrl);
	const admin = new SandboxAdmin(sandbox.baseUrl);
	const batches: PausedBatch[] = [];
	try {
		if (faultClass.faults) await admin.setFaults({ seed: SEED + classIndex, ...faultClass.faults });
		batches.push(
			...(await Promise.all(
				BATCH_SIZES.map(
					async (size) =>
						await startPausedBatch({
							admin,
							serviceBaseUrl: proxy.baseUrl,
							size,
							name: `r5-${classIndex}-${size}`,
							holdJobs: faultClass.holdJobs ?? false,
							frontDoor: faultClass.frontDoor,
						}),
				),
			)),
		);
		for (const batch of batches) {
			secrets[`API key of ${batch.accountId}`] = batch.apiKey;
			secrets[`signing secret of ${batch.accountId}`] = batch.signingSecret;
		}
		const restarts = (await faultClass.during?.(batches, admin)) ?? 0;
		await Promise.all(batches.map(async (batch) => await settleBatch(batch, STALL_BOUND_MS)));
		await admin.clearFaults();
		// Late copies (duplicates, retries of lost answers) meet finished executions: none may resume one again.
		await admin.webhookDeliveries({ waitIdle: true });
		await sleep(2000);

		const outcomes: BatchOutcome[] = [];
		for (const batch of batches) {
			outcomes.push(await judgeBatch(batch, admin, sandbox.baseUrl));
			evidence.addItems(`R5 ${faultClass.name} ${batch.size}`, batch.run.outputs().flat());
		}
		const injected = faultClass.injected({
			exchanges: proxy.exchanges,
			jobs: (
				await Promise.all(batches.map(async (batch) => (await admin.records(batch.accountId)).jobs))
			).flat(),
			doors: batches.flatMap((batch) => batch.run.frontDoor?.records ?? []),
			deliveries: await admin.webhookDeliveries(),
			restarts,
		});
		const reasons = outcomes.flatMap((outcome) => outcome.reasons);
		const secondResumes = (kind: 'event' | 'check') =>
			outcomes.reduce((sum, outcome) => sum + outcome.secondResumes[kind], 0);
		const lost = outcomes.flatMap((outcome) => outcome.lost);
		const stalled = outcomes.flatMap((outcome) => outcome.stalled);
		const duplicated = outcomes.flatMap((outcome) => outcome.duplicated);
		const slowest = Math.max(...outcomes.map((outcome) => outcome.resumedAfterMs ?? Infinity));
		const tallied = tally.add({
			feature: 'Pause Until Webhook',
			faultClass: faultClass.name,
			jobs: outcomes.reduce((sum, outcome) => sum + outcome.jobs, 0),
			faults: injected.count,
			lost: lost.length,
			duplicated: duplicated.length,
			stalled: stalled.length,
			detail: [
				`batches of ${BATCH_SIZES.join(', ')}`,
				injected.detail,
				`second resumes refused by n8n: ${secondResumes('event')} on an event, ${secondResumes('check')} on a check; ${repeatedDownloads(proxy.exchanges)} artifact(s) downloaded more than once`,
				`resumed at most ${Math.round(slowest / 1000)} s after the batch's last job ended`,
				...reasons,
				...(stalled.length ? [`stalled: ${stalled.join(', ')}`] : []),
				...(duplicated.length ? [`duplicated: ${duplicated.join(', ')}`] : []),
			].join('; '),
		});
		return {
			...tallied,
			checksThatResumedAgain: secondResumes('check'),
			eventsThatResumedAgain: secondResumes('event'),
		};
	} finally {
		await Promise.all(batches.map(async (batch) => await batch.run.close()));
		await proxy.close();
		await sandbox.close();
	}
}

describe(`R5 Pause Until Webhook: batches of ${BATCH_SIZES.join(', ')} items, events over two webhook processors`, () => {
	for (const [index, faultClass] of PAUSE_CLASSES.entries()) {
		test(`${faultClass.name}: every terminal job output once, 0 lost, 0 duplicated, 0 stalled`, async () => {
			const result = await runPauseClass(faultClass, index);
			process.stderr.write(
				`R5 pause, ${faultClass.name}: ${result.jobs} jobs, ${result.faults} faults injected, ${result.lost} lost, ${result.duplicated} duplicated, ${result.stalled} stalled — ${result.detail}\n`,
			);
			expect(result.faults).toBeGreaterThan(0);
			expect(result.jobs).toBe(BATCH_SIZES.reduce((sum, size) => sum + size, 0));
			// A check leaves a recent end to its event: no check starts a second collection. An event claims the resume
			// only while the service still waits for its answer, so no later delivery of it starts a second one.
			expect(result.checksThatResumedAgain).toBe(0);
			if (!faultClass.copiesAtOnce) expect(result.eventsThatResumedAgain).toBe(0);
			expect({ lost: result.lost, duplicated: result.duplicated, stalled: result.stalled }).toEqual(
				{
					lost: 0,
					duplicated: 0,
					stalled: 0,
				},
			);
		});
	}
});

interface PollingClass {
	name: string;
	listOrder?: ListOrder;
	/** While the fault is on: the answer to a list request in the service's place (undefined: the service answers). */
	answer?: PolledAccountOptions['answer'];
	/** At the fault's start, at each of its minutes (before the poll), at its end. */
	begin?: (account: PolledAccount) => Promise<void>;
	minute?: (account: PolledAccount, minute: number) => Promise<{ n8nDown?: boolean } | void>;
	end?: (account: PolledAccount) => Promise<void>;
	/** The faults injected, from the records (answers in the service's place, the proxy's log, polls not run). */
	injected: (account: PolledAccount) => { count: number; detail: string };
}

/** Answers in the service's place: each one counted a fault by the account (PolledAccount.faults). */
const servedInPlace = (what: string) => (account: PolledAccount) => ({
	count: account.faults,
	detail: `${account.faults} ${what}`,
});

/** Five shapes a list answer can take without being one, in turn. */
const GARBLED: Array<(call: ListCall, account: PolledAccount) => unknown> = [
	(call, account) => {
		const { total, links } = listAnswer(call, account);
		return { total, links };
	},
	(call, account) => ({ ...listAnswer(call, account), items: 'none' }),
	(call, account) => {
		const answer = listAnswer(call, account);
		const renamed = (answer.items as Array<Record<string, unknown>>).map(
			({ job_id, status, updated_at }) => ({ id: job_id, state: status, updatedAt: updated_at }),
		);
		return { ...answer, items: renamed };
	},
	() => [],
	() => ({ items: null, total: null }),
];

/** Creates a second key of the account and revokes the first: what rotating a key in the dashboard does. */
async function newKeyOf(account: PolledAccount): Promise<string> {
	const { key } = await account.admin.createKey({ account_id: account.accountId });
	return key;
}

const POLLING_CLASSES: PollingClass[] = [
	{
		name: 'garbled pages (200 without items, wrong shapes)',
		// Every answer of the failed list, and every second one of the completed list, is a 200 that is no list.
		answer: (() => {
			let answers = 0;
			return (call: ListCall, account: PolledAccount) => {
				answers++;
				if (call.status === 'completed' && answers % 2 === 0) return undefined;
				return GARBLED[answers % GARBLED.length](call, account);
			};
		})(),
		injected: servedInPlace('list answers that were 200 but no list'),
	},
	{
		name: 'wrong totals',
		// The count runs ahead of the list (jobs counted, not listed yet) or behind it (a lagging count), in turn.
		answer: (() => {
			let answers = 0;
			return (call: ListCall, account: PolledAccount) => {
				const answer = listAnswer(call, account);
				const wrong =
					++answers % 2 === 0
						? answer.total + 5
						: Math.max(call.cursor + answer.items.length, answer.total - 5);
				return wrong === answer.total ? undefined : { ...answer, total: wrong };
			};
		})(),
		injected: servedInPlace('list answers whose total was not the number of jobs listed'),
	},
	{
		name: 'huge pages (limit ignored)',
		answer: (call, account) => {
			const items = account.lists.get(call.status) ?? [];
			if (items.length - call.cursor <= call.limit) return undefined;
			return { ...listAnswer(call, account), items: items.slice(call.cursor) };
		},
		injected: servedInPlace('list answers with more jobs than the limit asked for'),
	},
	{
		name: '5xx mid-search',
		// New jobs land anywhere in a scrambled list: every poll searches. Every second search page is answered 503
		// (the retry gets it), and in the sixth minute five in a row stop the poll.
		listOrder: 'scrambled',
		answer: (() => {
			let searches = 0;
			return (call: ListCall, account: PolledAccount) => {
				if (call.cursor === 0) return undefined;
				searches++;
				const burst = account.pollsIntoFault === 6 && searches % 20 < 5;
				return burst || searches % 2 === 0
					? new ServiceError(503, 'Injected: unavailable')
					: undefined;
			};
		})(),
		injected: servedInPlace('search pages answered 503'),
	},
	{
		name: 'key rotation (a second key of the account, the first revoked)',
		minute: async (account, minute) => {
			if (minute % 4 !== 1) return;
			const previous = account.key;
			account.useKey(await newKeyOf(account));
			await account.admin.revokeKey(previous);
			account.faults++;
		},
		injected: (account) => ({
			count: account.faults,
			detail: `${account.faults} rotations: a new key of the account, the credential switched to it, the old key revoked`,
		}),
	},
	{
		name: 'revoked key for a while',
		// The credential's key is revoked: every poll fails (an error execution each) until the user puts in a new key
		// of the same account.
		begin: async (account) => {
			await account.admin.revokeKey(account.key);
		},
		end: async (account) => {
			account.useKey(await newKeyOf(account));
		},
		injected: (account) => {
			const refused = account.proxy.exchanges.filter((exchange) => exchange.status === 401).length;
			return {
				count: refused,
				detail: `${refused} requests refused 401 with the revoked key, ${account.trigger.errors.length} polls failed`,
			};
		},
	},
	{
		name: 'n8n down across completions',
		// No poll runs while n8n is down; it starts again from the static data it saved with its last emission.
		minute: async (account) => {
			account.faults++;
			return { n8nDown: true };
		},
		end: async (account) => {
			await account.restartN8n();
		},
		injected: (account) => ({
			count: account.faults,
			detail: `${account.faults} polls not run while n8n was down, then a restart from the saved static data`,
		}),
	},
];

const HEALTHY_MINUTES = 3;

async function runPollingClass(faultClass: PollingClass, classIndex: number) {
	const account = await PolledAccount.start({
		seed: SEED + 100 + classIndex,
		listOrder: faultClass.listOrder,
		answer: faultClass.answer,
	});
	try {
		secrets[`API key of ${account.accountId}`] = account.key;
		for (let minute = 0; minute < HEALTHY_MINUTES; minute++) {
			await account.endJobs(JOBS_PER_MINUTE);
			await account.minute();
		}
		// A job that ends in the middle of the fault after many newer ones: finding it takes a search.
		const longJob = await account.longJob();
		account.faultOn = true;
		await faultClass.begin?.(account);
		for (let minute = 0; minute < FAULT_MINUTES; minute++) {
			await account.endJobs(JOBS_PER_MINUTE);
			if (minute === FAULT_MINUTES / 2) await longJob.end();
			const step = (await faultClass.minute?.(account, minute)) ?? {};
			await account.minute(step);
			secrets[`API key ${minute} of ${account.accountId}`] = account.key;
		}
		account.faultOn = false;
		await faultClass.end?.(account);
		secrets[`last API key of ${account.accountId}`] = account.key;
		await account.endJobs(JOBS_PER_MINUTE);
		await account.catchUp(CATCH_UP_POLLS);

		evidence.addItems(`R5 ${faultClass.name}`, account.trigger.items());
		for (const error of account.trigger.errors) evidence.addError(`R5 ${faultClass.name}`, error);
		const outcome = await account.judge();
		const injected = faultClass.injected(account);
		return tally.add({
			feature: 'Polling Trigger',
			faultClass: faultClass.name,
			jobs: outcome.jobs,
			faults: injected.count,
			...missedCounts(outcome),
			detail: [
				`${FAULT_MINUTES} minutes of fault, ${account.polls} polls`,
				injected.detail,
				...outcome.reasons,
				...missedJobLines(outcome),
			].join('; '),
		});
	} finally {
		await account.close();
	}
}

describe(`R5 Polling Trigger: ${JOBS_PER_MINUTE} jobs ending per minute, faults lasting ${FAULT_MINUTES} minutes`, () => {
	for (const [index, faultClass] of POLLING_CLASSES.entries()) {
		test(`${faultClass.name}: every job that ended emitted once, 0 lost, 0 duplicated, 0 stalled`, async () => {
			const result = await runPollingClass(faultClass, index);
			process.stderr.write(
				`R5 polling, ${faultClass.name}: ${result.jobs} jobs, ${result.faults} faults injected, ${result.lost} lost, ${result.duplicated} duplicated, ${result.stalled} stalled — ${result.detail}\n`,
			);
			expect(result.faults).toBeGreaterThan(0);
			expect(result.jobs).toBeGreaterThan(FAULT_MINUTES * JOBS_PER_MINUTE);
			expect({ lost: result.lost, duplicated: result.duplicated, stalled: result.stalled }).toEqual(
				{
					lost: 0,
					duplicated: 0,
					stalled: 0,
				},
			);
		});
	}
});

/**
 * Polling Trigger under load, at the account's pace: on a clock the run drives (support/reliability/polled-load.ts) and
 * the service's default rate limits (platinum: 120 reads, 60 downloads a minute), a burst of completions that ends just
 * after a tick, and the most completions one account can start (its write bucket: 20 a minute) sustained, at Poll Times
 * of 1, 15 and 60 minutes, with and without Download Artifact; every fourth job fails. Bounded state and the rate
 * limits may slow it down, never drop a job.
 */
const BURST_JOBS = Math.round(10_000 * SCALE);
/** Four hours of the service's clock, shortened by RELIABILITY_SCALE. */
const SUSTAINED_MINUTES = Math.max(60, Math.round(240 * SCALE));
const POLL_MINUTES = [1, 15, 60];

const POLLING_LOADS: PolledLoad[] = POLL_MINUTES.flatMap((pollMinutes, index) =>
	[false, true].flatMap((downloadArtifact) => {
		const every =
			pollMinutes === 1
				? 'every minute'
				: pollMinutes === 60
					? 'every hour'
					: `every ${pollMinutes} minutes`;
		const download = downloadArtifact ? 'with Download Artifact' : 'without Download Artifact';
		return [
			{
				name: `a burst of ${BURST_JOBS.toLocaleString('en-US')} completions, Poll Times ${every}, ${download}`,
				pollMinutes,
				downloadArtifact,
				ending: { burst: BURST_JOBS },
				failedEvery: 4,
				seed: SEED + 200 + index,
			},
			{
				name: `20 completions a minute (the write ceiling) for ${SUSTAINED_MINUTES / 60} hours, Poll Times ${every}, ${download}`,
				pollMinutes,
				downloadArtifact,
				ending: { perMinute: PLATINUM.writes / 3, minutes: SUSTAINED_MINUTES },
				failedEvery: 4,
				seed: SEED + 300 + index,
			},
		];
	}),
);

describe('R5 Polling Trigger under load, at the account’s pace: bursts and the write ceiling at Poll Times of 1, 15 and 60 minutes', () => {
	for (const load of POLLING_LOADS) {
		test(`${load.name}: every job that ended emitted once, 0 lost, 0 duplicated, 0 stalled`, async () => {
			const result = await runPolledLoad(load);
			secrets[`API key of ${load.name}`] = result.apiKey;
			evidence.addItems(`R5 ${load.name}`, result.items);
			for (const error of result.errors) evidence.addError(`R5 ${load.name}`, error);
			const minutes = (ms: number) => Math.round(ms / 6000) / 10;
			const bound = 'burst' in load.ending ? drainBoundMs(load) : undefined;
			const tallied = tally.add({
				feature: 'Polling Trigger',
				faultClass: load.name,
				jobs: result.jobs,
				faults: 0,
				...missedCounts(result),
				detail: [
					`${result.polls} polls, ${result.executions} executions of at most ${result.largestExecution} jobs`,
					bound === undefined
						? `worst lag ${minutes(result.halves[0])} min in the first half, ${minutes(result.halves[1])} min in the second`
						: `lag of the last job ${minutes(result.lastLagMs)} min (bound: backlog at 50% of the account's ceiling + 2 Poll Times = ${minutes(bound)} min)`,
					`${result.requests.list} list requests and ${result.requests.download} downloads, at most ${result.peakPerMinute.list} and ${result.peakPerMinute.download} a minute, ${result.requests.rateLimited} answered 429`,
					`peak backlog ${result.peakBacklog} jobs, static data at most ${Math.round(result.peakStaticDataBytes / 1024)} KB, the longest poll ${minutes(result.longestPollMs)} min`,
					'no fault: the load is the condition',
					...result.reasons,
					...missedJobLines(result, 20),
				].join('; '),
			});
			process.stderr.write(
				`R5 polling load, ${load.name}: ${tallied.jobs} jobs, ${tallied.lost} lost, ${tallied.duplicated} duplicated, ${tallied.stalled} stalled — ${tallied.detail}\n`,
			);
			expect(result.reasons).toEqual([]);
			expect(missedCounts(result)).toEqual({ lost: 0, duplicated: 0, stalled: 0 });
			expect(result.requests.rateLimited).toBe(0);
			if (bound !== undefined) expect(result.lastLagMs).toBeLessThanOrEqual(bound);
			else expect(result.halves[1]).toBeLessThanOrEqual(result.halves[0]);
			expect(result.longestPollMs).toBeLessThan(load.pollMinutes * 60_000);
		});
	}
});

/**
 * The first activation at docs/polling-trigger.md's bounds (support/reliability/polled-activation.ts): jobs ending 40
 * ms before it, within the second its answer names and in the next second, a busy account, every job listed up to the
 * documented 10 minutes after it ended; with and without a Date header.
 */
const ACTIVATION_RUNS = [1, 2, 3].flatMap((run) =>
	[true, false].map((sendsDate) => ({ run, sendsDate })),
);

describe('R5 Polling Trigger: the first activation on a busy account whose list lags up to 10 minutes', () => {
	for (const { run, sendsDate } of ACTIVATION_RUNS) {
		const name = `the first activation, jobs listed up to 10 minutes late, ${sendsDate ? 'with' : 'without'} a Date header (run ${run})`;
		test(`${name}: each job from the start on emitted once, none before it`, async () => {
			const result = await runListedLate({
				seed: SEED + 400 + run * 2 + (sendsDate ? 1 : 0),
				sendsDate,
				busyPolls: 30,
				history: 600,
			});
			const tallied = tally.add({
				feature: 'Polling Trigger',
				faultClass: name,
				jobs: result.jobs,
				faults: result.listedLate,
				...missedCounts(result),
				detail: [
					`${result.polls} polls; ${result.endedWhileBusy} jobs ended while polls read the list; ${result.listedLate} listed late, the longest by ${Math.round(result.longestListingDelayMs / 60_000)} min`,
					...result.reasons,
					...missedJobLines(result),
				].join('; '),
			});
			process.stderr.write(
				`R5 polling activation, ${name}: ${tallied.jobs} jobs, ${tallied.lost} lost, ${tallied.duplicated} duplicated, ${tallied.stalled} stalled — ${tallied.detail}\n`,
			);
			expect(result.endedWhileBusy).toBeGreaterThan(0);
			expect(result.reasons).toEqual([]);
			expect(missedCounts(result)).toEqual({ lost: 0, duplicated: 0, stalled: 0 });
		});
	}
});

test('R4 (R5 run): no API key or signing secret in any output item, error or log line', () => {
	expect(Object.keys(secrets).length).toBeGreaterThan(0);
	expect(scanForSecrets(evidence, secrets)).toEqual([]);
});
