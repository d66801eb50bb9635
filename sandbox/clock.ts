// The sandbox's notion of "now": real time plus an offset that POST /_sandbox/clock moves forward.
// Everything time-based in the sandbox (slot expiry, idempotency retention, rate windows, job progress,
// webhook schedule) reads this clock, so tests can jump hours ahead without waiting.

export type ClockListener = (nowMs: number) => void;

export class SandboxClock {
	private offsetMs = 0;
	private readonly listeners = new Set<ClockListener>();

	constructor(private readonly realNow: () => number = Date.now) {}

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
}
