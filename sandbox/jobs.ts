// Transcription jobs on the sandbox clock. A live job is queued, turns processing halfway through
// jobSeconds and reaches its terminal state at jobSeconds; a timer per transition keeps real time
// moving it, and clock.onAdvance moves it at once when a test jumps the clock. A test-key job is
// completed synchronously. Either way the terminal transition charges credits, deletes the source
// bytes and hands the signed event to the webhook dispatcher.

import type { PublicTranscriptionResponse, PublicTranscriptionWebhookEvent } from '../src/api';
import { isTerminalStatus } from '../src/api';
import type { SandboxClock } from './clock';
import { ApiError } from './errors';
import { randomId } from './random';
import type { Transcript } from './render';
import { mockTranscript, transcribeMedia } from './render';
import type {
	Account,
	JobRecord,
	JobRequest,
	Store,
	TranscribeOutcome,
	UploadRecord,
} from './store';
import { removeFile } from './uploads';
import type { WebhookDispatcher } from './webhooks';

export interface Links {
	job(jobId: string): string;
	artifact(jobId: string): string;
	/** Absolute URL of a path, for webhook bodies. */
	absolute(path: string): string;
}

/** POST /_sandbox/jobs: jobs created straight into the store, as if through the API earlier. */
export interface SeedJobs {
	account: Account;
	count: number;
	status: 'completed' | 'failed' | 'queued' | 'processing';
	held: boolean;
	filename: string;
}

export interface NewJob {
	account: Account;
	upload: UploadRecord;
	request: JobRequest;
	idempotencyKey: string | null;
}

/** One credit per started minute of media; premium_quality costs twice as much (spec 2.3). */
export function creditsFor(durationSeconds: number, request: JobRequest): number {
	const minutes = Math.max(1, Math.ceil(durationSeconds / 60));
	return request.model_tier === 'premium_quality' ? minutes * 2 : minutes;
}

export class JobRunner {
	/** Cancels each transition still waiting for its time. */
	private readonly timers = new Set<() => void>();
	private readonly finalizing = new Map<string, Promise<void>>();
	private readonly stopListening: () => void;

	constructor(
		private readonly store: Store,
		private readonly clock: SandboxClock,
		private readonly jobSeconds: number,
		private readonly webhooks: WebhookDispatcher,
		private readonly links: Links,
	) {
		this.stopListening = clock.onAdvance(() => void this.catchUp());
	}

	startLive(input: NewJob): JobRecord {
		const outcome = transcribeMedia({
			filePath: input.upload.file_path,
			filename: input.upload.filename,
			contentType: input.upload.content_type,
			sizeBytes: input.upload.size_bytes,
			translateToHebrew: input.request.translate_to_hebrew,
			userPrompt: input.request.user_prompt,
			modelTier: input.request.model_tier,
		}).catch((error: unknown): TranscribeOutcome => ({ ok: false, reason: String(error) }));
		const job = this.newJob(input, 'live', 'queued', outcome);
		this.schedule(job, job.processing_at);
		this.schedule(job, job.complete_at);
		return job;
	}

	/** Test keys: completed before the response, with the mock transcript, and nothing charged. */
	async completeTest(input: NewJob): Promise<JobRecord> {
		const transcript = mockTranscript({
			filename: input.upload.filename,
			translateToHebrew: input.request.translate_to_hebrew,
			userPrompt: input.request.user_prompt,
		});
		const job = this.newJob(input, 'test', 'processing', Promise.resolve({ ok: true, transcript }));
		await this.complete(job, transcript, job.created_at);
		return job;
	}

	/** Runs every transition that is due on the sandbox clock and waits until they have settled. */
	async catchUp(): Promise<void> {
		const pending: Array<Promise<void>> = [];
		for (const job of this.store.jobs.values()) {
			const finishing = this.advance(job);
			if (finishing) pending.push(finishing);
		}
		await Promise.all(pending);
	}

	/** Admin: the job fails now (its webhook goes out); a job already terminal cannot. */
	async fail(job: JobRecord): Promise<void> {
		await this.finalizing.get(job.job_id);
		refuseTerminal(job);
		job.held = false;
		await this.terminate(job, 'failed', this.clock.now());
	}

