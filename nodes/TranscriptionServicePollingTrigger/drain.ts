// One poll at the account's pace: rounds of the PollSession (session.ts), each reading the list within what the
// account's rate limits leave to this trigger (its share, RateShare: src/client/rate-share.ts) and emitting what it
// found, until nothing is owed, the next tick of Poll Times (or n8n's budget for a poll) comes near, or a request
// fails. So a backlog drains at the rate of the account's read and download buckets, whatever the Poll Times.
//
// Each round's jobs are handed to n8n as one execution (__emit) together with the state that marks them done: n8n
// saves the static data when a poll emits, so a restart neither emits them again nor loses the rest, and a poll that
// runs an hour holds one round's items at a time (their transcripts in n8n's binary data store). The activation's poll
// is one round, as n8n waits for it before it activates the workflow.
import { NodeApiError, NodeOperationError, sleep, type IPollFunctions } from 'n8n-workflow';

import type { RateLimitBucket } from '../../src/api';
import { DEFAULT_RETRY_POLICY, RateShare } from '../../src/client';
import { itemErrorOf } from '../shared/errors';
import { EVENT_ARTIFACT_RETRY_POLICY } from '../shared/event-item';
import type { ArtifactDownload } from '../shared/event-properties';
import { requestListPage, type ListAnswer } from '../shared/job-list';
import { answerDateMs, TranscriptionServiceClient, type RequestWatch } from '../shared/transport';
import { jobItems } from './items';
import type { DueJob, PolledStatus } from './list';
import { PollSession, type PollOutcome } from './session';

/** A poll waits out a short rate-limit window; a longer one ends the poll, and the next one goes on from there. */
const POLL_RETRY_POLICY = { ...DEFAULT_RETRY_POLICY, maxRateLimitWaitMs: 20_000 };

/** Jobs one round emits (one execution): without Download Artifact, and with it (each a transcript in the item). */
const ROUND_ITEMS = 1000;
const ROUND_ITEMS_WITH_ARTIFACT = 100;
/** The activation's one round: as many list requests and items as a poll made before it drained by the minute. */
const ACTIVATION_REQUESTS = 10;
const ACTIVATION_ITEMS = 100;
const ACTIVATION_ITEMS_WITH_ARTIFACT = 25;
/** What a round may send in a bucket the service has not answered yet: list requests, and one download to learn. */
const UNKNOWN_BUCKETS = { reads: ACTIVATION_REQUESTS, artifacts: 1 };
/** Found jobs a poll hands from one round to the next beyond what the state keeps, oldest first. */
const MAX_CARRIED = 10_000;

/**
 * What each account's windows leave this trigger, per account and share, kept between polls in this process: what a
 * poll learned of the buckets (their limits, what the account has left, when the windows end) holds for the next.
 */
const shares = new Map<string, RateShare>();
/** Accounts whose share is kept (a credential normally stays on one). */
const MAX_SHARES = 20;

function shareFor(settings: DrainSettings): RateShare {
	const key = `${settings.accountKey}|${settings.share}|${settings.statuses.length}`;
	let share = shares.get(key);
	if (!share) {
		if (shares.size >= MAX_SHARES) shares.delete(shares.keys().next().value as string);
		share = new RateShare({
			share: settings.share,
			unknown: UNKNOWN_BUCKETS,
			// A list request per selected event and one to search: whatever the share, a poll can read the list.
			minimum: { reads: settings.statuses.length + 1 },
		});
		shares.set(key, share);
	}
	return share;
}

export interface DrainSettings {
	statuses: PolledStatus[];
	artifact: ArtifactDownload;
	/** The part of each rate-limit window this trigger may use (Options → Share of Rate Limits). */
	share: number;
	account: string;
	credential: string;
	/** The credential's key into the shares (ServiceSettings.accountKey), as the poll has read it. */
	accountKey: string;
}

