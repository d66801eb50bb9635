// Transcribe and Download, Wait Mode "Pause Until Webhook" (issues 10 and 17), in n8n-core's engine with n8n's own
// waiting-webhook steps (waiting-harness.ts) and the sandbox delivering real signed events to the resume URL; the
// node's watcher sends its signed checks to the same URL. The service retries a failed delivery after 3 s and 27 s
// here (timeScale 0.05); the runs and their helpers are support/engine/paused-runs.ts's.
// This file: the node's own checks are signed with its own key, not the service's signing secret, and each is answered
// once.
import { useControlledClock } from '../support/clock/controlled-clock';
import { useEngineSandbox } from '../support/engine/engine-sandbox';
import {
	eventCalls,
	FILES,
	mediaItems,
	post,
	transcribe,
	until,
	within,
	usePausedRuns,
	PAUSED_RUNS_SANDBOX,
} from '../support/engine/paused-runs';
import type { PausedRun } from '../support/engine/waiting-harness';

const clock = useControlledClock();
const env = useEngineSandbox({ ...PAUSED_RUNS_SANDBOX, clock });
const { statusRequests, pauseHeld } = usePausedRuns(env);

describe("the checks are the node's own: they do not depend on the service's signing secret", () => {
	it('the signing secret rotated mid-pause, the credential updated and its previous secret cleared: the deadline check still resumes, with the transcript of the job that completed', async () => {
		const maxWaitSeconds = 12;
		const { run, accountId, jobIds } = await pauseHeld({
			parameters: transcribe('pauseUntilWebhook', { options: { maxWaitSeconds } }),
			input: await mediaItems(FILES.slice(0, 2)),
		});
		await env.admin.completeJob(jobIds[0]);
		await until('the first event answered', () =>
			eventCalls(run).find((call) => call.status === 200),
		);
		// Rotation: the service signs with the new secret at once; the user updates the credential and, as its help
		// says once rotation is done, clears Previous Signing Secret.
		const rotated = `whsec_rotated_${Date.now()}`;
		await env.admin.updateAccount(accountId, { signing_secret: rotated });
		run.updateCredentials({ signingSecret: rotated, previousSigningSecret: '' });

		await within(run.finished(), 60_000);
		expect(run.errors).toEqual([]);
		const checks = run.calls.filter((call) => call.kind === 'check');
		expect(checks.filter((call) => call.status === 401)).toEqual([]);
		expect(run.calls.find((call) => call.resumed)).toMatchObject({ kind: 'check', status: 200 });
		const [completed, running] = run.output();
		expect([completed.json.job_id, completed.json.status]).toEqual([jobIds[0], 'completed']);
		expect(Object.keys(completed.binary ?? {}).sort()).toEqual(['srt', 'txt']);
		expect(running.json.error).toMatchObject({ code: 'max_wait_exceeded', job_id: jobIds[1] });
		await env.admin.releaseJob(jobIds[1]);
	}, 90_000);
});

describe('a check is answered once: a captured one cannot be replayed', () => {
	const REPLAYED = { status: 401, body: { error: 'check_replayed' } };
	const firstCheckAnswered = (run: PausedRun) =>
		until('the first check answered', () =>
			run.calls.find((call) => call.kind === 'check' && call.status === 200),
		);

	it('the same check posted 10 times more: each refused 401 check_replayed, not one status read', async () => {
		const { run, jobIds } = await pauseHeld({
			parameters: transcribe('pauseUntilWebhook'),
			input: await mediaItems([FILES[0]]),
		});
		const captured = await firstCheckAnswered(run);
		expect(captured.response).toMatchObject({ pause_check: 'waiting' });
		const readsBefore = statusRequests().length;
		const replays = [];
		for (let replay = 0; replay < 10; replay++)
			replays.push(await post(run.resumeUrl, captured.sent!));
		expect(replays).toEqual(Array.from({ length: 10 }, () => REPLAYED));
		expect(statusRequests()).toHaveLength(readsBefore);

		await env.admin.completeJob(jobIds[0]);
		await within(run.finished());
		expect(run.output()[0].json.status).toBe('completed');
	});

	it('across processes, as far as n8n lets the node know: answered once more by each other process, never again', async () => {
		const { run, jobIds } = await pauseHeld({
			parameters: transcribe('pauseUntilWebhook'),
			input: await mediaItems([FILES[0]]),
			processors: 2,
		});
		// The node's own checks reach processor 0; the replays then go to processor 1, which has not seen the check.
		let checksTo = 0;
		run.route = (_callIndex, kind) => (kind === 'check' ? checksTo : 0);
		const captured = await firstCheckAnswered(run);
		expect(captured.servedBy).toBe(0);
		checksTo = 1;
		const onceMore = await post(run.resumeUrl, captured.sent!);
		expect(onceMore).toEqual({
			status: 200,
			body: { received: true, waiting_for: 1, pause_check: 'waiting' },
		});
		expect(await post(run.resumeUrl, captured.sent!)).toEqual(REPLAYED);
		checksTo = 0;
		expect(await post(run.resumeUrl, captured.sent!)).toEqual(REPLAYED);

		await env.admin.completeJob(jobIds[0]);
		await within(run.finished());
		expect(run.output()[0].json.status).toBe('completed');
	});
});
