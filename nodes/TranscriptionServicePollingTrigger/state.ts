// What the Polling Trigger stores in the node's static data between polls, and the parser that reads it back. Static
// data is user-editable JSON: anything unexpected means "start from now", never a guess.
import type { ListPosition } from '../../src/client';
import { isPolledStatus, type PolledStatus } from './list';

/**
 * The shape of the stored state: 1, the shape the first release ships (no earlier one was ever published). A state of
 * another version is unreadable and the trigger starts from now; once the package is released, a change of shape
 * comes with a migration.
 */
const STATE_VERSION = 1;

// Every collection stored is bounded, whatever the service answers (a page holds at most the limit asked for,
// src/client/pagination.ts): per account at most RECENT_LIMIT + MAX_PENDING = 16,000 job entries, each its job_id and
// a time (`recent`: id + 19 bytes of JSON; `pending`: id + 32). With the sandbox's 28-character ids that is at most
// ~800 KB per account, with ids of the longest the pack accepts (256) ~4.5 MB, and MAX_ACCOUNTS times that in all; in
// practice an account's state holds what was emitted within the overlap (a few KB; 470 KB right after a burst of 10,000
// jobs, bench P6). A bound never drops a job: what does not fit waits.

/**
 * Accounted jobs kept at or after the cutoff, to make the overlap exact: every job emitted within the overlap, so a
 * burst of up to this many completions drains at the account's pace. When a backlog has filled it, emitting a job that
 * would join it waits until the cutoff has risen (cutoff.ts, Cutoff.admits): slower, never a job lost — unless more
 * than this many jobs share one updated_at to the millisecond, which the cutoff cannot pass one by one.
 */
export const RECENT_LIMIT = 15_000;
/**
 * Found jobs a poll keeps, the ones it emits included; the rest wait for the next polls, oldest kept. The ones beyond
 * are not lost: the count still owes them, the cutoff stays below them, and a later poll's search finds them again.
 */
export const MAX_PENDING = 1000;
/**
 * Accounts whose state is kept: the one polled now and the four polled last before it. A credential normally stays on
 * one account; a switch is to a test or staging account, a colleague's key, and back. Five covers going back and forth
 * among a handful while static data stays within five times one account's bound (a quiet account's state is a few
 * hundred bytes). An account beyond them starts from now when polled again.
 */
export const MAX_ACCOUNTS = 5;

export interface StatusState {
	/** Jobs in this status accounted for: listed at its first poll, or emitted since. */
	known: number;
	/**
	 * Service time (ms) this status starts from: the end of the second its first poll's answer was given in (the Date
	 * header's), after every job that answer counted. Jobs that reached the status earlier are never emitted.
	 */
	since: number;
	/**
	 * Every job in this status that the service counts, not accounted for and not in `pending`, has an updated_at at or
	 * after this (ms, the service's clock): the jobs a search had not found yet, or that were listed after a moment the
	 * trigger had explained the whole count — by then at most OVERLAP_MS old (cutoff.ts). Raised when the count is
	 * explained or a search has read the whole list, never above a job a poll found and could not keep; the cutoff
	 * never goes below it.
	 */
	clear: number;
	/** A search not finished within one poll. */
	scan?: ScanState;
	/** Jobs found but left for the next poll (more than one poll emits): [job_id, updated_at as listed]. */
	pending?: Array<[string, string]>;
}

/** Where the search of a status's list stands (ListPosition: front, back, total), and its current pass. */
export interface ScanState extends ListPosition {
	/**
	 * The current pass over the list: its total and the service time (ms) when it began, -1 until the next first page
	 * begins it. Jobs found later and dated after the beginning (+ the clock's resolution, `passBand`) joined the list
	 * during the pass (`newcomers`).
	 */
	passTotal: number;
	passDate: number;
	passBand: number;
	newcomers: number;
	/**
	 * A time (ms) the service's clock had certainly reached when the pass began: its Date, or without one the latest
	 * updated_at on that first page. Every job not listed then is dated at most OVERLAP_MS before it.
	 */
	passFloor: number;
	/** Found jobs this pass's polls could not keep (MAX_PENDING), and the earliest updated_at (ms) among them. */
	dropped: number;
	droppedFrom: number;
}

