// Admin controls for polling tests: holding a job past its due time, releasing or completing it now, seeding an
// account with many jobs, and the order GET /transcriptions lists them in (the spec fixes none).
import type { PublicTranscriptionListResponse, PublicTranscriptionResponse } from '../../src/api';
import { SandboxAdminError } from '../../sandbox/admin-client';
import {
	api,
	createJob,
	GENEROUS_LIMITS,
	rawRequest,
	uploadMedia,
	useSandbox,
} from '../support/sandbox/client';

const handle = useSandbox({ jobSeconds: 2, rateLimits: GENEROUS_LIMITS, allowLocalWebhooks: true });

async function liveJob(filename = 'meeting.wav'): Promise<string> {
	const { key } = handle.sandbox.keys.platinum_live;
	const uploadId = await uploadMedia(handle.baseUrl, key, { filename });
	return (await createJob(handle.baseUrl, key, { upload_id: uploadId })).job_id;
}

async function job(jobId: string): Promise<PublicTranscriptionResponse> {
	const response = await api(handle.baseUrl, {
		path: `/api/v1/transcriptions/${jobId}`,
		key: handle.sandbox.keys.platinum_live.key,
	});
	return response.json as PublicTranscriptionResponse;
}

async function list(
	key: string,
	query: Record<string, string | number>,
): Promise<PublicTranscriptionListResponse> {
	const search = new URLSearchParams(
		Object.entries(query).map(([name, value]): [string, string] => [name, String(value)]),
	);
	const response = await api(handle.baseUrl, { path: `/api/v1/transcriptions?${search}`, key });
	expect(response.status).toBe(200);
	return response.json as PublicTranscriptionListResponse;
}

async function rejection(call: Promise<unknown>): Promise<{ status: number; code: string }> {
	const error = await call.then(
		() => undefined,
		(caught: unknown) => caught,
	);
	expect(error).toBeInstanceOf(SandboxAdminError);
	const { status, body } = error as SandboxAdminError;
	return { status, code: (body as { error: { code: string } }).error.code };
}

describe('POST /_sandbox/jobs/{job_id}/hold and /release', () => {
	test('a held job stays processing past its due time; released, it completes at once, dated then', async () => {
		const jobId = await liveJob();
		expect((await handle.admin.holdJob(jobId)).status).toBe('queued');
		await handle.admin.advanceClock(60);
		expect((await job(jobId)).status).toBe('processing');

		const releasedAt = Date.parse((await handle.admin.clock()).now);
		const released = await handle.admin.releaseJob(jobId);
		expect(released.status).toBe('completed');
		// Not back-dated to when it was due: the list never shows it terminal before it was.
		expect(Date.parse(released.updated_at)).toBeGreaterThanOrEqual(releasedAt);
	});

	test('a job released before its due time completes on its own timer', async () => {
		const jobId = await liveJob();
		await handle.admin.holdJob(jobId);
		expect((await handle.admin.releaseJob(jobId)).status).toBe('queued');
		await handle.admin.advanceClock(3);
		expect((await job(jobId)).status).toBe('completed');
	});

	test('a terminal job cannot be held: 409 job_already_terminal', async () => {
		const jobId = await liveJob();
		await handle.admin.failJob(jobId);
		expect(await rejection(handle.admin.holdJob(jobId))).toEqual({
			status: 409,
			code: 'job_already_terminal',
		});
	});
});

describe('POST /_sandbox/jobs/{job_id}/complete', () => {
	test('completes a held job now, with its transcript and updated_at = now', async () => {
		const jobId = await liveJob('interview.wav');
		await handle.admin.holdJob(jobId);
		const before = Date.parse((await handle.admin.clock()).now);
		const completed = await handle.admin.completeJob(jobId);
		expect(completed.status).toBe('completed');
		expect(Date.parse(completed.updated_at)).toBeGreaterThanOrEqual(before);
		const artifact = await api(handle.baseUrl, {
			path: `/api/v1/transcriptions/${jobId}/artifact.txt`,
			key: handle.sandbox.keys.platinum_live.key,
		});
		expect(artifact.status).toBe(200);
		expect(artifact.text.length).toBeGreaterThan(0);
	});

	test('a job whose media is unreadable cannot complete: 409 job_cannot_complete', async () => {
		const { key } = handle.sandbox.keys.platinum_live;
		const uploadId = await uploadMedia(handle.baseUrl, key, {
			filename: 'notes.wav',
			bytes: Buffer.from('not audio at all'),
		});
		const { job_id } = await createJob(handle.baseUrl, key, { upload_id: uploadId });
		await handle.admin.holdJob(job_id);
		expect(await rejection(handle.admin.completeJob(job_id))).toEqual({
			status: 409,
			code: 'job_cannot_complete',
		});
	});

	test('an unknown job is 404; a write without JSON is 415', async () => {
		expect(await rejection(handle.admin.completeJob('job_unknown'))).toEqual({
			status: 404,
			code: 'not_found',
		});
		const response = await rawRequest(handle.baseUrl, {
			method: 'POST',
			path: '/_sandbox/jobs/job_unknown/hold',
			headers: { host: new URL(handle.baseUrl).host },
		});
		expect(response.status).toBe(415);
	});
});

