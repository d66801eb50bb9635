// The figures the pages state about Pause Until Webhook, against timing.ts, where each is defined once: every phrase
// below is written from the numbers there, so a changed number fails here until the pages say the new one (as
// docs.test.ts does for field defaults). The figures of measurements (benchmarks, memory) are not the code's: they are
// not checked here.
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { optionsProperty } from '../../nodes/TranscriptionService/actions/transcription/transcribeAndDownload/parameters';
import type { PauseRecord } from '../../nodes/TranscriptionService/actions/transcription/transcribeAndDownload/pause-record';
import {
	ANSWERER_WAITS_MS,
	CHECK_LIFETIME_MS,
	CHECK_READ_POLICY,
	checkTimes,
	COLLECTION_MS,
	DEADLINE_RETRY_MS,
	DEADLINE_TRIES_MS,
	deadlineTimings,
	EVENT_LIMITS,
	EVENT_READ_POLICY,
	FIRST_CHECK_MS,
	LATER_FIRST_CHECK_MS,
	MAX_CHECK_INTERVAL_MS,
	MAX_LEDGERS,
	MAX_SETTLE_MS,
	MAX_USED_CHECKS,
	MIN_BACKSTOP_MS,
	READ_FAILED_RECHECK_MS,
	REQUEST_MARGIN,
	RESUME_WITHIN_AFTER_RESTART_MS,
	RESUME_WITHIN_MS,
	RETRY_FIRST_MS,
	RETRY_MAX_MS,
	SAVED_WITHIN_MS,
	SERVICE_WAITS_MS,
	SETTLE_MS,
	SETTLE_PER_DOWNLOAD_MS,
	SETTLE_RECHECK_MS,
} from '../../nodes/TranscriptionService/actions/transcription/transcribeAndDownload/timing';
import { DEFAULT_TOLERANCE_SECONDS } from '../../src/webhooks';

const ROOT = path.resolve(__dirname, '../..');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** A page's text with its line breaks and runs of spaces as single spaces, as a reader sees it. */
const text = (page: string) => readFileSync(path.join(ROOT, page), 'utf8').replace(/\s+/g, ' ');

/** "5 s", "90 s": how the pages write seconds. */
const s = (ms: number) => `${ms / 1000} s`;
/** "a second", "a minute", or the seconds. */
const spelled = (ms: number) => ({ 1_000: 'a second', 60_000: 'a minute' })[ms] ?? s(ms);
/** "2 minutes", "1 minute", "4½ minutes". */
const minutes = (ms: number) => {
	const count = ms / MINUTE;
	const written = Number.isInteger(count) ? String(count) : `${Math.floor(count)}½`;
	if (!Number.isInteger(count * 2)) throw new Error(`${ms} ms is no whole or half minute`);
	return `${written} ${count === 1 ? 'minute' : 'minutes'}`;
};
const WORDS = ['zero', 'one', 'two', 'three', 'four'];

/** The watcher's first checks (ms after it starts) in a long wait, for a first check after `firstInMs`. */
const firstChecks = (firstInMs: number) =>
	checkTimes({ startMs: 0, firstInMs, deadlineAtMs: HOUR, lastTryAtMs: HOUR }).slice(0, 4);
const pauser = firstChecks(FIRST_CHECK_MS);
const answerer = firstChecks(LATER_FIRST_CHECK_MS);
const longRunInterval = pauser[3] - pauser[2];

/** A check nobody answered is tried again after these waits (doubling) before they reach RETRY_MAX_MS. */
const retries: number[] = [];
for (let wait = RETRY_FIRST_MS; wait < RETRY_MAX_MS; wait *= 2) retries.push(wait);

/** n8n's own timeout after Max Wait, in minutes, for `items` items of `formats` formats each. */
const backstopMinutes = (items: number, formats: number) =>
	deadlineTimings(
		Array.from(
			{ length: items },
			(_, item) =>
				({
					item,
					job_id: `job_${item}`,
					formats: ['srt', 'txt', 'pdf', 'docx'].slice(0, formats),
				}) as PauseRecord,
		),
	).backstopMs / MINUTE;

const defaultMaxWaitMs =
	Number(
		(optionsProperty.options as Array<{ name: string; default: unknown }>).find(
			(option) => option.name === 'maxWaitSeconds',
		)?.default,
	) * 1000;
/** Bench P5's queue-mode worker: 64 pauses a minute, each ledger kept until Max Wait + twice the backstop. */
const ledgersAtP5 = 64 * ((defaultMaxWaitMs + 2 * MIN_BACKSTOP_MS) / MINUTE);
/** Downloads a check's settle covers before it reaches MAX_SETTLE_MS, in tens. */
const settleCoversAbout =
	Math.round((MAX_SETTLE_MS - SETTLE_MS) / SETTLE_PER_DOWNLOAD_MS / 10) * 10;