/** What the trigger knows of one account's jobs. */
export interface AccountState {
	/**
	 * The account the state belongs to: account_id from GET /account (spec 4.1). A new API key or a differently spelt
	 * Base URL for the same account carries on from here.
	 */
	account: string;
	/**
	 * The credential (Base URL and API key, as a fingerprint) last seen to belong to `account`: while it stays the same,
	 * a poll knows the account without asking.
	 */
	credential: string;
	statuses: Partial<Record<PolledStatus, StatusState>>;
	/** updated_at (ms) of the latest emitted job, never beyond the service's clock. */
	latest: number;
	/**
	 * `latest` as of the last poll that ended with nothing owed; the cutoff trails it by OVERLAP_MS. While a job is
	 * owed (a search goes on, jobs wait for the next poll) it stays put, so newer jobs emitted meanwhile cannot move
	 * the cutoff past a job not found yet.
	 */
	watermark: number;
	/** Which status searches first in the next poll (they take turns across polls too). */
	turn: number;
	/** Accounted jobs at or after their status's cutoff, per status: [job_id, updated_at ms], oldest first. */
	recent: Partial<Record<PolledStatus, Array<[string, number]>>>;
}

/** What the node stores: the state of the account polled last, and of those polled before it. */
export interface PollState extends AccountState {
	version: typeof STATE_VERSION;
	/** The accounts polled before, most recently polled first, at most MAX_ACCOUNTS − 1; absent when none. */
	others?: AccountState[];
}

/** The state of an account the trigger has not polled yet. */
export function newState(account: string, credential: string): AccountState {
	return {
		account,
		credential,
		statuses: {},
		latest: 0,
		watermark: 0,
		turn: 0,
		recent: {},
	};
}

/** A new pass over the whole list begins at its next first page. */
export function newScan(front: number, total: number): ScanState {
	return {
		front,
		back: 0,
		total,
		passTotal: -1,
		passDate: 0,
		passBand: 0,
		newcomers: 0,
		passFloor: 0,
		dropped: 0,
		droppedFrom: 0,
	};
}

/** What the node stores: `current` (the account just polled) first, then the others in the order they were polled. */
export function storedState(current: AccountState, others: AccountState[]): PollState {
	return { version: STATE_VERSION, ...current, ...(others.length > 0 ? { others } : {}) };
}

/**
 * The account a kept state says `credential` belongs to, without reading the rest; undefined when none says (no state,
 * a credential not seen).
 */
export function storedAccount(stored: unknown, credential: string): string | undefined {
	if (!isRecord(stored) || stored.version !== STATE_VERSION) return undefined;
	const others = Array.isArray(stored.others) ? (stored.others as unknown[]) : [];
	for (const entry of [stored, ...others]) {
		if (!isRecord(entry) || entry.credential !== credential) continue;
		const { account } = entry;
		if (typeof account === 'string' && account !== '') return account;
	}
	return undefined;
}

export function parseState(stored: unknown): PollState | undefined {
	const states = parseStates(stored);
	return states && storedState(states[0], states.slice(1));
}

/** The account states a stored state keeps, the account polled last first; undefined when it is unreadable. */
export function parseStates(stored: unknown): AccountState[] | undefined {
	if (!isRecord(stored)) return undefined;
	const { version, others } = stored;
	if (version !== STATE_VERSION) return undefined;
	const current = parseAccountState(stored);
	if (!current) return undefined;
	if (others === undefined) return [current];
	if (!Array.isArray(others)) return undefined;
	const states = [current];
	for (const entry of (others as unknown[]).slice(0, MAX_ACCOUNTS - 1)) {
		const state = parseAccountState(entry);
		if (!state) return undefined;
		states.push(state);
	}
	return states;
}

