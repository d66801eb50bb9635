// The Polling Trigger in a real n8n, active with the shortest poll that n8n accepts — every 5 seconds (a custom cron;
// n8n refuses a seconds field with "*"), or every minute on n8n 2.41, which refuses a shorter poll on activation — against
// its own sandbox and n8n (the suite's n8n cannot be restarted from a test file): history is not emitted, every job that
// completes or fails afterwards is emitted exactly once — one that completes after 100 newer ones too, and jobs that
// finish while n8n is down are emitted once after it starts again. Then the example examples/polling-save-transcripts.json,
// on the same poll, saves what completes and sets aside what fails. Every wait is counted in polls, so the test proves the
// same at either interval; at a minute it takes longer.
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';

import { pollEventId } from '../../nodes/TranscriptionServicePollingTrigger/items';
import { SandboxAdmin } from '../../sandbox/admin-client';
import { startEnvironment, type E2eEnvironment } from '../support/n8n/environment';
import { failureOf, nodeItems, serviceArtifact } from '../support/n8n/executions';
import { waitFor } from '../support/n8n/processes';
import type { ExecutionItem, ExecutionWithData } from '../support/n8n/rest';
import { createJob } from '../support/n8n/service-jobs';
import { suiteVersionId } from '../support/n8n/suite';
import { SHORTEST_POLL_SECONDS, WORK_DIR } from '../support/n8n/versions';
import {
	EXAMPLES,
	loadExample,
	loadFixture,
	relocate,
	type WorkflowJson,
} from '../support/n8n/workflows';

const WORKFLOW_ID = 'tssE2ePolling01';
const TRIGGER_NODE = 'Finished Transcriptions';
const versionId = suiteVersionId();
const POLL_SECONDS = SHORTEST_POLL_SECONDS[versionId];
/** Every 5 seconds as a custom cron, or n8n's own "Every Minute" where a minute is the shortest it takes. */
const POLL_TIMES = {
	item: [
		POLL_SECONDS === 60
			? { mode: 'everyMinute' }
			: { mode: 'custom', cronExpression: '0,5,10,15,20,25,30,35,40,45,50,55 * * * * *' },
	],
};
/**
 * Completed jobs a poll emits at the least when it downloads their artifacts: the activation's one round (later polls
 * drain at the account's pace, which this sandbox sets far above these jobs). A bound for the waits only.
 */
const EMITTED_PER_POLL_WITH_ARTIFACT = 25;

/** Time for `jobs` finished jobs to be emitted: the polls that carry them, the one that may tick before they end, slack. */
function emissionTimeoutMs(jobs: number): number {
	return Math.max(
		180_000,
		(Math.ceil(jobs / EMITTED_PER_POLL_WITH_ARTIFACT) + 2) * POLL_SECONDS * 1000,
	);
}

/** Jobs that finish after activation, before the restart: three held ones and the newer ones seeded between them. */
const NEWER_JOBS = 100;
const FINISHED_BEFORE_RESTART = 3 + NEWER_JOBS;

/** Two more polls after the last emission, so that a duplicate would have shown. */
const TWO_MORE_POLLS_MS = 2 * POLL_SECONDS * 1000 + 1000;

/** The fixture workflow and the example as a user imports it, polling at the shortest interval n8n accepts. */
function atShortestPoll(workflow: WorkflowJson): WorkflowJson {
	const trigger = workflow.nodes.find((node) => node.name === TRIGGER_NODE);
	if (!trigger) throw new Error(`${workflow.id} has no node "${TRIGGER_NODE}"`);
	trigger.parameters.pollTimes = POLL_TIMES;
	return workflow;
}

function pollingExample(filesFolder: string): WorkflowJson {
	return atShortestPoll(relocate(loadExample(EXAMPLES.polling), filesFolder));
}

let environment: E2eEnvironment;
let admin: SandboxAdmin;

beforeAll(async () => {
	environment = await startEnvironment({
		versionId,
		workDir: path.join(WORK_DIR, versionId, 'polling'),
		workflows: ({ filesFolder }) => [
			atShortestPoll(loadFixture('polling-trigger.json')),
			pollingExample(filesFolder),
		],
		activate: [],
	});
	admin = new SandboxAdmin(environment.sandbox.baseUrl);
	// Every emitted completed job is a download: room for all of them within the test.
	await admin.setRateLimits({ perTier: { premium: 10_000, platinum: 10_000 } });
}, 300_000);

