// A clock the test controls, for scenarios whose waits are long: Pause Until Webhook's watcher checking 5, 20, 65 s
// after the pause and every 90 s, Max Wait, the service's retry schedule. Time runs as it does — real time plus an
// offset, so steps that take time still get timestamps of their own — but a timer on this clock fires only when the
// process is idle: the earliest ones (those due at the same time, in the order they were set), the offset jumping to
// their time if it is still ahead; the next ones when the process is idle again. So what a timer sets in motion ends
// before a later timer fires, as on a machine fast enough for the waits the test means, however loaded the machine
// that runs it is; and only the idle time goes.
//
// Idle: the process spent no CPU for QUIET_SAMPLES samples in a row (each taken after the loop polled for I/O), and
// nothing waits for the thread pool (files, DNS) or is queued to run. The sandbox, the nodes, n8n-core and the
// harness's servers all run in the test's process, so every step of an exchange on loopback is work seen here: no timer
// fires in the middle of a request that is moving, only where everything waits for one. Before timers fire the test's
// lookouts (`until`, and helpers such as support/sandbox/client.ts's actOnNewJobs) look, so a test acts on what it
// waits for before time moves on.
//
// On this clock: Date (Date.now and new Date()), n8n-workflow's sleeps — the only way the nodes wait: the watcher, Poll
// mode, the transport's retries, pacing and attempt deadlines — the sandbox's timers (jobs, deliveries, retries, their
// deadlines, latency faults: `useEngineSandbox({ clock })`), and the test's own waits (`sleep`, `sleepUntil`, `until`,
// `within`). Node's own timers stay real: in the libraries underneath they only guard sockets. test/README.md says how
// a test file adopts it.
import { dirname } from 'node:path';

import type { SandboxTimers } from '../../../sandbox/clock';

/** How often the clock fires what is due on real time and samples the event loop (real milliseconds). */
const SAMPLE_EVERY_MS = 4;
/** The real time one lookout may take to look: longer, and it likely waits on the clock, which stands still meanwhile. */
const LOOK_LIMIT_MS = 10_000;
/** Samples in a row without work before the process counts as idle. */
const QUIET_SAMPLES = 5;
/**
 * CPU time within one sample that still counts as no work (the sampling itself, a stray guard timer). CPU time, not the
 * event loop's busy time: on a loaded machine a process waiting for a core looks busy by the wall clock.
 */
const QUIET_CPU_MS = 1;
/**
 * Active resources (process.getActiveResourcesInfo) that hold no work in progress: open servers, sockets and files,
 * timers (this clock's sampling, libraries' guards), the test worker's channel to jest. Anything else — a file
 * operation or a DNS lookup in the thread pool, a write still queued, an immediate — is work on its way.
 */
const RESTING_RESOURCES: ReadonlySet<string> = new Set([
	'TCPServerWrap',
	'TCPSocketWrap',
	'PipeServerWrap',
	'PipeWrap',
	'TTYWrap',
	'Timeout',
	'FileHandle',
	'FSEventWrap',
	'StatWatcher',
	'SignalWrap',
	'ProcessWrap',
	'MessagePort',
	'UDPWrap',
]);

type SleepFunction = (ms: number, signal?: AbortSignal) => Promise<void>;
/** A module whose exported sleep functions the nodes call: n8n-workflow's utils (≤ 2.33) or @n8n/utils/sleep (2.34+). */
type SleepHost = Record<string, unknown>;

interface Timer {
	atMs: number;
	/** Timers due at the same time fire in the order they were set. */
	sequence: number;
	callback: () => void;
}

/** Looks at what a test waits for; true once it has seen it (the test then acts before the clock jumps). */
type Lookout = () => Promise<boolean>;