function parseAccountState(value: unknown): AccountState | undefined {
	if (!isRecord(value)) return undefined;
	const { account, credential } = value;
	if (typeof credential !== 'string') return undefined;
	if (typeof account !== 'string' || account === '') return undefined;
	if (!isTime(value.latest) || !isTime(value.watermark)) return undefined;
	if (!isCount(value.turn)) return undefined;
	if (!isRecord(value.statuses)) return undefined;
	const statuses: AccountState['statuses'] = {};
	for (const [status, entry] of Object.entries(value.statuses)) {
		if (!isPolledStatus(status)) return undefined;
		const parsed = parseStatusState(entry);
		if (!parsed) return undefined;
		statuses[status] = parsed;
	}
	if (!isRecord(value.recent) || Array.isArray(value.recent)) return undefined;
	const recent: AccountState['recent'] = {};
	for (const [status, entries] of Object.entries(value.recent)) {
		if (!isPolledStatus(status) || !Array.isArray(entries)) return undefined;
		const parsed: Array<[string, number]> = [];
		for (const entry of entries as unknown[]) {
			if (!Array.isArray(entry) || typeof entry[0] !== 'string' || !isTime(entry[1]))
				return undefined;
			parsed.push([entry[0], entry[1]]);
		}
		recent[status] = parsed;
	}
	return {
		account,
		credential,
		statuses,
		latest: value.latest,
		watermark: value.watermark,
		turn: value.turn,
		recent,
	};
}

function parseStatusState(entry: unknown): StatusState | undefined {
	if (typeof entry !== 'object' || entry === null) return undefined;
	const { known, since, clear, scan } = entry as Record<string, unknown>;
	if (!isCount(known) || !isTime(since) || !isTime(clear)) return undefined;
	const state: StatusState = { known, since, clear };
	const { pending } = entry as Record<string, unknown>;
	if (pending !== undefined) {
		const parsed = parsePairs(pending);
		if (!parsed) return undefined;
		state.pending = parsed;
	}
	if (scan !== undefined) {
		const parsed = parseScan(scan);
		if (!parsed) return undefined;
		state.scan = parsed;
	}
	return state;
}

function parseScan(scan: unknown): ScanState | undefined {
	if (typeof scan !== 'object' || scan === null) return undefined;
	const value = scan as Record<string, unknown>;
	const counts = ['front', 'back', 'total', 'newcomers', 'dropped'] as const;
	if (!counts.every((name) => isCount(value[name]))) return undefined;
	const { passTotal, passDate, passBand, passFloor, droppedFrom } = value;
	if (typeof passTotal !== 'number' || !Number.isInteger(passTotal) || passTotal < -1)
		return undefined;
	if (!isTime(passDate) || !isTime(passBand) || !isTime(passFloor) || !isTime(droppedFrom))
		return undefined;
	return {
		front: value.front as number,
		back: value.back as number,
		total: value.total as number,
		passTotal,
		passDate,
		passBand,
		newcomers: value.newcomers as number,
		passFloor,
		dropped: value.dropped as number,
		droppedFrom,
	};
}

/** [job_id, updated_at] pairs with a parseable time. */
function parsePairs(value: unknown): Array<[string, string]> | undefined {
	if (!Array.isArray(value)) return undefined;
	const pairs: Array<[string, string]> = [];
	for (const entry of value as unknown[]) {
		if (!Array.isArray(entry) || typeof entry[0] !== 'string' || typeof entry[1] !== 'string') {
			return undefined;
		}
		if (!Number.isFinite(Date.parse(entry[1]))) return undefined;
		pairs.push([entry[0], entry[1]]);
	}
	return pairs;
}

function isCount(value: unknown): value is number {
	return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

function isTime(value: unknown): value is number {
	return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null;
}
