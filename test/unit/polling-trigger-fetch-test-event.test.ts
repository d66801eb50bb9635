// The Polling Trigger's Fetch Test Event in the editor (nodes/TranscriptionServicePollingTrigger/fetch-test-event.ts):
// the newest job of the selected statuses, within the request budget, against a model of GET /transcriptions.
import { newestJob, SIM_ORDERS, SimService } from '../support/fixtures/polling-sim';

describe('Fetch Test Event (manual): the newest job', () => {
	test.each(SIM_ORDERS)('in order %s, across the selected statuses', (order) => {
		const service = new SimService(order);
		const jobs = service.create(450);
		for (const [index, job] of jobs.entries()) {
			service.advance(1000);
			service.finish(job, index % 5 === 0 ? 'failed' : 'completed');
		}
		// The newest state change belongs to an old job (created first).
		service.advance(1000);
		const [first] = jobs;
		first.status = 'processing';
		service.finish(first, 'completed');
		const { job, requests } = newestJob(service, ['completed', 'failed'], 20);
		expect(job?.job_id).toBe(first.job_id);
		expect(requests).toBeLessThanOrEqual(20);
		expect(newestJob(service, ['failed'], 20).job?.status).toBe('failed');
		expect(newestJob(service, ['cancelled'], 20).job).toBeUndefined();
	});

	test('the budget is shared between the statuses', () => {
		const service = new SimService('newest_first');
		for (const job of service.create(2000)) service.finish(job, 'completed');
		for (const job of service.create(150)) service.finish(job, 'failed');
		const [middle] = service.create(1);
		for (const job of service.create(150)) service.finish(job, 'failed');
		service.advance(1000);
		service.finish(middle, 'failed');
		const { job } = newestJob(service, ['completed', 'failed'], 10);
		expect(job?.job_id).toBe(middle.job_id);
	});

	test('within the budget when the lists are larger than it', () => {
		const service = new SimService('newest_first');
		for (const job of service.create(5000)) service.finish(job, 'completed');
		const { job, requests } = newestJob(service, ['completed'], 4);
		expect(requests).toBe(4);
		expect(job?.job_id).toBe(service.jobs.at(-1)?.job_id);
	});
});