afterAll(async () => {
	await environment?.stop();
});

/** A live job straight through the API, held so it finishes when the test says. */
async function heldJob(fileName: string): Promise<string> {
	const { baseUrl, keys } = environment.sandbox;
	const jobId = await createJob(baseUrl, keys.platinum_live.key, undefined, fileName);
	await admin.holdJob(jobId);
	return jobId;
}

interface Emitted {
	execution: string;
	item: ExecutionItem;
}

/** The workflow's finished executions, each checked to have succeeded. */
async function finishedExecutions(workflowId: string): Promise<ExecutionWithData[]> {
	const summaries = (await environment.api.executions(workflowId)).filter(
		(summary) => summary.stoppedAt !== null && summary.status !== 'running',
	);
	const executions = await Promise.all(
		summaries.map((summary) => environment.api.execution(summary.id)),
	);
	for (const execution of executions) expect(failureOf(execution)).toBeUndefined();
	return executions;
}

/** Every item the trigger emitted so far, over all of the workflow's finished executions. */
async function emitted(): Promise<Emitted[]> {
	return (await finishedExecutions(WORKFLOW_ID)).flatMap((execution) =>
		nodeItems(execution, TRIGGER_NODE).map((item) => ({ execution: execution.id, item })),
	);
}

/** What a node passed on over all of a workflow's executions; none where the node did not run. */
function itemsOf(executions: ExecutionWithData[], nodeName: string): ExecutionItem[] {
	return executions.flatMap((execution) =>
		execution.data.resultData.runData[nodeName] ? nodeItems(execution, nodeName) : [],
	);
}

/** Waits until every job in `jobIds` was emitted, then two more polls, so a duplicate would have shown. */
async function emittedOnce(jobIds: string[]): Promise<Emitted[]> {
	await waitFor(
		`executions emitting ${jobIds.length} jobs`,
		async () => {
			const seen = new Set((await emitted()).map(({ item }) => String(item.json.job_id)));
			return jobIds.every((jobId) => seen.has(jobId)) ? true : undefined;
		},
		{ timeoutMs: emissionTimeoutMs(jobIds.length), intervalMs: 1000 },
	);
	await new Promise((resolve) => setTimeout(resolve, TWO_MORE_POLLS_MS));
	return await emitted();
}

function countByJob(items: Emitted[]): Map<string, number> {
	const counts = new Map<string, number>();
	for (const { item } of items) {
		const jobId = String(item.json.job_id);
		counts.set(jobId, (counts.get(jobId) ?? 0) + 1);
	}
	return counts;
}

