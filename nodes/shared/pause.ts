import * as n8nWorkflow from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

type AbortableSleep = (ms: number, signal: AbortSignal) => Promise<void>;

/**
 * n8n-workflow up to 2.33 waits with `sleepWithAbort(ms, signal)`; 2.34 removed it and `sleep(ms, signal)` does the
 * same. Whichever this n8n has, looked up at each call as n8n-workflow's own exports are.
 */
function abortableSleep(): AbortableSleep {
	return (
		(n8nWorkflow as unknown as { sleepWithAbort?: AbortableSleep }).sleepWithAbort ??
		(sleep as unknown as AbortableSleep)
	);
}

/**
 * Waits `ms`, or stops at once when the execution is cancelled. The sleep functions may leave their listener on the
 * signal they are given; a wait of many polls would pile them up on the execution's signal, so each pause listens
 * through a short-lived signal of its own.
 */
export async function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
	if (!signal) return await sleep(ms);
	const local = new AbortController();
	const forward = () => local.abort(signal.reason);
	signal.addEventListener('abort', forward, { once: true });
	try {
		await abortableSleep()(ms, signal.aborted ? signal : local.signal);
	} finally {
		signal.removeEventListener('abort', forward);
	}
}