const FIGURES: Record<string, string[]> = {
	'docs/pause-until-webhook.md': [
		`plus one read per watcher check, at most ${s(MAX_CHECK_INTERVAL_MS)} apart`,
		`within ${minutes(RESUME_WITHIN_MS)} of the last job's end when that event is lost or never sent`,
		`after the service stops waiting (${s(SERVICE_WAITS_MS)};`,
		`${s(pauser[0])} after the pause, then ${s(pauser[1])} and ${s(pauser[2])} after it, and from then on every ${s(longRunInterval)}, however long the wait`,
		`(${s(SETTLE_MS)}, plus ${s(SETTLE_PER_DOWNLOAD_MS)} per transcript to download, at most ${s(MAX_SETTLE_MS)})`,
		`checks again ${spelled(SETTLE_RECHECK_MS)} after that time`,
		`resumes within ${minutes(RESUME_WITHIN_MS)} of the last end, whatever became of the events`,
		`at most one read of a running job per check, ${HOUR / MAX_CHECK_INTERVAL_MS} an hour per watcher`,
		`A check whose reads failed (429, 5xx) is tried again ${s(READ_FAILED_RECHECK_MS)} later`,
		`(first check after ${s(answerer[0])}, then every ${s(answerer[1] - answerer[0])})`,
		`leave the resume to the pausing process's for ${minutes(ANSWERER_WAITS_MS)} more`,
		`the batch resumes within ${minutes(RESUME_WITHIN_AFTER_RESTART_MS)} of its last job's end`,
		`only ${spelled(SAVED_WITHIN_MS)} after the pause`,
		`is tried again ${s(retries[0])} later, then ${retries
			.slice(1)
			.map((ms) => ms / 1000)
			.join(', ')} s and at most ${spelled(RETRY_MAX_MS)} apart`,
		`valid for ${spelled(CHECK_LIFETIME_MS)} either side of its signing`,
		`the service's ±${DEFAULT_TOLERANCE_SECONDS} s`,
		`any number of answers for ${DEFAULT_TOLERANCE_SECONDS} s`,
		`Each process remembers at most ${MAX_USED_CHECKS.toLocaleString('en-US')} checks`,
		`at most ${MAX_LEDGERS.toLocaleString('en-US')} per process`,
		`about ${ledgersAtP5.toLocaleString('en-US')} at bench P5's 64 pauses a minute`,
		`while jobs remain unread, the next ${s(DEADLINE_RETRY_MS)} later`,
		`The tries last ${minutes(DEADLINE_TRIES_MS)} plus, per job, ${WORDS[REQUEST_MARGIN]} status reads' time`,
		`the collection gets ${minutes(COLLECTION_MS)} plus ${WORDS[REQUEST_MARGIN]} requests' time per status read and per download`,
		`a request's time is ${s(SETTLE_PER_DOWNLOAD_MS)}, the lowest tier's rate (${MINUTE / SETTLE_PER_DOWNLOAD_MS} a minute)`,
		`In whole minutes and at least ${MIN_BACKSTOP_MS / MINUTE}: ${backstopMinutes(3, 2)} minutes for a few items, ${backstopMinutes(30, 4)} for 30 items × 4 formats, ${backstopMinutes(100, 4)} for 100 × 4`,
		`a check leaves a recent end to its event for ${s(MAX_SETTLE_MS)} at most`,
		`more than about ${settleCoversAbout} transcripts to download`,
		`(${MINUTE / SETTLE_PER_DOWNLOAD_MS} downloads a minute): a check reaching another processor after those ${s(MAX_SETTLE_MS)}`,
		`(a webhook processor's, at most ${s(MAX_CHECK_INTERVAL_MS)} apart)`,
		`${WORDS[EVENT_READ_POLICY.maxAttempts]} attempts of ${s(EVENT_READ_POLICY.attemptTimeoutMs as number)} each, at most ${s(EVENT_READ_POLICY.maxRateLimitWaitMs)} waiting for the rate limit, none begun after ${s(EVENT_LIMITS.readsMs)} — so that its answer always goes out inside the service's ${s(SERVICE_WAITS_MS)}`,
		`(at most ${s(MAX_CHECK_INTERVAL_MS)} apart), whose reads are patient (${s(CHECK_READ_POLICY.attemptTimeoutMs as number)} attempts, ${s(CHECK_READ_POLICY.maxRateLimitWaitMs)} of pacing)`,
	],
	'README.md': [
		`checks ${s(pauser[0])}, ${s(pauser[1])}, ${s(pauser[2])} after the pause, then every ${s(longRunInterval)}`,
		`the execution resumes within ${minutes(RESUME_WITHIN_MS)} of the last job's end`,
		`n8n's own timeout, ${MIN_BACKSTOP_MS / MINUTE} min after *Max Wait (Seconds)*, more for large batches`,
	],
	'docs/benchmarks.md': [
		`${s(pauser[0])}, ${s(pauser[1])}, ${s(pauser[2])} after the pause, then every ${s(longRunInterval)}, so that a batch whose last event is lost or whose last job is cancelled still resumes within ${minutes(RESUME_WITHIN_MS)}`,
		`${HOUR / MAX_CHECK_INTERVAL_MS} an hour once the wait is long`,
	],
	'docs/reliability.md': [
		`with every watcher checking at most ${s(MAX_CHECK_INTERVAL_MS)} apart`,
		`process's for ${minutes(ANSWERER_WAITS_MS)} more`,
	],
	'docs/limits-and-retries.md': [
		`${s(EVENT_READ_POLICY.attemptTimeoutMs as number)} for the status reads that answer a service event at a Pause Until Webhook resume URL, ${s(CHECK_READ_POLICY.attemptTimeoutMs as number)} for those that answer the node's own check`,
	],
};

describe("the pages' figures of Pause Until Webhook are timing.ts's", () => {
	it.each(Object.entries(FIGURES))('%s', (page, figures) => {
		const said = text(page);
		expect(figures.filter((figure) => !said.includes(figure))).toEqual([]);
	});
});
