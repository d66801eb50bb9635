// One poll in n8n: reads the node's settings and static data, works out how long it may run (poll-times.ts), and
// drains at the account's pace (drain.ts): rounds of requests the PollSession (session.ts) asks for, each emitted with
// the state that marks its jobs done. n8n saves static data when a poll emits (and after the first poll of an
// activation), so a job emitted before a restart is not emitted after it.
import { createHash } from 'crypto';
import {
	NodeOperationError,
	type IDataObject,
	type INodeExecutionData,
	type IPollFunctions,
} from 'n8n-workflow';

import type { PublicAccountResponse } from '../../src/api';
import { DEFAULT_RETRY_POLICY } from '../../src/client';
import {
	readArtifactDownload,
	readField,
	readOption,
	type ArtifactDownload,
	type ReadParameter,
} from '../shared/event-properties';
import { requestListPage } from '../shared/job-list';
import { TranscriptionServiceClient } from '../shared/transport';
import { pollingEventType } from '../shared/vocabulary';
import { properties } from './description';
import { asNodeError, drain, isTransient } from './drain';
import { NewestJobSearch } from './fetch-test-event';
import { jobItems } from './items';
import { POLLED_STATUSES, type PolledStatus } from './list';
import { pollWorkMs, shortestTickGapMs, TickGaps } from './poll-times';
import { storedAccount } from './state';

/** List requests Fetch Test Event makes at most, shared between the selected events. */
const FETCH_TEST_EVENT_REQUESTS = 10;

/**
 * n8n starts a poll on every tick of Poll Times without waiting for the previous one, so a slow poll would overlap
 * the next and both would read the same state. One poll per workflow and node at a time in this process; a tick
 * that finds one running is skipped (a poll ends before the next tick, poll-times.ts: this is the guard).
 */
const runningPolls = new Set<string>();
/** Each trigger's last ticks in this process, for Poll Times whose gaps the parameter does not tell. */
const tickGaps = new Map<string, TickGaps>();
/**
 * The poll contexts n8n has polled with: n8n makes one per activation and polls with it at every tick, and waits for
 * the activation's first poll before it activates the workflow, so that one is a single round.
 */
const polledContexts = new WeakSet<IPollFunctions>();

interface Settings {
	statuses: PolledStatus[];
	/** Options → Share of Rate Limits, as a fraction. */
	share: number;
	artifact: ArtifactDownload;
}

export async function poll(context: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	const settings = readSettings(context);
	if (context.getMode() === 'manual') return await fetchTestEvent(context, settings);

	const startedAt = Date.now();
	const lockKey = `${context.getWorkflow().id ?? ''}:${context.getNode().id}`;
	const gaps = tickGaps.get(lockKey) ?? new TickGaps();
	tickGaps.set(lockKey, gaps);
	gaps.tick(startedAt);
	if (runningPolls.has(lockKey)) {
		context.logger.debug(
			'Transcription Service Polling Trigger: the previous poll is still running',
		);
		return null;
	}
	runningPolls.add(lockKey);
	const activation = !polledContexts.has(context);
	polledContexts.add(context);
	try {
		const gapMs =
			shortestTickGapMs(context.getNodeParameter('pollTimes', undefined)) ?? gaps.shortestMs();
		const workUntil = startedAt + pollWorkMs(gapMs, pollBudgetMs(context));
		await pollOnce(context, settings, workUntil, activation);
		return null;
	} finally {
		runningPolls.delete(lockKey);
	}
}

