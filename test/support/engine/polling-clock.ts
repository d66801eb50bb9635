// A clock the test drives, for runs of the Polling Trigger over hours of Poll Times: Date.now reads it, and
// n8n-workflow's sleep without an abort signal — the poll's wait for a rate-limit window, the client's wait before a
// retry — moves it on at once instead of waiting. A sleep with a signal (an attempt's deadline watch) stays real: a
// request takes no time on this clock. Start the sandbox on it (`useEngineSandbox({ clock })`), so its rate-limit windows,
// its Date header and its jobs' updated_at read the same clock as the node. The house's other clocks scale time
// (bench/lib/time-scale.ts, bench/p4-pause-clock.ts); this one jumps, so an hour of Poll Time costs only its requests.
import { createRequire } from 'node:module';

import type { SandboxClock } from '../../../sandbox/clock';
import { sleepHosts } from '../clock/controlled-clock';

type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** Work due at a moment of the clock (jobs that end then): run when the clock passes it. */
interface Due {
	atMs: number;
	run: () => Promise<void>;
}

export class PollingClock {
	/** Milliseconds the poll's own waits have moved the clock on, in all. */
	slept = 0;
	private nowMs: number;
	private readonly realNow = Date.now.bind(Date);
	private readonly restore: Array<() => void> = [];
	private readonly sandboxClocks: SandboxClock[] = [];
	/** Ordered by time, then by when it was asked for. */
	private readonly due: Due[] = [];

	/** Starts at the real time, whole seconds. */
	constructor() {
		this.nowMs = Math.floor(this.realNow() / 1000) * 1000;
	}

	now(): number {
		return this.nowMs;
	}

	/** Moves the clock on (a sandbox started on it sees the time at once; its due work runs). */
	advance(ms: number): void {
		if (!(ms >= 0)) throw new RangeError('the clock only moves forward');
		this.nowMs += ms;
		for (const clock of this.sandboxClocks) clock.advance(0);
	}

	/** To `phaseMs` into a second, `seconds` whole seconds on (at least a moment on). */
	advanceToPhase(seconds: number, phaseMs: number): void {
		const into = this.nowMs % 1000;
		this.advance(seconds * 1000 + ((phaseMs - into + 1000) % 1000 || 1000));
	}

	/** `run` when the clock reaches `atMs` (at once when it has): in order, before the clock moves past it. */
	at(atMs: number, run: () => Promise<void>): void {
		let index = this.due.length;
		while (index > 0 && this.due[index - 1].atMs > atMs) index--;
		this.due.splice(index, 0, { atMs, run });
	}

	/** Moves the clock to `targetMs`, running what is due on the way at its own moment. */
	async passTo(targetMs: number): Promise<void> {
		while (this.due.length > 0 && this.due[0].atMs <= targetMs) {
			const next = this.due.shift()!;
			if (next.atMs > this.nowMs) this.advance(next.atMs - this.nowMs);
			await next.run();
		}
		if (targetMs > this.nowMs) this.advance(targetMs - this.nowMs);
	}

	/** Runs the sandbox's due work whenever this clock moves (its clock must read this one). */
	drives(clock: SandboxClock): void {
		this.sandboxClocks.push(clock);
	}

	/** Date.now and n8n-workflow's signal-less sleep on this clock, until `uninstall()`. */
	install(): void {
		Date.now = () => this.nowMs;
		// Where n8n-workflow keeps its sleep: its own utils, or @n8n/utils from n8n 2.41 on (the controlled clock's rule).
		for (const host of sleepHosts(createRequire(__filename))) {
			const realSleep = host.sleep as Sleep;
			host.sleep = async (ms: number, signal?: AbortSignal) => {
				if (signal) return await realSleep(ms, signal);
				this.slept += Math.max(0, ms);
				await this.passTo(this.nowMs + Math.max(0, ms));
				// Let whatever was waiting for the same moment run first, as a timer would.
				await new Promise((resolve) => setImmediate(resolve));
			};
			this.restore.push(() => (host.sleep = realSleep));
		}
	}

	uninstall(): void {
		Date.now = this.realNow;
		for (const undo of this.restore.splice(0).reverse()) undo();
	}
}
