import * as n8nWorkflow from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

type SleepWithSignal = (ms: number, signal: AbortSignal) => Promise<void>;

/**
 * n8n-workflow up to 2.33 waits with `sleepWithAbort(ms, signal)`; 2.34 removed it and `sleep(ms, signal)` does the
 * same. Whichever this n8n has, looked up at each call as n8n-workflow's own exports are.
 */
function sleepWithSignal(): SleepWithSignal {
	return (
		(n8nWorkflow as unknown as { sleepWithAbort?: SleepWithSignal }).sleepWithAbort ??
		(sleep as unknown as SleepWithSignal)
	);
}

/**
 * Waits `ms`, or stops at once (rejecting) when `signal` aborts. The sleep functions may leave their listener on the
 * signal they are given; many waits on one long-lived signal (an execution's) would pile them up, so each wait
 * listens through a short-lived signal of its own.
 */
export async function abortableSleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
	if (!signal) return await sleep(ms);
	const local = new AbortController();
	const forward = () => local.abort(signal.reason);
	signal.addEventListener('abort', forward, { once: true });
	try {
		await sleepWithSignal()(ms, signal.aborted ? signal : local.signal);
	} finally {
		signal.removeEventListener('abort', forward);
	}
}
