// A live job ends on its own timer, with nobody reading it: the service sends the terminal event whether or not a
// client polls. Node's timers run on a monotonic clock and may fire before Date.now() reaches the due time (about
// 1 in 100 timers here); this sandbox's real time runs 2 % slower than the timers, so every one of them fires early.

import type { PublicTranscriptionWebhookEvent } from '../../src/api';
import {
	createJob,
	GENEROUS_LIMITS,
	startReceiver,
	uploadMedia,
	useSandbox,
} from '../support/sandbox/client';

const startedAt = Date.now();
const handle = useSandbox({
	jobSeconds: 1,
	allowLocalWebhooks: true,
	rateLimits: GENEROUS_LIMITS,
	realNow: () => startedAt + (Date.now() - startedAt) * 0.98,
});

describe('a live job reaches its terminal state on its own timer (spec 3, 6)', () => {
	let receiver: Awaited<ReturnType<typeof startReceiver>>;
	beforeAll(async () => {
		receiver = await startReceiver();
	});
	afterAll(async () => {
		await receiver.close();
	});

	test('its event is sent though no request reads the job, when the timer fires before the due time', async () => {
		const key = handle.sandbox.keys.platinum_live.key;
		const jobs = await Promise.all(
			['a.wav', 'b.wav', 'c.wav'].map(async (filename) => {
				const uploadId = await uploadMedia(handle.baseUrl, key, { filename });
				return await createJob(handle.baseUrl, key, {
					upload_id: uploadId,
					webhook_url: receiver.url,
				});
			}),
		);
		const deadline = Date.now() + 15_000;
		while (receiver.received.length < 3 && Date.now() < deadline) {
			await new Promise((resolve) => setTimeout(resolve, 100));
		}
		const events = receiver.received.map(
			(hook) => JSON.parse(hook.body) as PublicTranscriptionWebhookEvent,
		);
		expect(events.map((event) => event.job_id).sort()).toEqual(
			jobs.map((job) => job.job_id).sort(),
		);
		expect(events.map((event) => event.event)).toEqual(Array(3).fill('transcription.completed'));
	});
});
