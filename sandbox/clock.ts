// The sandbox's notion of "now": real time plus an offset that POST /_sandbox/clock moves forward.
// Everything time-based in the sandbox (slot expiry, idempotency retention, rate windows, job progress,
// webhook schedule, injected latency) reads this clock and waits through its timers, so tests can jump hours
// ahead without waiting; a test on a controlled clock (test/support/clock) hands in its own time and timers.

export type ClockListener = (nowMs: number) => void;

/** How the sandbox waits: Node's timers by default. */
export interface SandboxTimers {
	/** Calls `callback` once, `delayMs` from now, never holding the process open; the function returned cancels it. */
	setTimer(callback: () => void, delayMs: number): () => void;
}

export const NODE_TIMERS: SandboxTimers = {
	setTimer(callback, delayMs) {
		const timer = setTimeout(callback, delayMs);
		timer.unref();
		return () => clearTimeout(timer);
	},
};

/** Node's timers wait at most 2^31 − 1 ms (about 24.8 days); a later due time is waited for in parts. */
const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

export class SandboxClock {
	private offsetMs = 0;
	private readonly listeners = new Set<ClockListener>();

	constructor(
		private readonly realNow: () => number = Date.now,
		private readonly timers: SandboxTimers = NODE_TIMERS,
	) {}

	now(): number {
		return this.realNow() + this.offsetMs;
	}

	nowSeconds(): number {
		return Math.floor(this.now() / 1000);
	}

	/** Whole seconds from now until `ms`, at least 1: a Retry-After value. */
	secondsUntil(ms: number): number {
		return Math.max(1, Math.ceil((ms - this.now()) / 1000));
	}

	toIso(ms: number = this.now()): string {
		return new Date(ms).toISOString();
	}

	advance(seconds: number): number {
		if (!Number.isFinite(seconds) || seconds < 0) {
			throw new RangeError('advance_seconds must be a finite number >= 0');
		}
		this.offsetMs += seconds * 1000;
		const now = this.now();
		for (const listener of this.listeners) listener(now);
		return now;
	}

	/** Called after every advance, so schedulers can run what became due. */
	onAdvance(listener: ClockListener): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	/**
	 * Calls `callback` once this clock reaches `dueAtMs` (an advance that passes it does not: the schedulers listen to
	 * advances themselves); the function returned cancels it.
	 */
	at(dueAtMs: number, callback: () => void): () => void {
		let cancelTimer: () => void = () => undefined;
		const arm = () => {
			// Node's timers run on a monotonic clock and may fire a millisecond or more before Date.now() reaches the
			// due time: one that fires early waits again.
			const delayMs = dueAtMs - this.now();
			if (delayMs <= 0) return callback();
			cancelTimer = this.timers.setTimer(arm, Math.min(delayMs, MAX_TIMER_DELAY_MS));
		};
		cancelTimer = this.timers.setTimer(
			arm,
			Math.max(0, Math.min(dueAtMs - this.now(), MAX_TIMER_DELAY_MS)),
		);
		return () => cancelTimer();
	}

	/**
	 * Calls `callback` once, `delayMs` from now on this clock's timers (a deadline: an advance does not bring it closer);
	 * the function returned cancels it.
	 */
	after(delayMs: number, callback: () => void): () => void {
		return this.timers.setTimer(callback, delayMs);
	}

	/** Resolves `ms` from now on this clock's timers. */
	sleep(ms: number): Promise<void> {
		return new Promise((resolve) => this.timers.setTimer(resolve, ms));
	}
}
