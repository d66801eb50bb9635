// One HTTP POST of a webhook attempt, connected to the address the target check approved (no second DNS
// lookup, so a rebinding answer cannot slip a private address in), never following redirects.

import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';

import type { SandboxClock } from '../clock';
import type { ResolvedAddress } from './targets';

export interface AttemptOutcome {
	/** Any 2xx (spec 6, delivery rule 1). */
	delivered: boolean;
	/** Network failures, timeouts, 408, 425, 429 and 5xx are worth another attempt (spec 6, delivery rule 4). */
	retryable: boolean;
	status_code: number | null;
	/** A short reason for the client, never a stack trace. */
	error: string | null;
}

export interface PostRequest {
	url: URL;
	address: ResolvedAddress;
	headers: Record<string, string>;
	body: string;
	timeoutMs: number;
	/** Whose timers measure `timeoutMs`. */
	clock: SandboxClock;
	/** Aborted when the dispatcher closes. */
	signal: AbortSignal;
}

const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 425, 429]);

class AttemptTimeoutError extends Error {}

/** Answers every lookup with the checked address; Node asks with `all: true` when it races address families. */
function pinnedLookup(pinned: ResolvedAddress): LookupFunction {
	return (_hostname, options, callback) => {
		if (options.all) callback(null, [pinned]);
		else callback(null, pinned.address, pinned.family);
	};
}

export function formatSeconds(milliseconds: number): string {
	return `${Number((milliseconds / 1000).toFixed(3))} s`;
}

function outcomeOfStatus(status: number): AttemptOutcome {
	if (status >= 200 && status < 300)
		return { delivered: true, retryable: false, status_code: status, error: null };
	const redirectNote = status >= 300 && status < 400 ? '; redirects are not followed' : '';
	return {
		delivered: false,
		retryable: RETRYABLE_STATUSES.has(status) || status >= 500,
		status_code: status,
		error: `target answered ${status}${redirectNote}`,
	};
}

const TLS_ERROR_CODE =
	/^(ERR_TLS_|ERR_SSL_|CERT_|DEPTH_ZERO_|SELF_SIGNED_|UNABLE_TO_|HOSTNAME_MISMATCH|EPROTO$)/;

function describeNetworkError(error: unknown, timeoutMs: number): string {
	if (error instanceof AttemptTimeoutError) return `timed out after ${formatSeconds(timeoutMs)}`;
	const code = (error as NodeJS.ErrnoException | null)?.code ?? '';
	if (code === 'ABORT_ERR') return 'cancelled: the sandbox is shutting down';
	if (code === 'ECONNREFUSED') return 'connection refused';
	if (code === 'ECONNRESET' || code === 'EPIPE') return 'connection reset';
	if (code === 'ETIMEDOUT') return 'connection timed out';
	if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'host unreachable';
	if (TLS_ERROR_CODE.test(code)) return `TLS handshake failed (${code})`;
	return code === '' ? 'network error' : `network error (${code})`;
}

/** Resolves once the status line is in (or the attempt failed); the body is drained in the background. */
export function postOnce(request: PostRequest): Promise<AttemptOutcome> {
	const transport = request.url.protocol === 'https:' ? https : http;
	return new Promise((resolve) => {
		let settled = false;
		const settle = (outcome: AttemptOutcome) => {
			if (settled) return;
			settled = true;
			resolve(outcome);
		};
		const fail = (error: unknown) =>
			settle({
				delivered: false,
				retryable: true,
				status_code: null,
				error: describeNetworkError(error, request.timeoutMs),
			});

		const outgoing = transport.request(request.url, {
			method: 'POST',
			headers: request.headers,
			agent: false,
			lookup: pinnedLookup(request.address),
			signal: request.signal,
		});
		// The deadline also bounds draining a response body that never ends.
		const cancelDeadline = request.clock.after(request.timeoutMs, () =>
			outgoing.destroy(new AttemptTimeoutError()),
		);
		outgoing.on('close', cancelDeadline);
		outgoing.on('error', fail);
		outgoing.on('response', (response) => {
			settle(outcomeOfStatus(response.statusCode ?? 0));
			response.on('error', () => undefined);
			response.resume();
		});
		outgoing.end(request.body);
	});
}
