// The errors of a download from a media host: each an item error with a code of its own (docs/nodes.md, Errors),
// named after the host as errors and logs may show it (without the link's query).
import type { IExecuteFunctions } from 'n8n-workflow';

import { operationError } from '../../../shared/errors';

export function mediaError(
	context: Pick<IExecuteFunctions, 'getNode'>,
	request: { itemIndex: number },
	fields: { code: string; message: string; description: string },
) {
	return operationError(context.getNode(), { ...fields, itemIndex: request.itemIndex });
}

/** 1500 → "1.5 s". */
export function seconds(ms: number): string {
	const value = Math.round(ms / 100) / 10;
	return `${value} s`;
}

/** Where a download's time limits are set. */
export function timeoutAdvice(): string {
	return 'A slow host can be given more time under "Link Options": "Idle Timeout (Seconds)" for its pauses, "Deadline (Seconds)" for the whole download.';
}

/**
 * A socket error's code in words. n8n replaces the message of any node error that names a code such as ECONNRESET
 * with its own generic text, which would lose what this message says about the host.
 */
export function networkFailureInWords(error: unknown): string {
	const code = (error as { code?: unknown } | undefined)?.code;
	const words: Record<string, string> = {
		ECONNRESET: 'the connection was reset',
		ECONNREFUSED: 'the connection was refused',
		ECONNABORTED: 'the connection was aborted',
		ETIMEDOUT: 'the connection timed out',
		ENOTFOUND: 'the host name does not resolve',
		EAI_AGAIN: 'the host name could not be resolved',
		EHOSTUNREACH: 'the host is unreachable',
		ENETUNREACH: 'the network is unreachable',
		EPIPE: 'the connection was closed',
		ERR_STREAM_PREMATURE_CLOSE: 'the connection was closed',
		UND_ERR_SOCKET: 'the connection was closed',
	};
	return typeof code === 'string' && words[code] ? ` (${words[code]})` : '';
}
