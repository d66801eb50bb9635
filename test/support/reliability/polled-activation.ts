// The Polling Trigger's first activation on a busy account whose list lags: R5's class for docs/polling-trigger.md's
// assumptions, tested at their bounds. Its real poll() in n8n-core's PollContext, on a clock the run drives
// (support/engine/polling-clock.ts), against a sandbox seen through a lagging view: each job that ends shows in its
// state's list only some time after its updated_at, up to the documented 10 minutes (the view hides it until then, and
// pages the list without it), with or without a Date header. Three jobs deep in the list end around the activation —
// 40 ms before it, 300 ms after it within the second its answer names, and 0.75 s after it in the next second — and
// while the account is busy a job ends before half of the list requests, so jobs join the list while a poll reads it. Each job that ended from the end
// of the activation's second on is to be emitted once; none that ended before it.
import { OVERLAP_MS } from '../../../nodes/TranscriptionServicePollingTrigger/cutoff';
import { SandboxAdmin } from '../../../sandbox/admin-client';
import { mulberry32 } from '../../../sandbox/random';
import { startSandbox, type RunningSandbox } from '../../../sandbox/server';
import { startRecordingProxy, type RecordingProxy } from '../engine/harness';
import { PollingClock } from '../engine/polling-clock';
import { PollingTriggerUnderTest, startListGate } from '../engine/polling-harness';
import { countEmissions, MINUTE_MS } from './polled-load';

const PAGE = 100;

export interface ListedLateRun {
	seed: number;
	/** The service sends a Date header with its list answers. */
	sendsDate: boolean;
	/** Polls a minute apart while the account is busy. */
	busyPolls: number;
	/** Jobs on the account before the activation. */
	history: number;
}

export interface ListedLateResult {
	jobs: number;
	lost: string[];
	duplicated: string[];
	stalled: string[];
	reasons: string[];
	/** Jobs that ended while polls read the list, and how many of all were listed late, the longest by. */
	endedWhileBusy: number;
	listedLate: number;
	longestListingDelayMs: number;
	polls: number;
}

interface Listed {
	job_id: string;
	updated_at: string;
}

