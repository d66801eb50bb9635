// The pack on n8n's distributed engine (test/support/queue/shared-cluster.ts: one main, two workers, two webhook
// processors behind a round-robin router, PostgreSQL and Redis, binary data in n8n's database mode), started once for
// every file of the queue tier by its global setup. Everything is proven by counting: executions and their items
// through the main's public API, which worker ran what from the workers' logs, where every webhook went from the
// router's log, every request the service saw from a counting proxy. The figures land in
// test/e2e/.work/queue/results/<v>[-ci].json.
// This file: Transcribe and Download on the workers, up to the largest file database mode carries.
import { createReadStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import path from 'node:path';

import { SandboxAdmin } from '../../sandbox/admin-client';
import { ARTIFACT_FORMATS, type ArtifactFormat } from '../../src/artifacts';
import { makeWav, writeWavFile } from '../support/fixtures/media';
import { ARTIFACT_MIME_TYPES } from '../support/n8n/artifacts';
import { serviceArtifact } from '../support/n8n/executions';
import type { ExecutionWithData } from '../support/n8n/rest';
import {
	emittedItems,
	executionIdSet,
	finishedExecutions,
	withData,
} from '../support/queue/executions';
import { postMedia } from '../support/queue/many-executions';
import { TRANSCRIBE_NODE } from '../support/queue/workflows';
import {
	CI_PROFILE,
	countBy,
	queueSuite,
	runsOf,
	WORKFLOWS,
} from '../support/queue/shared-cluster';

const { cluster, services, figures } = queueSuite();

/**
 * The largest binary n8n's database mode can hand a node: node-postgres reads a bytea column as hex text ("\x" + two
 * characters per byte) and V8 strings stop at 2^29 − 24 characters, so 2^28 − 13 bytes is the most that comes back.
 * A 256 MiB file (13 bytes more) is stored but can never be read: the worker logs "Cannot create a string longer
 * than 0x1fffffe8 characters" and the execution stays "running".
 */
const DATABASE_MODE_LARGEST_BINARY = 2 ** 28 - 13;

const MIB = 1024 * 1024;

const LARGE_FILE_BYTES = CI_PROFILE ? 64 * MIB : DATABASE_MODE_LARGEST_BINARY;

async function expectArtifactsAsServed(
	execution: ExecutionWithData,
	formats: readonly ArtifactFormat[],
): Promise<void> {
	const [item] = emittedItems(execution, TRANSCRIBE_NODE);
	expect(item.json.error).toBeUndefined();
	expect(item.json.status).toBe('completed');
	const jobId = String(item.json.job_id);
	for (const format of formats) {
		const binary = item.binary?.[format];
		expect(binary?.mimeType).toBe(ARTIFACT_MIME_TYPES[format]);
		// In PostgreSQL, where every process of the cluster reads it (n8n's queue-mode default).
		expect(binary?.id).toMatch(/^database:/);
		const stored = await cluster.api.binaryData(binary!);
		const served = await serviceArtifact(
			services.main.baseUrl,
			services.main.keys.platinum_live.key,
			jobId,
			format,
		);
		expect(stored.equals(served)).toBe(true);
	}
}

describe('Transcribe and Download runs on the workers', () => {
	it('turns uploads into transcripts on the workers, all four artifacts byte-identical to the service’s', async () => {
		const before = await executionIdSet(cluster.api, WORKFLOWS.transcribe.id);
		const statuses = await Promise.all(
			['one', 'two', 'three'].map((name, index) =>
				postMedia(
					cluster.router.baseUrl,
					WORKFLOWS.transcribe.path,
					`queue-${name}.wav`,
					makeWav({ seconds: 1 + index }),
				),
			),
		);
		expect(statuses.map((upload) => upload.status)).toEqual([200, 200, 200]);

		const finished = await finishedExecutions(cluster.api, WORKFLOWS.transcribe.id, before, 3);
		const executions = await withData(cluster.api, finished);
		for (const execution of executions) {
			expect(execution.status).toBe('success');
			await expectArtifactsAsServed(execution, ARTIFACT_FORMATS);
		}
		// Each execution ran exactly once, on a worker; the main and the webhook processors ran none.
		const runs = runsOf(
			await cluster.workerRuns(),
			executions.map((execution) => execution.id),
		);
		expect(runs).toHaveLength(3);
		expect(new Set(runs.map((run) => run.executionId)).size).toBe(3);
		for (const process of [cluster.main, ...cluster.webhookProcessors]) {
			expect(await process.log()).not.toMatch(/Worker started execution/);
		}
		figures.transcribe = { executions: 3, runsByWorker: countBy(runs, (run) => run.worker) };
	});

	it(`uploads ${CI_PROFILE ? 'a 64 MiB file' : 'the largest file database mode carries (256 MiB − 13 bytes)'} through the workers, every byte to the service; a worker's peak recorded beside n8n’s own node reading it`, async () => {
		const mediaFile = path.join(cluster.filesFolder, 'long-recording.wav');
		const size = await writeWavFile(mediaFile, { bytes: LARGE_FILE_BYTES });
		expect(size).toBe(LARGE_FILE_BYTES);
		const floorFile = path.join(cluster.filesFolder, 'floor-copy.wav');

		/**
		 * Sends the file to a workflow and measures the peak RSS growth of the worker that ran the execution. The workers
		 * are restarted first, so each measurement starts from a fresh process: what one large read leaves resident would
		 * otherwise be counted in the next one's baseline, not its growth.
		 */
		const measure = async (workflow: { id: string; path: string }, query = '') => {
			await Promise.all(cluster.workers.map((worker) => worker.stop()));
			await Promise.all(cluster.workers.map((worker) => worker.start()));
			const before = await executionIdSet(cluster.api, workflow.id);
			const baseline = new Map<string, number>();
			for (const worker of cluster.workers) {
				await worker.resetPeakRss();
				baseline.set(worker.name, await worker.rssBytes());
			}
			const response = await fetch(`${cluster.router.baseUrl}/webhook/${workflow.path}${query}`, {
				method: 'POST',
				headers: {
					'content-type': 'audio/wav',
					'content-length': String(size),
					'content-disposition': 'attachment; filename="long-recording.wav"',
				},
				body: createReadStream(mediaFile) as unknown as ReadableStream,
				duplex: 'half',
			} as RequestInit);
			expect(response.status).toBe(200);
			await response.body?.cancel();
			const [finished] = await finishedExecutions(cluster.api, workflow.id, before, 1, {
				timeoutMs: 600_000,
			});
			const run = (await cluster.workerRuns()).find(
				(candidate) => candidate.executionId === finished.id,
			);
			expect(run).toBeDefined();
			const worker = cluster.workers.find((candidate) => candidate.name === run!.worker)!;
			const growth = (await worker.peakRssBytes()) - (baseline.get(worker.name) ?? 0);
			return { execution: finished, worker: worker.name, growthMiB: Math.round(growth / MIB) };
		};

		const ours = await measure(WORKFLOWS.transcribe);
		const [execution] = await withData(cluster.api, [ours.execution]);
		expect(execution.status).toBe('success');
		await expectArtifactsAsServed(execution, ARTIFACT_FORMATS);
		// The service received every byte (it refuses a size mismatch) into the slot of that job.
		const jobId = String(emittedItems(execution, TRANSCRIBE_NODE)[0].json.job_id);
		const { uploads } = await new SandboxAdmin(services.main.baseUrl).records();
		const upload = uploads.find((candidate) => candidate.job_id === jobId);
		expect(upload).toMatchObject({ bytes_received: size, size_bytes: size });

		const floor = await measure(WORKFLOWS.floor, `?floorFile=${encodeURIComponent(floorFile)}`);
		expect(floor.execution.status).toBe('success');
		expect((await stat(floorFile)).size).toBe(size);
		await rm(floorFile);
		await rm(mediaFile);

		figures.largeFile = {
			bytes: size,
			transcribeAndDownloadPeakGrowthMiB: ours.growthMiB,
			n8nWriteToDiskPeakGrowthMiB: floor.growthMiB,
			workers: [ours.worker, floor.worker],
		};
		// Recorded, not bounded: n8n's database mode itself reads the whole binary into the worker (a Buffer, and the hex
		// text it is parsed from), for any node: ~10 × the file. A worker's peak moves by more than one copy of the 64 MiB
		// file between identical runs (ours 510 and 539 MiB, n8n's Write to Disk 523 and 408 MiB, in two CI runs of one
		// commit), so a bound here could not see the pack holding the file and failed on the noise. The pack's own growth
		// (1.5 MiB for a 1 GiB file) is benchmark P2's, where nothing else reads the file.
	});
});
