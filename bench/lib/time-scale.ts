// Runs "sandbox time" faster than wall time by one factor on both sides of the wire: the in-process sandbox
// clock is pushed forward continuously, and n8n-workflow's sleep/sleepWithAbort (the only way shipped node
// code may wait) sleep for 1/factor of what they are asked. Counts that depend on the ratio of wait intervals
// to job length (GETs per job) are unchanged; a 600 s job takes 600/factor s of wall time.

import { createRequire } from 'node:module';

import type { SandboxClock } from '../../sandbox/clock';

type Sleep = (ms: number) => Promise<void>;
type SleepWithAbort = (ms: number, abortSignal?: AbortSignal) => Promise<void>;

interface SleepModule {
	sleep: Sleep;
	sleepWithAbort: SleepWithAbort;
}

// n8n-workflow's index re-exports these through getters that read this module's exports on every call,
// so replacing them here reaches every compiled `(0, n8n_workflow_1.sleepWithAbort)(…)` in dist/.
const sleepModule = createRequire(__filename)('n8n-workflow/dist/cjs/utils.js') as SleepModule;

export interface TimeScale {
	factor: number;
	/** Restores real-time sleeps and stops moving the clock. */
	stop(): void;
}

const TICK_MS = 20;

export function scaleTime(clock: SandboxClock, factor: number): TimeScale {
	if (!(factor >= 1)) throw new RangeError('the time-scale factor must be ≥ 1');
	const { sleep, sleepWithAbort } = sleepModule;
	if (factor === 1) return { factor, stop: () => undefined };

	sleepModule.sleep = (ms) => sleep(ms / factor);
	sleepModule.sleepWithAbort = (ms, abortSignal) => sleepWithAbort(ms / factor, abortSignal);
	let lastTick = Date.now();
	const ticker = setInterval(() => {
		const now = Date.now();
		clock.advance(((now - lastTick) * (factor - 1)) / 1000);
		lastTick = now;
	}, TICK_MS);
	ticker.unref();
	return {
		factor,
		stop() {
			clearInterval(ticker);
			sleepModule.sleep = sleep;
			sleepModule.sleepWithAbort = sleepWithAbort;
		},
	};
}