	/** Admin: the job keeps its running state past its due time, until released, completed or failed. */
	async hold(job: JobRecord): Promise<void> {
		await this.finalizing.get(job.job_id);
		refuseTerminal(job);
		job.held = true;
	}

	/**
	 * Admin: a held job goes on. One already past its due time reaches its terminal state now, with updated_at = now:
	 * a job never shows up terminal with a state change dated before it was visible.
	 */
	async release(job: JobRecord): Promise<void> {
		await this.finalizing.get(job.job_id);
		if (!job.held) return;
		job.held = false;
		job.complete_at = Math.max(job.complete_at, this.clock.now());
		this.schedule(job, job.complete_at);
		await this.advance(job);
	}

	/** Admin: the job completes now with its transcript, held or not; media it cannot read cannot complete. */
	async completeNow(job: JobRecord): Promise<void> {
		await this.finalizing.get(job.job_id);
		refuseTerminal(job);
		const outcome = await job.outcome;
		// The job's own timer may have finished it meanwhile.
		refuseTerminal(job);
		if (!outcome.ok) {
			throw new ApiError(
				409,
				'job_cannot_complete',
				`Job ${job.job_id} cannot complete: its media is unreadable (${outcome.reason}). Fail it instead.`,
				{ reason: outcome.reason },
			);
		}
		job.held = false;
		await this.complete(job, outcome.transcript, this.clock.now());
	}

	/** Admin: the job ends cancelled now; the service sends no webhook for that state (spec 6). */
	async cancel(job: JobRecord): Promise<void> {
		await this.finalizing.get(job.job_id);
		refuseTerminal(job);
		job.held = false;
		job.status = 'cancelled';
		job.updated_at = this.clock.now();
		job.credits_used = 0;
		await this.deleteSource(job);
	}

	/** Admin: `count` jobs with mock transcripts, created oldest first, one millisecond apart, ending now. */
	seed(input: SeedJobs): JobRecord[] {
		const now = this.clock.now();
		const created: JobRecord[] = [];
		for (let index = 0; index < input.count; index++) {
			const createdAt = now - (input.count - 1 - index);
			const transcript = mockTranscript({
				filename: input.filename,
				translateToHebrew: false,
				userPrompt: null,
			});
			const terminal = input.status === 'completed' || input.status === 'failed';
			const job: JobRecord = {
				job_id: randomId('job'),
				account_id: input.account.account_id,
				mode: 'live',
				upload_id: randomId('upl'),
				filename: input.filename,
				request: {
					translate_to_hebrew: false,
					model_tier: 'standard',
					user_prompt: null,
					output_format: 'srt',
					webhook_url: null,
				},
				status: input.status,
				created_at: createdAt,
				updated_at: createdAt,
				processing_at: input.status === 'queued' ? now + (this.jobSeconds * 1000) / 2 : createdAt,
				complete_at: terminal ? createdAt : now + this.jobSeconds * 1000,
				outcome: Promise.resolve({ ok: true, transcript }),
				transcript: input.status === 'completed' ? transcript : null,
				failure_reason: input.status === 'failed' ? 'seeded' : null,
				credits_used: terminal ? 0 : null,
				artifact_deleted: false,
				artifacts: new Map(),
				idempotency_key: null,
				idempotent_replays: 0,
				held: input.held,
			};
			this.store.jobs.set(job.job_id, job);
			if (!terminal) {
				this.schedule(job, job.processing_at);
				this.schedule(job, job.complete_at);
			}
			created.push(job);
		}
		return created;
	}

	async close(): Promise<void> {
		this.stopListening();
		for (const cancel of this.timers) cancel();
		this.timers.clear();
		await Promise.allSettled([...this.finalizing.values()]);
	}

	snapshot(job: JobRecord): PublicTranscriptionResponse {
		return {
			job_id: job.job_id,
			status: job.status,
			created_at: this.clock.toIso(job.created_at),
			updated_at: this.clock.toIso(job.updated_at),
			media_duration_seconds: job.transcript ? roundDuration(job.transcript.durationSeconds) : null,
			credits_used: job.credits_used,
			analysis: {
				language: job.transcript?.language ?? null,
				dialect: job.transcript?.dialect ?? null,
			},
			links: { self: this.links.job(job.job_id), artifact: this.links.artifact(job.job_id) },
		};
	}

