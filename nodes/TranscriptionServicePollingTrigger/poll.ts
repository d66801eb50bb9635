// One poll in n8n: reads the node's settings and static data, makes the requests the PollSession (session.ts) asks
// for, stores the new state and builds the items. n8n saves static data when a poll emits (and after the first poll
// of an activation), and the state stored with the emitted jobs marks them accounted for, so a job emitted before a
// restart is not emitted after it.
import { createHash } from 'crypto';
import {
	NodeApiError,
	NodeOperationError,
	type IDataObject,
	type INodeExecutionData,
	type IPollFunctions,
} from 'n8n-workflow';

import type { PublicAccountResponse } from '../../src/api';
import { DEFAULT_RETRY_POLICY } from '../../src/client';
import { itemErrorOf } from '../shared/errors';
import {
	readArtifactDownload,
	readField,
	readOption,
	type ArtifactDownload,
	type ReadParameter,
} from '../shared/event-properties';
import { requestListPage, type ListAnswer } from '../shared/job-list';
import { TranscriptionServiceClient } from '../shared/transport';
import { pollingEventType } from '../shared/vocabulary';
import { properties } from './description';
import { jobItems } from './items';
import { POLLED_STATUSES, type PolledStatus } from './list';
import { NewestJobSearch } from './fetch-test-event';
import { PollSession } from './session';
import { storedAccount } from './state';

/** A poll waits out a short rate-limit window; a longer one ends the poll, and the next one goes on from there. */
const POLL_RETRY_POLICY = { ...DEFAULT_RETRY_POLICY, maxRateLimitWaitMs: 20_000 };

/** Jobs one poll emits; with Download Artifact fewer, as each one is a download the poll waits for. */
const MAX_ITEMS = 100;
const MAX_ITEMS_WITH_ARTIFACT = 25;

/**
 * n8n starts a poll on every tick of Poll Times without waiting for the previous one, so a slow poll (rate-limit
 * waits) would overlap the next and both would read the same state. One poll per workflow and node at a time in
 * this process; a tick that finds one running is skipped.
 */
const runningPolls = new Set<string>();

interface Settings {
	statuses: PolledStatus[];
	maxRequests: number;
	artifact: ArtifactDownload;
}

export async function poll(context: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	const settings = readSettings(context);
	const client = new TranscriptionServiceClient(context, POLL_RETRY_POLICY);
	if (context.getMode() === 'manual') return await fetchTestEvent(context, client, settings);

	const lockKey = `${context.getWorkflow().id ?? ''}:${context.getNode().id}`;
	if (runningPolls.has(lockKey)) {
		context.logger.debug(
			'Transcription Service Polling Trigger: the previous poll is still running',
		);
		return null;
	}
	runningPolls.add(lockKey);
	try {
		return await pollOnce(context, client, settings);
	} finally {
		runningPolls.delete(lockKey);
	}
}

async function pollOnce(
	context: IPollFunctions,
	client: TranscriptionServiceClient,
	settings: Settings,
): Promise<INodeExecutionData[][] | null> {
	const staticData = context.getWorkflowStaticData('node');
	const name = context.getNode().name;
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
			return null;
		}
	}
	const session = new PollSession(
		staticData.poll,
		{
			statuses: settings.statuses,
			maxRequests: settings.maxRequests,
			maxItems: settings.artifact.download ? MAX_ITEMS_WITH_ARTIFACT : MAX_ITEMS,
			account,
			credential,
		},
		Date.now(),
	);
	// With no state at all this is the first activation: a failure there fails the activation, with its reason.
	const firstActivation = !session.hasHistory;
	let stoppedBy: Error | undefined;
	for (let request = session.next(); request; request = session.next()) {
		let answer: ListAnswer;
		try {
			answer = await requestListPage(client, request);
		} catch (error) {
			if (firstActivation || !isTransient(error)) throw asNodeError(context, error);
			stoppedBy = error as Error;
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
	staticData.poll = outcome.state;

	for (const note of outcome.notes) context.logger.warn(`${name}: ${note}`);
	if (stoppedBy) {
		context.logger.warn(
			`${name}: the poll stopped after ${outcome.requests} request(s) (${stoppedBy.message}); the next poll goes on from there`,
		);
	}
	context.logger.debug(
		`${name}: ${outcome.requests} request(s), ${outcome.emit.length} job(s) emitted${
			outcome.deferred ? `, ${outcome.deferred} left for the next poll` : ''
		}${outcome.searching.length ? `, still searching ${outcome.searching.join(', ')}` : ''}`,
	);
	if (outcome.emit.length === 0) return null;
	return [await jobItems(context, outcome.emit, settings.artifact, Date.now())];
}

/** Fetch Test Event: the newest job in a selected state, with nothing stored (n8n's polling triggers do the same). */
async function fetchTestEvent(
	context: IPollFunctions,
	client: TranscriptionServiceClient,
	settings: Settings,
): Promise<INodeExecutionData[][] | null> {
	const search = new NewestJobSearch(settings.statuses, settings.maxRequests);
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

function asNodeError(context: IPollFunctions, error: unknown): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	return new NodeOperationError(context.getNode(), error as Error);
}

/** What waiting fixes: the next poll goes on. Anything else (a revoked key, a bad Base URL) is the user's to fix. */
function isTransient(error: unknown): boolean {
	const fields = itemErrorOf(error);
	if (!fields) return false;
	if (fields.code === 'rate_limit_exceeded' || fields.code === 'network_error') return true;
	const status = fields.http_status ?? 0;
	return status === 408 || status === 429 || status >= 500;
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
	const maxRequests = Math.floor(Number(readOption(options, properties, 'options', 'maxRequests')));
	// The first page of each selected status is read every poll; a search needs at least one more request.
	if (!Number.isFinite(maxRequests) || maxRequests < statuses.length + 1) {
		throw new NodeOperationError(
			context.getNode(),
			`"Max Requests per Poll" must be at least ${statuses.length + 1}: one request per selected event and one to search further`,
		);
	}
	return {
		statuses,
		maxRequests,
		artifact: readArtifactDownload(read),
	};
}