export class ControlledClock implements SandboxTimers {
	/** How often the clock has jumped, and how far all told: the idle time the tests did not wait. */
	readonly jumps = { count: 0, totalMs: 0 };
	private offsetMs = 0;
	private sequence = 0;
	private readonly timers = new Set<Timer>();
	private readonly lookouts = new Set<Lookout>();
	private realNow: () => number = Date.now;
	private restore: Array<() => void> = [];
	private driver: NodeJS.Timeout | undefined;
	private quietSamples = 0;
	private lastCpu = process.cpuUsage();
	private jumping = false;
	private lookoutFailures: unknown[] = [];

	now(): number {
		return this.realNow() + this.offsetMs;
	}

	/** SandboxTimers: calls `callback` once, `delayMs` from now on this clock; the function returned cancels it. */
	setTimer(callback: () => void, delayMs: number): () => void {
		const timer: Timer = {
			atMs: this.now() + Math.max(0, delayMs),
			sequence: this.sequence++,
			callback,
		};
		this.timers.add(timer);
		return () => this.timers.delete(timer);
	}

	sleep(ms: number): Promise<void> {
		return new Promise((resolve) => this.setTimer(resolve, ms));
	}

	sleepUntil(atMs: number): Promise<void> {
		return this.sleep(atMs - this.now());
	}

	/**
	 * Runs `look` before every jump of the clock, until the function returned is called: a test's helper that must act
	 * on something the moment it happens (hold a job the moment it exists) acts before time moves on. `look` resolves
	 * true when it acted (the clock then looks again for idleness before it jumps). The clock stands still while it
	 * looks: `look` must not wait on this clock (a sandbox route under a latency fault does); a failing look fails the test.
	 */
	lookOut(look: () => Promise<boolean>): () => void {
		const lookout: Lookout = async () => await look();
		this.lookouts.add(lookout);
		return () => this.lookouts.delete(lookout);
	}

	/**
	 * Resolves with `probe`'s first value other than undefined: looked at now and whenever the process is idle, before any
	 * timer fires; fails when `ms` pass on this clock first, or with `probe`'s error. As for `lookOut`, `probe` must not
	 * wait on this clock.
	 */
	until<T>(
		what: string,
		probe: () => Promise<T | undefined> | T | undefined,
		ms = 30_000,
	): Promise<T> {
		return new Promise<T>((resolve, reject) => {
			let settled = false;
			const settle = (finish: () => void) => {
				if (settled) return;
				settled = true;
				cancelDeadline();
				this.lookouts.delete(lookout);
				finish();
			};
			const look = async (): Promise<boolean> => {
				if (settled) return false;
				try {
					const value = await probe();
					if (value === undefined || settled) return false;
					settle(() => resolve(value));
					return true;
				} catch (error) {
					settle(() => reject(error as Error));
					return true;
				}
			};
			// One look at a time.
			let looking: Promise<boolean> | undefined;
			const lookout: Lookout = () => (looking ??= look().finally(() => (looking = undefined)));
			const cancelDeadline = this.setTimer(
				() => settle(() => reject(new Error(`${what}: not within ${ms} ms`))),
				ms,
			);
			this.lookouts.add(lookout);
			void lookout();
		});
	}

	/** `promise`, or a failure when `ms` pass on this clock first. */
	async within<T>(promise: Promise<T>, ms = 30_000): Promise<T> {
		let cancel: (() => void) | undefined;
		const timeout = new Promise<never>((_, reject) => {
			cancel = this.setTimer(() => reject(new Error(`not within ${ms} ms`)), ms);
		});
		try {
			return await Promise.race([promise, timeout]);
		} finally {
			cancel?.();
		}
	}

	/**
	 * Puts n8n-workflow's sleeps of a copy of the modules loaded apart (jest.isolateModules: another n8n process of the
	 * waiting harness) on this clock too. `load` requires in that copy's registry.
	 */
	adoptSleeps(load: (request: string) => unknown): void {
		if (this.driver === undefined) return;
		for (const host of sleepHosts(load)) this.patchSleeps(host);
	}

