// Transcribe and Download, Wait Mode "Pause Until Webhook" (issues 10 and 17), in n8n-core's engine with n8n's own
// waiting-webhook steps (waiting-harness.ts) and the sandbox delivering real signed events to the resume URL; the
// node's watcher sends its signed checks to the same URL. The service retries a failed delivery after 3 s and 27 s
// here (timeScale 0.05); the runs and their helpers are support/engine/paused-runs.ts's.
// This file: the events reach another process than the one that paused (a restart, queue mode's webhook processors).
import { useControlledClock } from '../support/clock/controlled-clock';
import { useEngineSandbox } from '../support/engine/engine-sandbox';
import {
	eventCalls,
	expectLeftToTheEvent,
	FILES,
	mediaItems,
	transcribe,
	until,
	within,
	usePausedRuns,
	PAUSED_RUNS_SANDBOX,
} from '../support/engine/paused-runs';

const clock = useControlledClock();
const env = useEngineSandbox({ ...PAUSED_RUNS_SANDBOX, clock });
const {
	freshAccount,
	pause,
	statusRequests,
	artifactRequests,
	pauseHeld,
	completeJobs,
	expectThreeCollectedOnce,
} = usePausedRuns(env);

describe('another process receives the events (restart, queue-mode webhook processor)', () => {
	it('reads the jobs it has heard nothing of, older first, and resumes once', async () => {
		const { credentials } = await freshAccount();
		const run = await pause({
			parameters: transcribe('pauseUntilWebhook'),
			input: await mediaItems(FILES.slice(0, 2)),
			credentials,
		});
		run.otherProcess = true;
		await within(run.finished());
		expect(run.errors).toEqual([]);
		expect(run.calls.filter((call) => call.resumed)).toHaveLength(1);
		expect(run.output().map((item) => item.json.status)).toEqual(['completed', 'completed']);
		expect(statusRequests().length).toBeLessThanOrEqual(2 * 2);
	});

	it('answers 503, not 200, while status reads fail, and resumes with both transcripts once they work again', async () => {
		const { run, jobIds } = await pauseHeld({
			parameters: transcribe('pauseUntilWebhook'),
			input: await mediaItems(FILES.slice(0, 2)),
		});
		run.otherProcess = true;
		await env.admin.setFaults({ rules: [{ route: 'getTranscription', kind: '503' }] });
		await completeJobs(jobIds);
		// Each event reaches a process that knows only that event's job: it must read the other one, and cannot.
		const refused = await until('an event of each job answered 503', async () => {
			const deliveries = (await env.admin.webhookDeliveries()).filter(
				(delivery) => delivery.status_code === 503,
			);
			const each = jobIds.map((id) => deliveries.find((delivery) => delivery.body.includes(id)));
			return each.every(Boolean) ? each : undefined;
		});
		expect(refused.map((delivery) => delivery!.outcome)).toEqual([
			'retry_scheduled',
			'retry_scheduled',
		]);
		// Not one 200 while the reads fail.
		const whileFailing = eventCalls(run);
		expect(whileFailing.length).toBeGreaterThanOrEqual(2);
		for (const call of whileFailing) {
			expect([call.status, call.response]).toEqual([503, { error: 'status_unavailable' }]);
		}
		expect(run.status).toBe('waiting');
		await env.admin.clearFaults();

		// The service delivers them again (3 s, then 27 s later), or a check comes first (5 s, 20 s after the pause).
		await within(run.finished(), 60_000);
		expect(run.errors).toEqual([]);
		expect(run.calls.filter((call) => call.resumed)).toHaveLength(1);
		expect(run.output().map((item) => [item.json.job_id, item.json.status])).toEqual([
			[jobIds[0], 'completed'],
			[jobIds[1], 'completed'],
		]);
	}, 90_000);
});

