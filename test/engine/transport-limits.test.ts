// The transport's limits inside n8n's own engine, against a hostile or compromised service or a man in the middle: a
// Base URL that would send the key in clear text, answers larger than any transcript, an answer trickled out a byte at
// a time. Each case answers from a server of its own on loopback (support/engine/hostile-server.ts).
import type { ServerResponse } from 'node:http';

import {
	actionNode,
	ACTION_NODE,
	binaryBytes,
	nodeError,
	runWorkflow,
} from '../support/engine/harness';
import { useControlledClock } from '../support/clock/controlled-clock';
import { useEngineSandbox } from '../support/engine/engine-sandbox';
import { searchJobs } from '../support/engine/job-list';
import {
	credentialsFor,
	download,
	JOB,
	jsonAnswer,
	KEY,
	MIB,
	type SeenRequest,
	stream,
	useHostileServers,
} from '../support/engine/hostile-server';

// The trickles' bytes come on the file's controlled clock, as do the attempts' deadlines: their minutes are not waited.
const clock = useControlledClock();
const env = useEngineSandbox({ recordExchanges: true, clock });
const serve = useHostileServers();

const getJob = actionNode({ resource: 'transcription', operation: 'get', jobId: 'job_hostile' });

describe('a plain http:// Base URL in the nodes', () => {
	test.each(['http://transcription.example', 'http://10.0.0.8:4010', 'http://[2001:db8::1]'])(
		'%s: refused before any request, naming the Base URL',
		async (baseUrl) => {
			const error = nodeError(
				await runWorkflow({
					nodes: [actionNode({ resource: 'account', operation: 'get' })],
					credentials: { apiKey: KEY, baseUrl },
				}),
			);
			expect(error.message).toBe(
				"The credential's Base URL must start with https:// (plain http:// is accepted only for this machine: 127.0.0.1, [::1] or localhost)",
			);
			expect(error.description).toContain(`Got "${baseUrl}"`);
			expect(env.proxy.exchanges).toHaveLength(0);
		},
	);

	test('http://localhost (this machine) is accepted', async () => {
		const port = new URL(env.nodeBaseUrl).port;
		const result = await runWorkflow({
			nodes: [actionNode({ resource: 'account', operation: 'get' })],
			credentials: { ...env.live, baseUrl: `http://localhost:${port}` },
		});
		expect(result.error).toBeUndefined();
		expect(result.output(ACTION_NODE)[0].json.account_id).toBe('acct_sandbox_platinum');
	});
});

describe('answers larger than any transcript', () => {
	test('an "SRT" declaring 256 MiB is refused from its Content-Length, before its body is read', async () => {
		const server = await serve((response, seen) => {
			response.writeHead(200, {
				'content-type': 'application/x-subrip',
				'content-length': String(256 * MIB),
			});
			stream(response, seen, 256 * MIB);
		});
		const error = nodeError(
			await runWorkflow({ nodes: [download('srt')], credentials: credentialsFor(server) }),
		);
		expect(error.code).toBe('response_too_large');
		expect(error.message).toBe(
			"The service's answer to GET /api/v1/transcriptions/job_hostile/artifact.srt (HTTP 200) declares 256 MiB (Content-Length), more than the 64 MiB accepted; nothing was read",
		);
		expect(error.description).toMatch(/^Error code: response_too_large · .*Base URL/);
		// Not retried: the same answer would come again.
		expect(server.requests).toHaveLength(1);
		await server.requests[0].closed;
		expect(server.requests[0].closedEarly).toBe(true);
		// What the socket buffers took before the node closed the connection, far from the 256 MiB.
		expect(server.requests[0].bytesWritten).toBeLessThan(32 * MIB);
	});

	test('an artifact without a Content-Length is read no further than 64 MiB', async () => {
		const server = await serve((response, seen) => {
			response.writeHead(200, { 'content-type': 'application/pdf' });
			stream(response, seen);
		});
		const error = nodeError(
			await runWorkflow({ nodes: [download('pdf')], credentials: credentialsFor(server) }),
		);
		expect(error.code).toBe('response_too_large');
		expect(error.message).toBe(
			"The service's answer to GET /api/v1/transcriptions/job_hostile/artifact.pdf (HTTP 200) went past 64 MiB without a Content-Length; reading stopped there",
		);
		expect(server.requests).toHaveLength(1);
		await server.requests[0].closed;
		expect(server.requests[0].closedEarly).toBe(true);
		expect(server.requests[0].bytesWritten).toBeLessThan(96 * MIB);
	});

	test('a JSON answer is held to 8 MiB: a 9 MiB job snapshot is refused', async () => {
		const padded = { ...JOB, padding: 'x'.repeat(9 * MIB) };
		const server = await serve((response) => jsonAnswer(response, 200, padded));
		const error = nodeError(
			await runWorkflow({ nodes: [getJob], credentials: credentialsFor(server) }),
		);
		expect(error.code).toBe('response_too_large');
		expect(error.message).toMatch(
			/^The service's answer to GET \/api\/v1\/transcriptions\/job_hostile \(HTTP 200\) declares 9 MiB \(Content-Length\), more than the 8 MiB accepted; nothing was read$/,
		);
	});

	test('an error answer is held to 8 MiB even on a download', async () => {
		const server = await serve((response, seen) => {
			response.writeHead(500, { 'content-type': 'application/json' });
			stream(response, seen);
		});
		const error = nodeError(
			await runWorkflow({ nodes: [download('docx')], credentials: credentialsFor(server) }),
		);
		expect(error.code).toBe('response_too_large');
		expect(error.message).toContain('(HTTP 500) went past 8 MiB without a Content-Length');
	});

	test('a 40 MiB PDF, under the limit, is downloaded whole', async () => {
		const pdf = Buffer.alloc(40 * MIB, 0x25);
		const server = await serve((response) => {
			response.writeHead(200, {
				'content-type': 'application/pdf',
				'content-length': String(pdf.length),
				'content-disposition': 'attachment; filename="long-meeting.pdf"',
			});
			response.end(pdf);
		});
		const result = await runWorkflow({
			nodes: [download('pdf')],
			credentials: credentialsFor(server),
		});
		expect(result.error).toBeUndefined();
		const [item] = result.output(ACTION_NODE);
		expect(item.json).toMatchObject({ file_name: 'long-meeting.pdf', size_bytes: pdf.length });
		expect((await binaryBytes(item.binary!.data)).equals(pdf)).toBe(true);
	});
});

