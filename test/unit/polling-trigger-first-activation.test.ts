// The Polling Trigger's first activation (nodes/TranscriptionServicePollingTrigger/session.ts), driven against a model
// of GET /transcriptions in every list order: it starts from the service's now, whatever n8n's clock says, and emits
// only what ends after. Right at where it starts, with a listing delay, with and without a Date header:
// polling-trigger-activation-boundary.test.ts.
import { DATE_RESOLUTION_MS } from '../../nodes/TranscriptionServicePollingTrigger/owed-count';
import { type PollState } from '../../nodes/TranscriptionServicePollingTrigger/state';
import {
	keys,
	MINUTE,
	SIM_ORDERS,
	SimService,
	SimTrigger,
	sorted,
} from '../support/fixtures/polling-sim';

describe.each(SIM_ORDERS)('list order %s', (order) => {
	describe('first activation', () => {
		test('starts from now: jobs already finished are never emitted, one request per selected status', () => {
			const service = new SimService(order);
			for (const job of service.create(250)) service.finish(job, 'completed');
			for (const job of service.create(30)) service.finish(job, 'failed');
			service.create(5); // still running
			service.advance(MINUTE);
			const trigger = new SimTrigger(service);

			const activation = trigger.activate();
			expect(activation.emit).toEqual([]);
			expect(activation.made.map((request) => [request.status, request.cursor])).toEqual([
				['completed', 0],
				['failed', 0],
			]);
			service.advance(MINUTE);
			const quiet = trigger.poll();
			expect(quiet.emit).toEqual([]);
			expect(quiet.requests).toBe(2);
			expect(trigger.emitted).toEqual([]);
		});

		test('a job that was running at activation is emitted when it completes', () => {
			const service = new SimService(order);
			for (const job of service.create(150)) service.finish(job, 'completed');
			const [running] = service.create(1);
			for (const job of service.create(150)) service.finish(job, 'completed');
			service.advance(MINUTE);
			const trigger = new SimTrigger(service);
			trigger.activate();

			service.advance(MINUTE);
			service.finish(running, 'completed');
			service.advance(MINUTE);
			trigger.pollUntilSettled();
			expect(trigger.emittedKeys()).toEqual([`completed:${running.job_id}`]);
		});

		test('jobs finished within seconds of the activation: before the end of its second never, after it each once', () => {
			const service = new SimService(order);
			const old = service.create(400);
			for (const job of old) service.finish(job, 'completed');
			const [lateOld, sameSecond, earlyNew, otherNew] = service.create(4);
			service.advance(30 * MINUTE);
			service.advance(1000 - (service.nowMs % 1000) + 600);
			// The oldest-created jobs finish just before activation (deep in a newest-first list) and just after it.
			service.finish(old[0], 'completed');
			service.finish(lateOld, 'completed');
			service.advance(100);
			const trigger = new SimTrigger(service);
			trigger.activate();
			service.advance(200);
			service.finish(sameSecond, 'completed');
			service.advance(300);
			service.finish(earlyNew, 'completed');
			service.advance(5_000);
			service.finish(otherNew, 'completed');
			service.advance(MINUTE);

			trigger.pollUntilSettled();
			expect(trigger.startsFrom()).toBeGreaterThan(sameSecond.updatedAtMs);
			expect(trigger.startsFrom()).toBeLessThanOrEqual(earlyNew.updatedAtMs);
			expect(sorted(trigger.emittedKeys())).toEqual(
				sorted(keys([earlyNew, otherNew], 'completed')),
			);
		});

		test('without a Date header it starts from its own clock, 30 s after the activation', () => {
			const service = new SimService(order);
			service.sendsDate = false;
			for (const job of service.create(120)) service.finish(job, 'completed');
			const [early, running] = service.create(2);
			service.advance(2 * MINUTE);
			const trigger = new SimTrigger(service);
			trigger.activate();
			service.advance(29_000);
			service.finish(early, 'completed');
			service.advance(2_000);
			service.finish(running, 'completed');
			service.advance(MINUTE);
			trigger.pollUntilSettled();
			expect(trigger.emittedKeys()).toEqual([`completed:${running.job_id}`]);
		});
	});
});

describe.each([
	['an hour ahead of', 60 * MINUTE],
	['an hour behind', -60 * MINUTE],
])("n8n's clock %s the service's (the service sends Date)", (_name, n8nClockAheadMs) => {
	test.each(SIM_ORDERS)(
		'order %s: starts from the service’s now, keeps the overlap on the service’s clock, each job once',
		(order) => {
			const service = new SimService(order);
			for (const job of service.create(300)) service.finish(job, 'completed');
			const [running, lagging, prompt] = service.create(3);
			service.advance(MINUTE);
			const [justBefore] = service.create(1);
			service.finish(justBefore, 'completed');
			service.advance(5_000);
			const trigger = new SimTrigger(service, { n8nClockAheadMs });
			const activatedAt = service.nowMs;
			trigger.activate();
			service.advance(5_000);
			service.finish(running, 'completed');
			service.advance(MINUTE);
			trigger.poll();
			// Listed five minutes after its updated_at, behind a job emitted meanwhile: within the overlap.
			service.finish(lagging, 'completed', 5 * MINUTE);
			service.advance(MINUTE);
			service.finish(prompt, 'failed');
			const newer = service.create(150);
			for (const job of newer) service.finish(job, 'completed');
			for (let minute = 0; minute < 8; minute++) {
				service.advance(MINUTE);
				trigger.poll();
			}
			trigger.pollUntilSettled();

			expect(sorted(trigger.emittedKeys())).toEqual(
				sorted([...keys([running, lagging, ...newer], 'completed'), `failed:${prompt.job_id}`]),
			);
			expect(trigger.polls.flatMap((run) => run.notes)).toEqual([]);
			// The latest emitted job bounds the watermark on the service's clock, whatever n8n's says.
			const state = trigger.memory as PollState;
			expect(state.latest).toBeLessThanOrEqual(service.nowMs + DATE_RESOLUTION_MS);
			expect(state.statuses.completed?.since).toBe(Math.floor(activatedAt / 1000) * 1000 + 1000);
		},
	);
});
