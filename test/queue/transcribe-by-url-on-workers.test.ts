// The pack on n8n's distributed engine (test/support/queue/shared-cluster.ts), this file: recordings by their link, on
// the workers, in binary data mode "database" (n8n's queue-mode default). A link whose host sends its length is
// streamed into the upload: far past what the database mode carries (512 MiB by default, 256 MiB read back), with
// nothing written to the database. A link without a length is stored first, so the mode's limit applies, and the error
// names the setting. The flow a user builds without this (HTTP Request → Transcribe and Download) is the baseline:
// refused over the limit. The media host (test/support/media) runs in this process, on loopback.
import { SandboxAdmin } from '../../sandbox/admin-client';
import { startMediaHost, type MediaHost } from '../support/media/media-host';
import {
	emittedItems,
	executionIdSet,
	finishedExecutions,
	withData,
} from '../support/queue/executions';
import { databaseBinaryBytes } from '../support/queue/services';
import { TRANSCRIBE_NODE } from '../support/queue/workflows';
import { CI_PROFILE, queueSuite, WORKFLOWS } from '../support/queue/shared-cluster';

const { cluster, services, figures } = queueSuite();
const MIB = 1024 * 1024;
/** Streamed with a Content-Length: 2 GiB (CI: 600 MiB), past the database mode's 512 MiB and its 256 MiB read-back. */
const LINK_BYTES = CI_PROFILE ? 600 * MIB : 2048 * MIB;
/** Without a length: just over the database mode's default limit of 512 MiB. */
const OVER_THE_LIMIT_BYTES = 600 * MIB;

let host: MediaHost;

beforeAll(async () => {
	host = await startMediaHost();
});

afterAll(async () => {
	await host?.close();
});

async function transcribeLink(workflow: { id: string; path: string }, url: string) {
	const before = await executionIdSet(cluster.api, workflow.id);
	const storedBefore = await databaseBinaryBytes(cluster.postgres);
	const response = await fetch(`${cluster.router.baseUrl}/webhook/${workflow.path}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ url }),
	});
	expect(response.status).toBe(200);
	await response.body?.cancel();
	const finished = await finishedExecutions(cluster.api, workflow.id, before, 1, {
		timeoutMs: 900_000,
	});
	const [execution] = await withData(cluster.api, finished);
	return { execution, storedBytes: (await databaseBinaryBytes(cluster.postgres)) - storedBefore };
}

describe('Transcribe and Download of a link, on the workers, in database mode', () => {
	it(`streams a ${LINK_BYTES / MIB} MiB recording whose host sends its length into the upload: every byte at the service, none in the database`, async () => {
		const link = host.url(`/generated/${LINK_BYTES}/long-meeting.wav`);
		const started = Date.now();
		const { execution, storedBytes } = await transcribeLink(WORKFLOWS.byUrl, link);
		expect(execution.status).toBe('success');
		const [item] = emittedItems(execution, TRANSCRIBE_NODE);
		expect(item.json.error).toBeUndefined();
		expect(item.json.status).toBe('completed');
		const { uploads } = await new SandboxAdmin(services.main.baseUrl).records();
		const upload = uploads.find((candidate) => candidate.job_id === item.json.job_id);
		expect(upload).toMatchObject({
			filename: 'long-meeting.wav',
			size_bytes: LINK_BYTES,
			bytes_received: LINK_BYTES,
		});
		// Only the transcript went to the database.
		const transcriptBytes = Number(
			(item.binary?.txt as { bytes?: number } | undefined)?.bytes ?? 0,
		);
		expect(storedBytes).toBe(transcriptBytes);
		figures.byUrl = {
			bytes: LINK_BYTES,
			seconds: Math.round((Date.now() - started) / 1000),
			databaseBytes: storedBytes,
		};
	});

	it(`refuses a ${OVER_THE_LIMIT_BYTES / MIB} MiB link without a length, naming the setting that lifts the limit; no job`, async () => {
		const link = host.url(`/generated-chunked/${OVER_THE_LIMIT_BYTES}/no-length.wav`);
		const { execution } = await transcribeLink(WORKFLOWS.byUrl, link);
		const [item] = emittedItems(execution, TRANSCRIBE_NODE);
		expect(item.json.error).toMatchObject({
			code: 'media_too_large_to_store',
			description: expect.stringContaining('N8N_BINARY_DATA_DATABASE_MAX_FILE_SIZE'),
		});
		const { uploads } = await new SandboxAdmin(services.main.baseUrl).records();
		expect(uploads.filter((upload) => upload.filename === 'no-length.wav')).toEqual([]);
	});

	(CI_PROFILE ? it.skip : it)(
		`the baseline, HTTP Request (response as a file) → Transcribe and Download, cannot carry ${OVER_THE_LIMIT_BYTES / MIB} MiB in this mode`,
		async () => {
			const link = host.url(`/generated/${OVER_THE_LIMIT_BYTES}/through-http-request.wav`);
			const { execution } = await transcribeLink(WORKFLOWS.byHttpRequest, link);
			expect(execution.status).toBe('error');
			expect(execution.data.resultData.error?.message).toMatch(
				/exceeds the max size limit of \d+ MB set for `database` mode/,
			);
			expect(execution.data.resultData.runData[TRANSCRIBE_NODE]).toBeUndefined();
		},
	);
});