	/** From now on Date, n8n-workflow's sleeps and this clock's timers run on this clock. */
	install(load: (request: string) => unknown): void {
		if (this.driver !== undefined) throw new Error('The controlled clock is installed already');
		const RealDate = globalThis.Date;
		this.realNow = RealDate.now.bind(RealDate);
		const now = () => this.now();
		globalThis.Date = new Proxy(RealDate, {
			construct: (target, args: unknown[], newTarget) =>
				Reflect.construct(target, args.length === 0 ? [now()] : args, newTarget) as object,
			apply: () => new RealDate(now()).toString(),
			get: (target, property, receiver) =>
				property === 'now' ? now : (Reflect.get(target, property, receiver) as unknown),
		});
		this.restore.push(() => (globalThis.Date = RealDate));
		for (const host of sleepHosts(load)) this.patchSleeps(host);
		this.lastCpu = process.cpuUsage();
		this.sampleSoon();
	}

	/** The errors of lookouts that failed (or looked too long) since the last call; the clock went on without them. */
	takeLookoutFailures(): unknown[] {
		return this.lookoutFailures.splice(0);
	}

	/** Real time again; timers still pending are dropped (the file's tests are over). */
	uninstall(): void {
		clearTimeout(this.driver);
		this.driver = undefined;
		for (const undo of this.restore.splice(0).reverse()) undo();
		this.timers.clear();
		this.lookouts.clear();
		this.offsetMs = 0;
		this.realNow = Date.now;
	}

	private patchSleeps(host: SleepHost): void {
		for (const name of ['sleep', 'sleepWithAbort']) {
			const original = host[name] as SleepFunction | undefined;
			if (typeof original !== 'function') continue;
			host[name] = this.sleepOnClock(original);
			this.restore.push(() => (host[name] = original));
		}
	}

	/** A sleep on this clock that, when aborted, fails exactly as `original` does. */
	private sleepOnClock(original: SleepFunction): SleepFunction {
		return async (ms, signal) => {
			if (signal?.aborted) return await original(0, signal);
			await new Promise<void>((resolve, reject) => {
				const onAbort = () => {
					cancel();
					original(0, signal).then(resolve, reject);
				};
				const cancel = this.setTimer(() => {
					signal?.removeEventListener('abort', onAbort);
					resolve();
				}, ms);
				signal?.addEventListener('abort', onAbort, { once: true });
			});
		};
	}

	/** Kept referenced: a test that waits only for this clock's timers keeps its process alive. */
	private sampleSoon(): void {
		this.driver = setTimeout(() => {
			// Sampled after the loop's poll phase, so I/O that was ready has been handled (and counted as work).
			setImmediate(() => void this.sample());
		}, SAMPLE_EVERY_MS);
	}

	private async sample(): Promise<void> {
		if (this.driver === undefined) return;
		try {
			const cpu = process.cpuUsage(this.lastCpu);
			this.lastCpu = process.cpuUsage();
			const working = (cpu.user + cpu.system) / 1000 > QUIET_CPU_MS || workInProgress();
			this.quietSamples = working ? 0 : this.quietSamples + 1;
			if (this.quietSamples >= QUIET_SAMPLES && !this.jumping) await this.fireNextTimers();
		} finally {
			// Whatever went wrong was reported where it happened; the clock goes on.
			if (this.driver !== undefined) this.sampleSoon();
		}
	}

	/**
	 * One lookout's look, as the clock waits for it: a look that fails counts as nothing seen and its error is kept for
	 * the test (useControlledClock fails the test with it); so is a look that takes LOOK_LIMIT_MS of real time — the clock
	 * stands still while lookouts look, so a probe that waits on this clock never ends.
	 */
	private async look(lookout: Lookout): Promise<boolean> {
		let limit: NodeJS.Timeout | undefined;
		const tooLong = new Promise<boolean>((resolve) => {
			limit = setTimeout(() => {
				this.lookoutFailures.push(
					new Error(
						`A lookout of the controlled clock took over ${LOOK_LIMIT_MS} ms of real time: does it wait on the clock? The clock stands still while lookouts look.`,
					),
				);
				resolve(false);
			}, LOOK_LIMIT_MS);
		});
		try {
			return await Promise.race([lookout(), tooLong]);
		} catch (error) {
			this.lookoutFailures.push(error);
			return false;
		} finally {
			clearTimeout(limit);
		}
	}

