// P4's Pause Until Webhook arm waits minutes to an hour in a fraction of that: this process's clock (Date.now) and
// n8n-workflow's sleeps run `factor` times faster for everything in it — the node and its watcher, the engine harness
// and the in-process sandbox, whose clock reads Date.now and, ticked, runs whatever became due (jobs, deliveries) as its
// own time jumps do. One clock on both sides, so the service's event timestamps still agree with the node's (±300 s),
// which the sandbox-only speed-up of lib/time-scale.ts cannot give. setTimeout is left real: network timeouts only grow.
import { createRequire } from 'node:module';

import type { SandboxClock } from '../sandbox/clock';

type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;
const sleepModule = createRequire(__filename)('n8n-workflow/dist/cjs/utils.js') as {
	sleep: Sleep;
	sleepWithAbort: Sleep;
};

const TICK_MS = 20;

export interface FastClock {
	factor: number;
	/** Runs the sandbox's due work on every tick (start it once the sandbox exists: its clock reads this Date.now). */
	drive(clock: SandboxClock): void;
	/** Real time again. */
	stop(): void;
}

/** Date.now and n8n-workflow's sleeps `factor` times faster from now on; create it before the sandbox starts. */
export function fastClock(factor: number): FastClock {
	if (!(factor >= 1)) throw new RangeError('the clock factor must be ≥ 1');
	const realNow = Date.now.bind(Date);
	const { sleep, sleepWithAbort } = sleepModule;
	const startMs = realNow();
	Date.now = () => startMs + (realNow() - startMs) * factor;
	sleepModule.sleep = (ms, signal) => sleep(ms / factor, signal);
	sleepModule.sleepWithAbort = (ms, signal) => sleepWithAbort(ms / factor, signal);
	let ticker: NodeJS.Timeout | undefined;
	return {
		factor,
		drive(clock) {
			ticker = setInterval(() => clock.advance(0), TICK_MS);
			ticker.unref();
		},
		stop() {
			clearInterval(ticker);
			Date.now = realNow;
			sleepModule.sleep = sleep;
			sleepModule.sleepWithAbort = sleepWithAbort;
		},
	};
}