describe('each attempt has a deadline, not only an idle timeout', () => {
	/** The job snapshot as an answer that sends its headers at once, then one byte every `everyMs`. */
	function trickle(response: ServerResponse, seen: SeenRequest, everyMs: number): void {
		const body = Buffer.from(JSON.stringify(JOB));
		response.writeHead(200, {
			'content-type': 'application/json',
			'content-length': String(body.length),
		});
		const writeNext = () => {
			if (response.destroyed || seen.bytesWritten >= body.length) {
				if (!response.destroyed) response.end();
				return;
			}
			response.write(body.subarray(seen.bytesWritten, seen.bytesWritten + 1));
			seen.bytesWritten++;
			cancel = clock.setTimer(writeNext, everyMs);
		};
		let cancel = clock.setTimer(writeNext, everyMs);
		response.on('close', () => cancel());
	}

	test('a status answer trickled a byte every 5 s is given up at 60 s and asked again', async () => {
		const server = await serve((response, seen, index) => {
			if (index === 0) trickle(response, seen, 5_000);
			else jsonAnswer(response, 200, JOB);
		});
		const result = await runWorkflow({ nodes: [getJob], credentials: credentialsFor(server) });

		expect(result.error).toBeUndefined();
		expect(result.output(ACTION_NODE)[0].json).toMatchObject({ job_id: 'job_hostile' });
		const [trickled, retried] = server.requests;
		expect(server.requests).toHaveLength(2);
		await trickled.closed;
		expect(trickled.closedEarly).toBe(true);
		// About 12 of its ~300 bytes: the trickle never kept the attempt alive past its 60 s.
		expect(trickled.bytesWritten).toBeLessThan(20);
		expect(retried.startedAtMs - trickled.startedAtMs).toBeGreaterThanOrEqual(60_000);
	}, 180_000);

	test("the editor's job list (no execution) gives a trickled answer up at its 20 s", async () => {
		const server = await serve((response, seen, index) => {
			if (index === 0) trickle(response, seen, 1_000);
			else
				jsonAnswer(response, 200, {
					items: [JOB],
					total: 1,
					links: { self: '/', next: null, prev: null },
				});
		});
		const found = await searchJobs(credentialsFor(server));
		expect(found.results.map((entry) => entry.value)).toEqual(['job_hostile']);
		expect(server.requests).toHaveLength(2);
		await server.requests[0].closed;
		expect(server.requests[0].closedEarly).toBe(true);
		expect(server.requests[1].startedAtMs - server.requests[0].startedAtMs).toBeGreaterThanOrEqual(
			20_000,
		);
	}, 120_000);
});