export async function runListedLate(run: ListedLateRun): Promise<ListedLateResult> {
	const clock = new PollingClock();
	clock.install();
	const random = mulberry32(run.seed);
	let sandbox: RunningSandbox | undefined;
	let proxy: RecordingProxy | undefined;
	let gate: { baseUrl: string; close(): Promise<void> } | undefined;
	try {
		sandbox = await startSandbox({
			port: 0,
			quiet: true,
			seed: run.seed,
			realNow: () => clock.now(),
			// The view reads whole lists for every page it serves: out of the trigger's way.
			rateLimits: { perTier: { platinum: 1_000_000, premium: 1_000_000 } },
		});
		clock.drives(sandbox.clock);
		const admin = new SandboxAdmin(sandbox.baseUrl);
		const key = await admin.createKey({ mode: 'live', tier: 'platinum' });
		const observer = await admin.createKey({ account_id: key.account_id });
		const held = async (count: number) =>
			(
				await admin.seedJobs({
					account_id: key.account_id,
					count,
					status: 'processing',
					held: true,
				})
			).job_ids;
		const [before, sameSecond, after] = await held(3);
		await admin.seedJobs({ account_id: key.account_id, count: run.history });
		const running = await held(300);
		await clock.passTo(clock.now() + 60 * MINUTE_MS);

		// When each job that ends shows in its state's list: up to the documented delay, one of each kind right at it.
		const listedAt = new Map<string, number>();
		const delays: number[] = [];
		const end = async (jobId: string, delayMs?: number) => {
			const job = await admin.completeJob(jobId);
			const delay = delayMs ?? Math.floor(random() * (OVERLAP_MS + 1));
			delays.push(delay);
			listedAt.set(jobId, Date.parse(job.updated_at) + delay);
		};
		const view = new Map<string, Listed[]>();
		const readView = async (status: string) => {
			const items: Listed[] = [];
			for (let cursor = 0; ; cursor += PAGE) {
				const response = await fetch(
					`${sandbox!.baseUrl}/api/v1/transcriptions?status=${status}&limit=${PAGE}&cursor=${cursor}`,
					{ headers: { authorization: `Bearer ${observer.key}` } },
				);
				const page = (await response.json()) as { items: Listed[]; total: number };
				items.push(...page.items);
				if (items.length >= page.total || page.items.length === 0) break;
			}
			view.set(
				status,
				items.filter((item) => (listedAt.get(item.job_id) ?? 0) <= clock.now()),
			);
		};
		let busy = false;
		let pollsRun = 0;
		let endedWhileBusy = 0;
		const ended = new Set<string>();
		proxy = await startRecordingProxy(sandbox.baseUrl, (incoming) => {
			const url = new URL(incoming.url ?? '/', 'http://view.invalid');
			if (incoming.method !== 'GET' || url.pathname !== '/api/v1/transcriptions') return undefined;
			const items = view.get(url.searchParams.get('status') ?? '') ?? [];
			const cursor = Number(url.searchParams.get('cursor') ?? 0);
			const limit = Number(url.searchParams.get('limit') ?? 20);
			return {
				status: 200,
				headers: {
					'content-type': 'application/json',
					...(run.sendsDate ? { date: new Date(clock.now()).toUTCString() } : {}),
				},
				body: JSON.stringify({
					items: items.slice(cursor, cursor + limit),
					total: items.length,
					links: { self: incoming.url, next: null, prev: null },
				}),
			};
		});
		gate = await startListGate(proxy.baseUrl, async ({ status }) => {
			// Busy: before half of the list requests (first pages and search pages alike) one more job ends, listed late.
			if (busy && random() < 0.5 && endedWhileBusy < running.length) {
				clock.advance(10 + Math.floor(random() * 300));
				const job = running[endedWhileBusy++];
				await end(job);
				ended.add(job);
			}
			await readView(status);
		});
		// The node → the gate, which prepares the view a list request is answered from → the proxy, which answers list
		// requests from it and passes everything else on to the sandbox.
		const trigger = await PollingTriggerUnderTest.start({
			parameters: {
				pollTimes: { item: [{ mode: 'everyMinute' }] },
				events: ['transcription.completed'],
				downloadArtifact: false,
			},
			credentials: { apiKey: key.key, baseUrl: gate.baseUrl },
		});

		// The activation is answered 0.3 s into a second; the jobs around it end 40 ms before, and 0.3 s and 0.75 s after.
		clock.advanceToPhase(0, 260);
		await end(before, OVERLAP_MS);
		clock.advanceToPhase(0, 300);
		await trigger.activate();
		const startsFrom = run.sendsDate
			? Math.floor(clock.now() / 1000) * 1000 + 1000
			: clock.now() + 30_000;
		clock.advanceToPhase(0, 600);
		await end(sameSecond, OVERLAP_MS);
		clock.advanceToPhase(0, 50);
		await end(after, OVERLAP_MS);
		for (const jobId of [before, sameSecond, after]) {
			const job = (await admin.records(key.account_id)).jobs.find(
				(record) => record.job_id === jobId,
			)!;
			if (Date.parse(job.updated_at) >= startsFrom) ended.add(jobId);
		}

		busy = true;
		for (let poll = 0; poll < run.busyPolls; poll++) {
			clock.advanceToPhase(60, 50);
			pollsRun++;
			await trigger.poll();
		}
		busy = false;
		// Past the listing delay, then until two polls emit nothing.
		await clock.passTo(clock.now() + OVERLAP_MS);
		for (let poll = 0, quiet = 0; poll < 60 && quiet < 2; poll++) {
			await clock.passTo(clock.now() + MINUTE_MS);
			pollsRun++;
			quiet = (await trigger.poll()) === null ? quiet + 1 : 0;
		}

		const { jobs, lost, duplicated, stalled, reasons } = countEmissions(trigger, ended);
		return {
			jobs,
			lost,
			duplicated,
			stalled,
			reasons,
			endedWhileBusy,
			listedLate: delays.filter((delay) => delay > 0).length,
			longestListingDelayMs: Math.max(...delays),
			polls: pollsRun,
		};
	} finally {
		await proxy?.close();
		await gate?.close();
		await sandbox?.close();
		clock.uninstall();
	}
}
