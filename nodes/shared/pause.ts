import { sleep, sleepWithAbort } from 'n8n-workflow';

/**
 * sleepWithAbort leaves its listener on the signal it is given; a wait of many polls would pile them up on the
 * execution's signal, so each pause listens through a short-lived signal of its own.
 */
export async function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
	if (!signal) return await sleep(ms);
	const local = new AbortController();
	const forward = () => local.abort();
	signal.addEventListener('abort', forward, { once: true });
	try {
		await sleepWithAbort(ms, signal.aborted ? signal : local.signal);
	} finally {
		signal.removeEventListener('abort', forward);
	}
}
