// Watches one download from a media host while something else reads it (the upload to the service, or n8n's binary
// store): counts its bytes against the announced length, and ends it when the host falls silent for the idle timeout
// or the whole transfer outlives its deadline. What went wrong is kept, named after the host, for the item's error.
import type { IExecuteFunctions, NodeOperationError } from 'n8n-workflow';

import { formatBytes } from '../../../../src/client';
import { redactLink } from '../../../../src/media';
import { abortableSleep } from '../../../shared/abortable-sleep';
import type { BinaryStream } from '../../../shared/transport';
import { mediaError, networkFailureInWords, seconds, timeoutAdvice } from './errors';

export interface TransferLimits {
	/** The URL that answered (after redirects). */
	url: URL;
	/** The answer's Content-Length, when it gave one. */
	expectedBytes?: number;
	idleTimeoutMs: number;
	deadlineAtMs: number;
	itemIndex: number;
}

export class MediaTransfer {
	private received = 0;
	private lastProgressAtMs = Date.now();
	private closing = false;
	private failed: NodeOperationError | undefined;
	private readonly over = new AbortController();

	/**
	 * `abort` ends the request the body belongs to, its connection included (MediaAnswer.abort); `failed` is aborted,
	 * with the failure as its reason, when the download fails (`failing`).
	 */
	constructor(
		private readonly context: Pick<IExecuteFunctions, 'getNode'>,
		private readonly body: BinaryStream,
		private readonly abort: () => void,
		private readonly limits: TransferLimits,
		private readonly failing: AbortController = new AbortController(),
	) {
		// A listener for the body's data would start it flowing before its reader (a pipe, n8n's store) is there, and
		// pausing it would stall a reader that only listens for data: the counter joins when the reader does.
		const joinReader = (event: string | symbol) => {
			if (event !== 'data' && event !== 'readable') return;
			body.removeListener('newListener', joinReader);
			const count = () => body.on('data', (chunk: Buffer | string) => this.onData(chunk));
			// Beside a reader that pulls (readable), once its listener is there: data is then only what it reads.
			if (event === 'data') count();
			else void Promise.resolve().then(count);
		};
		body.on('newListener', joinReader);
		body.once('end', () => this.onEnd());
		body.once('error', (error: Error) => this.onError(error));
		body.once('close', () => {
			this.over.abort();
			this.abort();
		});
		void this.watch();
	}

	/** Why the download failed, when it did; undefined while it runs or after it ended well. */
	get failure(): NodeOperationError | undefined {
		return this.failed;
	}

	get receivedBytes(): number {
		return this.received;
	}

	/** Ends the download, read or not (a finished item, or one that failed elsewhere): the connection is closed. */
	close(): void {
		this.closing = true;
		this.over.abort();
		if (!this.body.destroyed) this.body.destroy();
		this.abort();
	}

	private onData(chunk: Buffer | string): void {
		this.received += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
		this.lastProgressAtMs = Date.now();
		const { expectedBytes } = this.limits;
		if (expectedBytes !== undefined && this.received > expectedBytes) {
			this.fail({
				code: 'media_length_mismatch',
				message: `The media host at ${this.where()} sent more than the ${formatBytes(expectedBytes)} (${expectedBytes} bytes) its Content-Length announced`,
				description:
					"The upload stopped there and no job was started. A host that compresses the file although asked not to (Content-Encoding) sends another length than the file's: link to the file as stored.",
			});
		}
	}

	private onEnd(): void {
		const { expectedBytes } = this.limits;
		if (expectedBytes !== undefined && this.received < expectedBytes) {
			this.fail({
				code: 'media_length_mismatch',
				message: `The media host at ${this.where()} ended the file after ${this.received} of the ${expectedBytes} bytes its Content-Length announced`,
				description:
					'No job was started from the partial upload. Run the item again; if it keeps happening the host serves a truncated file.',
			});
		}
	}

	private onError(error: Error): void {
		if (this.closing) return;
		const { expectedBytes } = this.limits;
		const of = expectedBytes === undefined ? '' : ` of ${expectedBytes}`;
		// The body is already ended by its error: only the reason is kept.
		this.fail(
			{
				code: 'media_transfer_failed',
				message: `The media host at ${this.where()} broke off the download after ${this.received}${of} bytes${networkFailureInWords(error)}`,
				description:
					"No job was started from the partial upload; the other items are not affected. Run the item again (n8n's Retry On Fail does it for you) once the host serves the file whole.",
			},
			false,
		);
	}

	/** Records the first failure and ends the download with it, so whoever reads the body stops too. */
	private fail(
		failure: { code: string; message: string; description: string },
		destroy = true,
	): void {
		if (this.failed !== undefined) return;
		this.failed = mediaError(this.context, this.limits, failure);
		this.over.abort();
		this.failing.abort(this.failed);
		if (!destroy) return;
		if (!this.body.destroyed) this.body.destroy(this.failed);
		// A body that waits on a silent host is not ended by destroying it alone (MediaAnswer.abort).
		this.abort();
	}

	private where(): string {
		return redactLink(this.limits.url);
	}

	private async watch(): Promise<void> {
		while (!this.over.signal.aborted) {
			const nowMs = Date.now();
			// Bytes waiting to be read: the reader is the one keeping the transfer waiting (the upload has not started, or
			// the service takes them slower than the host sends), not the host.
			if (this.body.readableLength > 0) this.lastProgressAtMs = nowMs;
			const idleLeftMs = this.lastProgressAtMs + this.limits.idleTimeoutMs - nowMs;
			const deadlineLeftMs = this.limits.deadlineAtMs - nowMs;
			if (deadlineLeftMs <= 0 || idleLeftMs <= 0) {
				const received = `${this.received}${this.limits.expectedBytes === undefined ? '' : ` of ${this.limits.expectedBytes}`} bytes`;
				this.fail({
					code: 'media_timeout',
					message:
						deadlineLeftMs <= 0
							? `The download from ${this.where()} did not finish before its deadline: ${received} arrived`
							: `The media host at ${this.where()} sent nothing for ${seconds(this.limits.idleTimeoutMs)} after ${received}`,
					description: `No job was started from the partial upload. ${timeoutAdvice()}`,
				});
				return;
			}
			try {
				// Short naps, so that bytes waiting for the reader count as progress.
				await abortableSleep(Math.min(idleLeftMs, deadlineLeftMs, 1_000), this.over.signal);
			} catch {
				return;
			}
		}
	}
}