	/**
	 * The process is idle: the test's lookouts look first; if none saw what it waits for, the earliest timers fire —
	 * those due at the same time, in the order they were set — the clock jumping to their time if it is still ahead.
	 * The next ones wait for the process to be idle again: what a timer sets in motion ends before a later one fires,
	 * as on a machine fast enough for the waits the test means.
	 */
	private async fireNextTimers(): Promise<void> {
		this.jumping = true;
		try {
			const seen = await Promise.all(
				[...this.lookouts].map(async (lookout) => await this.look(lookout)),
			);
			this.quietSamples = 0;
			if (seen.some(Boolean)) return;
			const next = this.nextTimer();
			if (!next) return;
			const aheadMs = next.atMs - this.now();
			if (aheadMs > 0) {
				this.offsetMs += aheadMs;
				this.jumps.count++;
				this.jumps.totalMs += aheadMs;
			}
			this.fireDueBy(next.atMs);
		} finally {
			this.jumping = false;
			this.lastCpu = process.cpuUsage();
		}
	}

	private nextTimer(): Timer | undefined {
		let next: Timer | undefined;
		for (const timer of this.timers) {
			if (
				!next ||
				timer.atMs < next.atMs ||
				(timer.atMs === next.atMs && timer.sequence < next.sequence)
			)
				next = timer;
		}
		return next;
	}

	/** Fires every timer due by `atMs`, earliest first. */
	private fireDueBy(atMs: number): void {
		for (;;) {
			const next = this.nextTimer();
			if (!next || next.atMs > atMs) return;
			this.timers.delete(next);
			try {
				next.callback();
			} catch (error) {
				// As a throwing timer of Node's would: uncaught, and the clock goes on.
				reportUncaught(error);
			}
		}
	}
}

/** Raises `error` outside the clock's own loop, as an uncaught error: jest fails the running test on it. */
function reportUncaught(error: unknown): void {
	process.nextTick(() => {
		throw error;
	});
}

/** Work on its way that the event loop does not show: the thread pool's, a queued write, an immediate. */
function workInProgress(): boolean {
	return process.getActiveResourcesInfo().some((resource) => !RESTING_RESOURCES.has(resource));
}

/**
 * The modules whose sleep functions the nodes reach through n8n-workflow: its utils, whose exports n8n-workflow's
 * index reads at each call (up to 2.33), or @n8n/utils/sleep, which its utils re-export (2.34 and later).
 */
export function sleepHosts(load: (request: string) => unknown): SleepHost[] {
	const utilsPath = require.resolve('n8n-workflow/dist/cjs/utils.js');
	const utils = load(utilsPath) as SleepHost;
	const sleep = Object.getOwnPropertyDescriptor(utils, 'sleep');
	if (sleep && 'value' in sleep) return [utils];
	const sleepModule = require.resolve('@n8n/utils/sleep', { paths: [dirname(utilsPath)] });
	return [load(sleepModule) as SleepHost];
}

let installed: ControlledClock | undefined;

/** The controlled clock of the running test file, if it uses one. */
export function controlledClock(): ControlledClock | undefined {
	return installed;
}

/**
 * The test file runs on a controlled clock: installed before its other beforeAll hooks that come after this call (so
 * call it before useEngineSandbox and hand the clock over), removed after its tests.
 */
export function useControlledClock(): ControlledClock {
	const clock = new ControlledClock();
	beforeAll(() => {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		clock.install((request) => require(request) as unknown);
		installed = clock;
	});
	afterEach(() => {
		const failures = clock.takeLookoutFailures();
		if (failures.length > 0)
			throw new AggregateError(
				failures,
				`${failures.length} lookout(s) of the controlled clock failed`,
			);
	});
	afterAll(() => {
		clock.uninstall();
		installed = undefined;
	});
	return clock;
}