	private newJob(
		input: NewJob,
		mode: JobRecord['mode'],
		status: string,
		outcome: Promise<TranscribeOutcome>,
	): JobRecord {
		const now = this.clock.now();
		const job: JobRecord = {
			job_id: randomId('job'),
			account_id: input.account.account_id,
			mode,
			upload_id: input.upload.upload_id,
			filename: input.upload.filename,
			request: input.request,
			status,
			created_at: now,
			updated_at: now,
			processing_at: now + (this.jobSeconds * 1000) / 2,
			complete_at: now + this.jobSeconds * 1000,
			outcome,
			transcript: null,
			failure_reason: null,
			credits_used: null,
			artifact_deleted: false,
			artifacts: new Map(),
			idempotency_key: input.idempotencyKey,
			idempotent_replays: 0,
			held: false,
		};
		input.upload.state = 'consumed';
		input.upload.job_id = job.job_id;
		this.store.jobs.set(job.job_id, job);
		return job;
	}

	private schedule(job: JobRecord, dueAt: number): void {
		const cancel = this.clock.at(dueAt, () => {
			this.timers.delete(cancel);
			void this.advance(job);
		});
		this.timers.add(cancel);
	}

	private advance(job: JobRecord): Promise<void> | undefined {
		const now = this.clock.now();
		if (job.status === 'queued' && now >= job.processing_at) {
			job.status = 'processing';
			job.updated_at = job.processing_at;
		}
		if (job.status !== 'processing' || now < job.complete_at || job.held) return undefined;
		let finishing = this.finalizing.get(job.job_id);
		if (!finishing) {
			finishing = this.finish(job).finally(() => this.finalizing.delete(job.job_id));
			this.finalizing.set(job.job_id, finishing);
		}
		return finishing;
	}

	private async finish(job: JobRecord): Promise<void> {
		const outcome = await job.outcome;
		if (job.status !== 'processing') return;
		if (outcome.ok) {
			await this.complete(job, outcome.transcript, job.complete_at);
		} else {
			job.failure_reason = outcome.reason;
			await this.terminate(job, 'failed', job.complete_at);
		}
	}

	private async complete(job: JobRecord, transcript: Transcript, at: number): Promise<void> {
		job.transcript = transcript;
		const account = this.store.accounts.get(job.account_id);
		job.credits_used =
			job.mode === 'test' ? 0 : creditsFor(transcript.durationSeconds, job.request);
		if (account) account.wallet_balance -= job.credits_used;
		await this.terminate(job, 'completed', at);
	}

	private async terminate(
		job: JobRecord,
		status: 'completed' | 'failed',
		at: number,
	): Promise<void> {
		job.status = status;
		job.updated_at = at;
		if (status === 'failed') job.credits_used = 0;
		await this.deleteSource(job);
		this.emitWebhook(job, status, at);
	}

	private async deleteSource(job: JobRecord): Promise<void> {
		const upload = this.store.uploads.get(job.upload_id);
		if (upload && !upload.source_deleted) {
			upload.source_deleted = true;
			await removeFile(upload.file_path);
		}
	}

	private emitWebhook(job: JobRecord, status: 'completed' | 'failed', at: number): void {
		const account = this.store.accounts.get(job.account_id);
		if (!job.request.webhook_url || !account) return;
		const event: PublicTranscriptionWebhookEvent = {
			event: status === 'completed' ? 'transcription.completed' : 'transcription.failed',
			event_id: randomId('evt'),
			job_id: job.job_id,
			status,
			created_at: this.clock.toIso(at),
			links: {
				self: this.links.absolute(this.links.job(job.job_id)),
				artifact:
					status === 'completed' ? this.links.absolute(this.links.artifact(job.job_id)) : null,
			},
		};
		this.webhooks.enqueue({ url: job.request.webhook_url, secret: account.signing_secret, event });
	}
}

function refuseTerminal(job: JobRecord): void {
	if (!isTerminalStatus(job.status)) return;
	throw new ApiError(409, 'job_already_terminal', `Job ${job.job_id} is already ${job.status}.`, {
		status: job.status,
	});
}

function roundDuration(seconds: number): number {
	return Math.round(seconds * 1000) / 1000;
}
