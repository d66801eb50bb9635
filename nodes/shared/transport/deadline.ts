// One attempt's deadline. n8n's HTTP client offers only `timeout`, which axios applies to the socket while it is
// idle (a byte every few seconds keeps it going forever) and not at all to a body read as a stream; and in an
// execution n8n puts the execution's cancel signal in place of a request's own abortSignal. So the attempt keeps
// its own clock, with n8n-workflow's abortable sleep, and whoever waits on the attempt gives up when it expires.
import { attemptDeadlineMs, ATTEMPT_DEADLINE_CODE } from '../../../src/client';
import { abortableSleep } from '../abortable-sleep';

export class AttemptDeadlineExceeded extends Error {
	readonly code = ATTEMPT_DEADLINE_CODE;

	constructor(readonly afterMs: number) {
		super(`no complete answer within ${Math.round(afterMs / 1000)} s, the attempt's deadline`);
		this.name = 'AttemptDeadlineExceeded';
	}
}

export class AttemptDeadline {
	private readonly startedAtMs = Date.now();
	private readonly expiry = new AbortController();
	private readonly stopped = new AbortController();
	private transferredBytes: number;

	/**
	 * Expires `timeoutMs` after now, plus the time `sentBytes` and every byte credited later take at the slowest
	 * transfer rate the client allows (src/client/retry.ts).
	 */
	constructor(
		private readonly timeoutMs: number,
		sentBytes = 0,
	) {
		this.transferredBytes = sentBytes;
		void this.watch();
	}

	/** Aborted, with an AttemptDeadlineExceeded as its reason, when the attempt runs out of time. */
	get signal(): AbortSignal {
		return this.expiry.signal;
	}

	get expired(): boolean {
		return this.expiry.signal.aborted;
	}

	/** Bytes that arrived: a transfer that keeps moving keeps its time. */
	credit(bytes: number): void {
		this.transferredBytes += bytes;
	}

	/** Ends the attempt now, for `reason` (the upload's source failed): whoever waits on it gives up as at expiry. */
	abort(reason: unknown): void {
		if (!this.expired) this.expiry.abort(reason);
	}

	/** The attempt is over (answered or failed): the clock stops and holds no timer. */
	stop(): void {
		this.stopped.abort();
	}

	/** `pending`, or a rejection with AttemptDeadlineExceeded if the deadline comes first. */
	async race<T>(pending: Promise<T>): Promise<T> {
		if (this.expired) throw this.expiry.signal.reason;
		let onExpiry: (() => void) | undefined;
		const expiry = new Promise<never>((_resolve, reject) => {
			onExpiry = () => reject(this.expiry.signal.reason as Error);
			this.expiry.signal.addEventListener('abort', onExpiry, { once: true });
		});
		try {
			return await Promise.race([pending, expiry]);
		} finally {
			if (onExpiry) this.expiry.signal.removeEventListener('abort', onExpiry);
		}
	}

	private deadlineAtMs(): number {
		return this.startedAtMs + attemptDeadlineMs(this.timeoutMs, this.transferredBytes);
	}

	private async watch(): Promise<void> {
		for (;;) {
			const remainingMs = this.deadlineAtMs() - Date.now();
			if (remainingMs <= 0) {
				this.expiry.abort(new AttemptDeadlineExceeded(Date.now() - this.startedAtMs));
				return;
			}
			try {
				await abortableSleep(remainingMs, this.stopped.signal);
			} catch {
				return;
			}
			if (this.stopped.signal.aborted) return;
		}
	}
}