export interface DrainSummary {
	rounds: number;
	requests: number;
	emitted: number;
	/** The last round's outcome (its notes are logged as they come). */
	last: PollOutcome | undefined;
	/** What ended the poll before nothing was owed: a failed request, the time. */
	stoppedBy: Error | 'time' | undefined;
}

/**
 * Rounds until nothing is owed or `workUntilMs` (this machine's clock) has come; `activation` makes it one round. A
 * failure at the first activation (no state yet) fails it, with its reason; a later one ends the poll quietly when
 * waiting fixes it, and is thrown otherwise.
 */
export async function drain(
	context: IPollFunctions,
	settings: DrainSettings,
	workUntilMs: number,
	activation: boolean,
): Promise<DrainSummary> {
	const share = shareFor(settings);
	const watch: RequestWatch = {
		sent: (bucket) => share.sent(bucket),
		answered: (bucket, headers) =>
			share.answered(bucket, headers, Date.now(), answerDateMs(headers)),
	};
	const reader = new TranscriptionServiceClient(context, POLL_RETRY_POLICY, watch);
	const downloads = new TranscriptionServiceClient(context, EVENT_ARTIFACT_RETRY_POLICY, watch);
	const staticData = context.getWorkflowStaticData('node');
	const name = context.getNode().name;
	const minReads = settings.statuses.length + 1;
	const summary: DrainSummary = {
		rounds: 0,
		requests: 0,
		emitted: 0,
		last: undefined,
		stoppedBy: undefined,
	};
	let carried: DueJob[] = [];
	let readsUntil = Number.NEGATIVE_INFINITY;
	let lastMaxItems = 0;

	for (;;) {
		const now = Date.now();
		const last = summary.last;
		// Found jobs none of which the last round could emit though it could emit some (held back until the cutoff
		// rises): read again in a new window of the reads bucket, which is what moves the cutoff.
		const heldBack = !!last && lastMaxItems > 0 && last.emit.length === 0 && last.deferred > 0;
		const atHand = last && !heldBack ? last.deferred : 0;
		// Read the list at the start, in each new window of the reads bucket, and while a search goes on; otherwise the
		// round only emits what earlier rounds found.
		const wantsReads = !last || now >= readsUntil || (last.searching.length > 0 && !heldBack);
		const reads = share.available('reads', now);
		const items = settings.artifact.download
			? Math.min(ROUND_ITEMS_WITH_ARTIFACT, share.available('artifacts', now))
			: ROUND_ITEMS;
		const maxRequests = activation
			? Math.max(minReads, Math.min(reads, ACTIVATION_REQUESTS))
			: wantsReads && reads >= minReads
				? reads
				: 0;
		const maxItems = activation
			? Math.min(
					items,
					settings.artifact.download ? ACTIVATION_ITEMS_WITH_ARTIFACT : ACTIVATION_ITEMS,
				)
			: items;
		if (!activation && maxRequests === 0 && (atHand === 0 || maxItems === 0)) {
			// Nothing this round could do now: wait for the window it needs, if it opens in time.
			const opens = [
				...(wantsReads || heldBack ? [share.windowEndsAt('reads')] : []),
				...(atHand > 0 ? [share.windowEndsAt('artifacts')] : []),
			].filter((at): at is number => at !== undefined);
			const next = Math.min(...opens, readsUntil > now ? readsUntil : Number.POSITIVE_INFINITY);
			if (!Number.isFinite(next) || next >= workUntilMs) {
				summary.stoppedBy = 'time';
				break;
			}
			await sleep(Math.max(0, next - Date.now()));
			continue;
		}

		const outcome = await round(context, reader, settings, {
			stored: staticData.poll,
			maxRequests,
			maxItems,
			carried,
			workUntilMs,
			summary,
		});
		staticData.poll = outcome.state;
		lastMaxItems = maxItems;
		summary.rounds++;
		summary.requests += outcome.requests;
		summary.last = outcome;
		if (maxRequests > 0) readsUntil = share.windowEndsAt('reads') ?? Number.NEGATIVE_INFINITY;
		for (const note of outcome.notes) context.logger.warn(`${name}: ${note}`);
		carried = outcome.dropped.slice(0, MAX_CARRIED);
		if (outcome.emit.length > 0) {
			const emitted = await jobItems(context, outcome.emit, settings.artifact, Date.now(), {
				client: downloads,
				beforeDownload: async () => await waitFor(share, 'artifacts'),
			});
			// With the state that marks these jobs done, which n8n saves when a poll emits.
			context.__emit([emitted]);
			summary.emitted += emitted.length;
		}
		if (activation || summary.stoppedBy) break;
		// Caught up: nothing owed, or (a round that only emitted) nothing found left and no search going on; what ends
		// meanwhile is the next tick's.
		const caughtUp = outcome.settled || (maxRequests === 0 && outcome.searching.length === 0);
		if (caughtUp && outcome.deferred === 0) break;
		// Owed, and nothing to emit or search for now (an answer it could not use, jobs held back until the cutoff
		// rises): the next poll tries again.
		const progress =
			outcome.emit.length > 0 || outcome.searching.length > 0 || outcome.deferred > 0;
		if (!progress) break;
		if (Date.now() >= workUntilMs) {
			summary.stoppedBy = 'time';
			break;
		}
	}
	return summary;
}