describe('POST /_sandbox/jobs/{job_id}/cancel', () => {
	test('the job ends cancelled now, listed under status=cancelled, with no webhook and no artifact', async () => {
		const { key } = handle.sandbox.keys.platinum_live;
		const uploadId = await uploadMedia(handle.baseUrl, key);
		const { job_id } = await createJob(handle.baseUrl, key, {
			upload_id: uploadId,
			webhook_url: 'http://127.0.0.1:9/hook',
		});
		const cancelled = await handle.admin.cancelJob(job_id);
		expect(cancelled).toMatchObject({ status: 'cancelled', credits_used: 0 });
		expect(
			(await list(key, { status: 'cancelled', limit: 100 })).items.map((item) => item.job_id),
		).toContain(job_id);
		const artifact = await api(handle.baseUrl, {
			path: `/api/v1/transcriptions/${job_id}/artifact.txt`,
			key,
		});
		expect(artifact.status).toBe(409);
		const deliveries = await handle.admin.webhookDeliveries({ waitIdle: true });
		expect(deliveries.some((delivery) => delivery.body.includes(job_id))).toBe(false);
		expect(await rejection(handle.admin.cancelJob(job_id))).toEqual({
			status: 409,
			code: 'job_already_terminal',
		});
	});
});

describe('POST /_sandbox/jobs (seeding)', () => {
	test('creates jobs in an account, oldest first ending now, listed like any other', async () => {
		const { key, account_id } = await handle.admin.createKey({});
		const seeded = await handle.admin.seedJobs({ account_id, count: 250, filename: 'archive.wav' });
		expect(seeded.count).toBe(250);
		const failed = await handle.admin.seedJobs({ account_id, count: 3, status: 'failed' });

		const completed = await list(key, { status: 'completed', limit: 100 });
		expect(completed.total).toBe(250);
		expect(completed.items[0].job_id).toBe(seeded.job_ids[249]);
		expect(
			(await list(key, { status: 'failed', limit: 100 })).items.map((item) => item.job_id),
		).toEqual([...failed.job_ids].reverse());
		const artifact = await api(handle.baseUrl, {
			path: `/api/v1/transcriptions/${seeded.job_ids[0]}/artifact.srt`,
			key,
		});
		expect(artifact.status).toBe(200);
		expect(artifact.headers['content-disposition']).toContain('archive.srt');
	});

	test('held processing jobs stay processing until completed', async () => {
		const { key, account_id } = await handle.admin.createKey({});
		const { job_ids } = await handle.admin.seedJobs({
			account_id,
			count: 2,
			status: 'processing',
			held: true,
		});
		await handle.admin.advanceClock(30);
		expect((await list(key, { status: 'processing' })).total).toBe(2);
		await handle.admin.completeJob(job_ids[0]);
		expect((await list(key, { status: 'completed' })).items.map((item) => item.job_id)).toEqual([
			job_ids[0],
		]);
	});

	test.each([
		[{ count: 0 }, 'count'],
		[{ count: 10_001 }, 'count'],
		[{ count: 1, status: 'pending' }, 'status'],
	])('%j is refused with 422 naming %s', async (body, field) => {
		const { account_id } = await handle.admin.createKey({});
		const error = await handle.admin.seedJobs({ account_id, ...body } as never).then(
			() => undefined,
			(caught: unknown) => caught as SandboxAdminError,
		);
		expect(error?.status).toBe(422);
		expect(JSON.stringify(error?.body)).toContain(field);
	});

	test('an unknown account is 404', async () => {
		expect(await rejection(handle.admin.seedJobs({ account_id: 'acct_nobody', count: 1 }))).toEqual(
			{
				status: 404,
				code: 'not_found',
			},
		);
	});
});

describe('POST /_sandbox/list-order', () => {
	test('each order lists the same jobs; the default is newest created first', async () => {
		const { key, account_id } = await handle.admin.createKey({});
		const { job_ids } = await handle.admin.seedJobs({ account_id, count: 30 });
		// The oldest job changes state last: updated_first puts it first.
		await handle.admin.seedJobs({ account_id, count: 1, status: 'processing', held: true });
		const ids = async () => (await list(key, { limit: 100 })).items.map((item) => item.job_id);
		const newestFirst = await ids();
		expect(newestFirst.slice(1)).toEqual([...job_ids].reverse());

		try {
			await handle.admin.setListOrder('oldest_first');
			expect(await ids()).toEqual([...newestFirst].reverse());

			await handle.admin.setListOrder('scrambled');
			const scrambled = await ids();
			expect([...scrambled].sort()).toEqual([...newestFirst].sort());
			expect(scrambled).not.toEqual(newestFirst);
			expect(scrambled).not.toEqual([...newestFirst].reverse());

			await handle.admin.setListOrder('updated_first');
			const [heldId] = newestFirst;
			await handle.admin.completeJob(heldId);
			expect((await ids())[0]).toBe(heldId);
		} finally {
			await handle.admin.setListOrder('newest_first');
		}
	});

	test('an unknown order is 422', async () => {
		const error = await handle.admin.setListOrder('random' as never).then(
			() => undefined,
			(caught: unknown) => caught as SandboxAdminError,
		);
		expect(error?.status).toBe(422);
	});
});

describe('Date header', () => {
	test('follows the sandbox clock, so it agrees with updated_at after a clock jump', async () => {
		await handle.admin.advanceClock(3600);
		const jobId = await liveJob();
		const completed = await handle.admin.completeJob(jobId);
		const response = await api(handle.baseUrl, {
			path: `/api/v1/transcriptions/${jobId}`,
			key: handle.sandbox.keys.platinum_live.key,
		});
		const date = Date.parse(response.headers.date);
		expect(Math.abs(date - Date.parse(completed.updated_at))).toBeLessThan(5000);
		expect(date - Date.now()).toBeGreaterThan(3500 * 1000);
	});
});