describe('two webhook processors (queue mode): one resume, one download per artifact', () => {
	it('events that arrive together at both processors resume the execution once', async () => {
		const { run, jobIds } = await pauseHeld({
			parameters: transcribe('pauseUntilWebhook'),
			input: await mediaItems([...FILES, 'fourth.wav']),
			processors: 2,
		});
		await completeJobs(jobIds);

		await within(run.finished());
		await env.admin.webhookDeliveries({ waitIdle: true });
		expect(run.errors).toEqual([]);
		expect(run.calls.filter((call) => call.resumed)).toHaveLength(1);
		const events = eventCalls(run);
		expect(events).toHaveLength(4);
		expect(new Set(events.map((call) => call.servedBy))).toEqual(new Set([0, 1]));
		expect(events.every((call) => call.status === 200)).toBe(true);
		expect(run.output().map((item) => item.json.status)).toEqual([
			'completed',
			'completed',
			'completed',
			'completed',
		]);
		// 4 items × SRT and TXT, each downloaded once.
		expect(artifactRequests()).toHaveLength(4 * 2);
		expect(statusRequests().length).toBeLessThanOrEqual(2 * 4);
	});

	it("a check that reaches the other processor while the resume's downloads run starts no second collection", async () => {
		const { run, jobIds } = await pauseHeld({
			parameters: transcribe('pauseUntilWebhook'),
			input: await mediaItems(),
			processors: 2,
		});
		// The events reach processor 0, the node's own checks processor 1 (a router's turns can send them anywhere).
		run.route = (_callIndex, kind) => (kind === 'event' ? 0 : 1);
		// Every download takes 6 s: the collection on processor 0 still runs when the first check comes, 5 s after the
		// pause.
		await env.admin.setFaults({
			rules: [{ route: 'getTranscriptionArtifactByExtension', kind: 'latency', latency_ms: 6000 }],
		});
		await completeJobs(jobIds);

		await within(run.finished());
		const check = await until('the first check answered', () =>
			run.calls.find((call) => call.kind === 'check'),
		);
		expect(run.calls.filter((call) => call.resumed).map((call) => call.kind)).toEqual(['event']);
		expect(run.calls.filter((call) => call.secondResume)).toEqual([]);
		// Every job has ended, the last one seconds ago: the check leaves the resume to its event for a while.
		expectLeftToTheEvent(check);
		expectThreeCollectedOnce(run);
	}, 60_000);

	it("the deadline check that reaches the other processor while the last event's resume downloads starts no second collection", async () => {
		const { run, jobIds } = await pauseHeld({
			parameters: transcribe('pauseUntilWebhook', { options: { maxWaitSeconds: 8 } }),
			input: await mediaItems(),
			processors: 2,
		});
		run.route = (_callIndex, kind) => (kind === 'event' ? 0 : 1);
		// Every download takes 15 s: the last event's collection on processor 0 still runs at Max Wait, 8 s after the
		// pause, when the deadline check (the first check: none comes within 5 s of Max Wait) reaches processor 1.
		await env.admin.setFaults({
			rules: [
				{ route: 'getTranscriptionArtifactByExtension', kind: 'latency', latency_ms: 15_000 },
			],
		});
		await completeJobs(jobIds);

		await within(run.finished());
		// The pauser's watcher and processor 0's (it answered events without resuming) both send it at Max Wait.
		const checks = await until('both deadline checks answered', () => {
			const answered = run.calls.filter((call) => call.kind === 'check');
			return answered.length >= 2 ? answered : undefined;
		});
		expect(run.calls.filter((call) => call.resumed).map((call) => call.kind)).toEqual(['event']);
		expect(run.calls.filter((call) => call.secondResume)).toEqual([]);
		expect(run.errors).toEqual([]);
		// Every job has ended, the last one seconds ago: the deadline check leaves the resume to its event for a while.
		for (const check of checks) expectLeftToTheEvent(check);
		expectThreeCollectedOnce(run);
	}, 60_000);
});