interface RoundInput {
	stored: unknown;
	maxRequests: number;
	maxItems: number;
	carried: DueJob[];
	workUntilMs: number;
	summary: DrainSummary;
}

/** One PollSession: its requests, then what it emits and stores. */
async function round(
	context: IPollFunctions,
	client: TranscriptionServiceClient,
	settings: DrainSettings,
	input: RoundInput,
): Promise<PollOutcome> {
	const session = new PollSession(
		input.stored,
		{
			statuses: settings.statuses,
			maxRequests: input.maxRequests,
			maxItems: input.maxItems,
			account: settings.account,
			credential: settings.credential,
		},
		Date.now(),
		input.carried,
	);
	// With no state at all this is the first activation: a failure there fails the activation, with its reason.
	const firstActivation = !session.hasHistory;
	// The first pages are read whatever the time: without them a poll learns nothing.
	let made = 0;
	for (let request = session.next(); request; request = session.next()) {
		if (made++ >= settings.statuses.length && Date.now() >= input.workUntilMs) break;
		let answer: ListAnswer;
		try {
			answer = await requestListPage(client, request);
		} catch (error) {
			if (firstActivation || !isTransient(error)) throw asNodeError(context, error);
			input.summary.stoppedBy = error as Error;
			session.interrupt();
			break;
		}
		session.apply(request, answer.body, answer.serviceNowMs);
	}
	const outcome = session.finish();
	if (firstActivation && outcome.unreadable.length > 0) {
		throw new NodeOperationError(
			context.getNode(),
			`The service's list of ${outcome.unreadable.join(' and ')} jobs is not a valid list answer`,
			{ description: outcome.notes.join('\n') },
		);
	}
	return outcome;
}

/** Until the share allows a request of `bucket`: the rest of its window at most. */
async function waitFor(share: RateShare, bucket: RateLimitBucket): Promise<void> {
	for (;;) {
		const now = Date.now();
		if (share.available(bucket, now) > 0) return;
		const opens = share.windowEndsAt(bucket);
		if (opens === undefined || opens <= now) return;
		await sleep(opens - now);
	}
}

export function asNodeError(
	context: IPollFunctions,
	error: unknown,
): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	return new NodeOperationError(context.getNode(), error as Error);
}

/** What waiting fixes: the next poll goes on. Anything else (a revoked key, a bad Base URL) is the user's to fix. */
export function isTransient(error: unknown): boolean {
	const fields = itemErrorOf(error);
	if (!fields) return false;
	if (fields.code === 'rate_limit_exceeded' || fields.code === 'network_error') return true;
	const status = fields.http_status ?? 0;
	return status === 408 || status === 429 || status >= 500;
}