async function pollOnce(
	context: IPollFunctions,
	settings: Settings,
	workUntil: number,
	activation: boolean,
): Promise<void> {
	const staticData = context.getWorkflowStaticData('node');
	const name = context.getNode().name;
	const client = new TranscriptionServiceClient(context, DEFAULT_RETRY_POLICY);
	const { accountKey } = await client.serviceSettings();
	const credential = createHash('sha256').update(accountKey).digest('hex').slice(0, 16);
	// Asked only when the credential changed (a new key, a Base URL spelt differently) or no state names the account.
	let account = storedAccount(staticData.poll, credential);
	if (account === undefined) {
		try {
			account = await accountId(context, client);
		} catch (error) {
			// A key that fails (revoked, not yet valid) leaves the state as it is, for a working key of the account.
			if (staticData.poll === undefined || !isTransient(error)) throw asNodeError(context, error);
			context.logger.warn(
				`${name}: could not read the credential's account (${(error as Error).message}); the next poll tries again`,
			);
			return;
		}
	}
	const summary = await drain(
		context,
		{ ...settings, account, credential, accountKey },
		workUntil,
		activation,
	);
	const { last, stoppedBy } = summary;
	if (stoppedBy instanceof Error) {
		context.logger.warn(
			`${name}: the poll stopped after ${summary.requests} request(s) (${stoppedBy.message}); the next poll goes on from there`,
		);
	}
	context.logger.debug(
		`${name}: ${summary.rounds} round(s), ${summary.requests} request(s), ${summary.emitted} job(s) emitted${
			last?.deferred ? `, ${last.deferred} left for the next poll` : ''
		}${last?.searching.length ? `, still searching ${last.searching.join(', ')}` : ''}`,
	);
}

/** n8n 2.41 and later tell a poll how long it may take; earlier versions set no bound. */
function pollBudgetMs(context: IPollFunctions): number | undefined {
	const budget = (context as { getPollBudgetMs?: () => number }).getPollBudgetMs;
	if (typeof budget !== 'function') return undefined;
	const ms = budget.call(context);
	return Number.isFinite(ms) && ms > 0 ? ms : undefined;
}

/** Fetch Test Event: the newest job in a selected state, with nothing stored (n8n's polling triggers do the same). */
async function fetchTestEvent(
	context: IPollFunctions,
	settings: Settings,
): Promise<INodeExecutionData[][] | null> {
	const client = new TranscriptionServiceClient(context, DEFAULT_RETRY_POLICY);
	const search = new NewestJobSearch(settings.statuses, FETCH_TEST_EVENT_REQUESTS);
	for (let request = search.next(); request; request = search.next()) {
		search.apply(request, (await requestListPage(client, request)).body);
	}
	const newest = search.newest();
	if (!newest) return null;
	return [await jobItems(context, [newest], settings.artifact, Date.now())];
}

/** account_id of GET /account (spec 4.1): who the credential's key belongs to. */
async function accountId(
	context: IPollFunctions,
	client: TranscriptionServiceClient,
): Promise<string> {
	const { body } = await client.request<Partial<PublicAccountResponse> | undefined>({
		operation: 'getAccount',
	});
	const id = body?.account_id;
	if (typeof id === 'string' && id !== '') return id;
	throw new NodeOperationError(
		context.getNode(),
		'The service answered GET /api/v1/account without an account_id',
		{
			description:
				"The Polling Trigger remembers what it has emitted per account, by the account_id the service gives for the credential's API key. Check that the credential's Base URL is the address of the Transcription Service API itself, not of another service or of a proxy that changes its answers.",
		},
	);
}

function readSettings(context: IPollFunctions): Settings {
	const read: ReadParameter = (name, unset) => context.getNodeParameter(name, unset);
	const events = readField(read, properties, 'events');
	const statuses = POLLED_STATUSES.filter(
		(status) => Array.isArray(events) && events.includes(pollingEventType(status)),
	);
	if (statuses.length === 0) {
		throw new NodeOperationError(context.getNode(), 'Select at least one event', {
			description:
				'Events: Transcription Completed, Transcription Failed or Transcription Cancelled.',
		});
	}
	const options = context.getNodeParameter('options', {}) as IDataObject;
	const percent = Number(readOption(options, properties, 'options', 'rateLimitShare'));
	if (!Number.isFinite(percent) || percent <= 0 || percent > 100) {
		throw new NodeOperationError(
			context.getNode(),
			`"Share of Rate Limits (%)" must be above 0 and at most 100, not ${String(options.rateLimitShare)}`,
		);
	}
	return {
		statuses,
		share: percent / 100,
		artifact: readArtifactDownload(read),
	};
}