describe(`Transcription Service Polling Trigger in n8n ${versionId}`, () => {
	test(
		'emits each job that finishes after activation exactly once, across polls and a restart of n8n',
		async () => {
			const history = await admin.seedJobs({
				account_id: 'acct_sandbox_platinum',
				count: 150,
				filename: 'history.wav',
			});
			const [completes, fails, finishesLast, whileDown, failsWhileDown] = [
				await heldJob('standup.wav'),
				await heldJob('unreadable.wav'),
				await heldJob('long-interview.wav'),
				await heldJob('overnight.wav'),
				await heldJob('overnight-2.wav'),
			];
			await environment.api.activateWorkflow(WORKFLOW_ID);
			// Past the seconds around the activation, where the count alone tells old from new.
			await new Promise((resolve) => setTimeout(resolve, 3000));

			await admin.completeJob(completes);
			await admin.failJob(fails);
			const newer = await admin.seedJobs({
				account_id: 'acct_sandbox_platinum',
				count: NEWER_JOBS,
				filename: 'batch.wav',
			});
			await admin.completeJob(finishesLast);
			const before = [completes, fails, ...newer.job_ids, finishesLast];
			const beforeRestart = await emittedOnce(before);

			expect(countByJob(beforeRestart)).toEqual(new Map(before.map((jobId) => [jobId, 1])));
			const byJob = new Map(beforeRestart.map(({ item }) => [String(item.json.job_id), item]));
			expect(byJob.get(completes)!.json).toMatchObject({
				event: 'transcription.completed',
				event_id: pollEventId(completes, 'completed'),
				status: 'completed',
				links: {
					self: `${environment.sandbox.baseUrl}/api/v1/transcriptions/${completes}`,
					artifact: `${environment.sandbox.baseUrl}/api/v1/transcriptions/${completes}/artifact`,
				},
			});
			expect(Object.keys(byJob.get(completes)!.json).sort()).toEqual(
				['created_at', 'event', 'event_id', 'job_id', 'links', 'received_at', 'status'].sort(),
			);
			expect(byJob.get(completes)!.binary?.data).toMatchObject({
				fileName: 'standup.txt',
				mimeType: 'text/plain',
			});
			expect(byJob.get(fails)!.json).toMatchObject({
				event: 'transcription.failed',
				status: 'failed',
				links: { artifact: null },
			});
			expect(byJob.get(fails)!.binary).toBeUndefined();
			expect(history.job_ids.some((jobId) => byJob.has(jobId))).toBe(false);

			// n8n goes down; two jobs finish meanwhile; at start-up n8n activates the workflow, which polls at once.
			await environment.n8n.stop();
			await admin.completeJob(whileDown);
			await admin.failJob(failsWhileDown);
			await environment.n8n.start();
			const afterRestart = await emittedOnce([...before, whileDown, failsWhileDown]);

			expect(countByJob(afterRestart)).toEqual(
				new Map([...before, whileDown, failsWhileDown].map((jobId) => [jobId, 1])),
			);
		},
		emissionTimeoutMs(FINISHED_BEFORE_RESTART) +
			emissionTimeoutMs(FINISHED_BEFORE_RESTART + 2) +
			2 * TWO_MORE_POLLS_MS +
			300_000,
	);

	test(
		`the example ${EXAMPLES.polling} saves each completed transcript as DOCX and sets failed jobs aside`,
		async () => {
			const example = pollingExample(environment.filesFolder);
			// Write Files to Disk creates no folders: the README asks users to create this one too.
			await mkdir(path.join(environment.filesFolder, 'transcripts'), { recursive: true });
			const completes = await heldJob('board-meeting.wav');
			const fails = await heldJob('static.wav');
			await environment.api.activateWorkflow(example.id);
			await new Promise((resolve) => setTimeout(resolve, 3000));

			await admin.completeJob(completes);
			await admin.failJob(fails);
			const ended = async () => {
				const executions = await finishedExecutions(example.id);
				const seen = itemsOf(executions, TRIGGER_NODE).length;
				return seen >= 2 ? executions : undefined;
			};
			await waitFor(`the example emitting ${completes} and ${fails}`, ended, {
				timeoutMs: emissionTimeoutMs(2),
				intervalMs: 1000,
			});
			// Two more polls, so that a duplicate or an old job would have shown.
			await new Promise((resolve) => setTimeout(resolve, TWO_MORE_POLLS_MS));
			const executions = await finishedExecutions(example.id);

			const jobIdsOf = (nodeName: string) =>
				itemsOf(executions, nodeName).map((item) => String(item.json.job_id));
			expect(jobIdsOf(TRIGGER_NODE).sort()).toEqual([completes, fails].sort());
			expect(jobIdsOf('Save DOCX')).toEqual([completes]);
			expect(jobIdsOf('Needs Attention')).toEqual([fails]);
			const [failed] = itemsOf(executions, 'Needs Attention');
			expect(failed.json).toMatchObject({ event: 'transcription.failed', status: 'failed' });
			const onDisk = await readFile(
				path.join(environment.filesFolder, 'transcripts', `${completes}-board-meeting.docx`),
			);
			const artifact = await serviceArtifact(
				environment.sandbox.baseUrl,
				environment.sandbox.keys.platinum_live.key,
				completes,
				'docx',
			);
			expect(onDisk.equals(artifact)).toBe(true);
		},
		emissionTimeoutMs(2) + TWO_MORE_POLLS_MS + 120_000,
	);
});
