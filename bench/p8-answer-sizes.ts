// P8 answer sizes: what one oversized answer costs the n8n process. Download Artifact (Format SRT) from a server that
// answers a 256 MiB "SRT", once declaring its size (Content-Length) and once without; and a 40 MiB PDF-sized answer
// under the limit, to show a real transcript still costs what it did. Each measurement runs in its own process
// (p8-answer-sizes-worker.ts), this build and the baseline build (BENCH_P8_BASELINE, default 7abdae3, the last
// without size limits) alike; the server runs here, so the figure is the n8n side's peak RSS growth.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

import { ratio, type ResultRow } from '../test/support/bench-results';
import { PACKAGE_DIR } from '../test/support/engine/harness';
import { buildRevision } from './lib/build-revision';
import type { AnswerMeasurement } from './p8-answer-sizes-worker';

export interface AnswerSizesBenchOptions {
	baselineRevision: string;
	hostileBytes: number;
	legitBytes: number;
}

const REPO_ROOT = path.resolve(__dirname, '..');
const MIB = 1024 * 1024;
const WORKER_TIMEOUT_MS = 10 * 60 * 1000;

/** What each job id answers: [bytes, whether the answer declares them]. */
function answers(options: AnswerSizesBenchOptions): Record<string, [number, boolean]> {
	return {
		job_warmup: [1024, true],
		job_declared: [options.hostileBytes, true],
		job_undeclared: [options.hostileBytes, false],
		job_legit: [options.legitBytes, true],
	};
}

function streamAnswer(response: ServerResponse, bytes: number, declared: boolean): void {
	response.writeHead(200, {
		'content-type': 'application/x-subrip',
		'content-disposition': 'attachment; filename="p8.srt"',
		...(declared ? { 'content-length': String(bytes) } : {}),
	});
	const chunk = Buffer.alloc(MIB, 0x41);
	let written = 0;
	const writeMore = () => {
		while (!response.destroyed && written < bytes) {
			const piece = chunk.subarray(0, Math.min(chunk.length, bytes - written));
			written += piece.length;
			if (!response.write(piece)) {
				response.once('drain', writeMore);
				return;
			}
		}
		if (!response.destroyed) response.end();
	};
	writeMore();
}

async function runWorker(
	packageDir: string,
	baseUrl: string,
	jobId: string,
): Promise<AnswerMeasurement> {
	const child = spawn(
		process.execPath,
		[
			'--expose-gc',
			'--import',
			'tsx',
			'bench/p8-answer-sizes-worker.ts',
			packageDir,
			baseUrl,
			jobId,
		],
		{ cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'], timeout: WORKER_TIMEOUT_MS },
	);
	let output = '';
	child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
	const [code] = (await once(child, 'exit')) as [number | null];
	const line = output.trim().split('\n').at(-1) ?? '';
	if (code !== 0 || !line.startsWith('{'))
		throw new Error(`P8 worker ${jobId} exited with ${code}: ${output.slice(-500)}`);
	return JSON.parse(line) as AnswerMeasurement;
}

export async function runAnswerSizesBenchmark(
	options: AnswerSizesBenchOptions,
): Promise<ResultRow[]> {
	const served = answers(options);
	const server = createServer((request, response) => {
		const jobId = /\/transcriptions\/([^/]+)\/artifact/.exec(request.url ?? '')?.[1] ?? '';
		const answer = served[jobId];
		if (!answer) {
			response.writeHead(404, { 'content-type': 'application/json' }).end('{}');
			return;
		}
		streamAnswer(response, ...answer);
	});
	server.listen(0, '127.0.0.1');
	await once(server, 'listening');
	const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	const baseline = buildRevision(options.baselineRevision);
	const size = (bytes: number) => `${Math.round(bytes / MIB)} MiB`;
	const cases: Array<[jobId: string, label: string, expectRefusal: boolean]> = [
		['job_declared', `${size(options.hostileBytes)} "SRT" with Content-Length`, true],
		['job_undeclared', `${size(options.hostileBytes)} "SRT" without Content-Length`, true],
		['job_legit', `${size(options.legitBytes)} answer under the limit`, false],
	];
	try {
		const rows: ResultRow[] = [];
		for (const [jobId, label, expectRefusal] of cases) {
			const before = await runWorker(baseline.packageDir, baseUrl, jobId);
			const after = await runWorker(PACKAGE_DIR, baseUrl, jobId);
			const refusedAsIntended = expectRefusal
				? !after.ok && after.outcome === 'response_too_large'
				: after.ok;
			rows.push({
				benchmark: 'P8',
				metric: `peak RSS growth, Download Artifact of a ${label}`,
				value: after.peakGrowthMiB,
				unit: 'MiB',
				baseline: { label: options.baselineRevision, value: before.peakGrowthMiB },
				ratio: ratio(after.peakGrowthMiB, before.peakGrowthMiB),
				target: expectRefusal ? 'refused, ≤ 64 MiB growth' : 'stored whole',
				meetsTarget: refusedAsIntended && (!expectRefusal || after.peakGrowthMiB <= 64),
				note: `this build: ${after.outcome} in ${after.seconds} s (RSS before ${after.rssBeforeMiB} MiB); ${options.baselineRevision}: ${before.outcome} in ${before.seconds} s (RSS before ${before.rssBeforeMiB} MiB)`,
			});
		}
		return rows;
	} finally {
		baseline.remove();
		server.closeAllConnections();
		server.close();
	}
}
