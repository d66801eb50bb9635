// One P8 measurement in a fresh process: Download Artifact (Format SRT) from the hostile server, with the package in
// the given folder (this checkout or a baseline build), after a warm-up download of 1 KiB. Reports the peak growth of
// resident memory over the level just before, as one JSON line on stdout.
//   node --expose-gc --import tsx bench/p8-answer-sizes-worker.ts <package dir> <base URL> <job id>
import '../test/support/engine/setup-env';

import { setTimeout as delay } from 'node:timers/promises';

import type { INode, IRun } from 'n8n-workflow';

import {
	CREDENTIAL_TYPE,
	cleanupBinaryData,
	executeInEngine,
	FixtureCredentialsHelper,
	fixtureCredentials,
	loadPackage,
	nodeType,
	PackageNodeTypes,
} from '../test/support/engine/harness';
import { runMain } from './lib/run-main';

export interface AnswerMeasurement {
	ok: boolean;
	/** The node's error code, or the size it stored. */
	outcome: string;
	rssBeforeMiB: number;
	peakGrowthMiB: number;
	seconds: number;
}

const MIB = 1024 * 1024;
const SAMPLE_EVERY_MS = 5;

async function download(packageDir: string, baseUrl: string, jobId: string): Promise<IRun> {
	const loader = await loadPackage(packageDir);
	const node: INode = {
		id: 'node-0',
		name: 'Download Artifact',
		type: nodeType('transcriptionService'),
		typeVersion: 1,
		position: [0, 0],
		parameters: {
			resource: 'transcription',
			operation: 'downloadArtifact',
			jobId,
			format: 'srt',
			binaryPropertyName: 'data',
		},
		credentials: { [CREDENTIAL_TYPE]: { id: 'cred-1', name: 'Transcription Service account' } },
	};
	return await executeInEngine({
		workflowId: 'p8',
		executionId: `p8-${jobId}-${Date.now()}`,
		nodes: [node],
		connections: {},
		nodeTypes: new PackageNodeTypes(loader),
		credentialsHelper: new FixtureCredentialsHelper(
			loader,
			fixtureCredentials({ apiKey: 'svc_sk_live_p8AnswerSizes0000000001', baseUrl }),
		),
		startNode: node,
		input: [{ json: {} }],
	});
}

function outcomeOf(run: IRun): { ok: boolean; outcome: string } {
	const error = run.data.resultData.error as
		{ message: string; context?: { itemError?: { code?: string } } } | undefined;
	if (error) return { ok: false, outcome: error.context?.itemError?.code ?? error.message };
	const item = run.data.resultData.runData['Download Artifact']?.[0]?.data?.main?.[0]?.[0];
	return { ok: true, outcome: `stored ${Number(item?.json.size_bytes ?? 0)} bytes` };
}

function collectGarbage(): void {
	(globalThis as { gc?: () => void }).gc?.();
}

async function measure(
	packageDir: string,
	baseUrl: string,
	jobId: string,
): Promise<AnswerMeasurement> {
	const warmup = outcomeOf(await download(packageDir, baseUrl, 'job_warmup'));
	if (!warmup.ok) throw new Error(`the warm-up download failed: ${warmup.outcome}`);
	collectGarbage();
	await delay(200);
	collectGarbage();

	const rssBefore = process.memoryUsage.rss();
	const maxRssBefore = process.resourceUsage().maxRSS * 1024;
	let peak = rssBefore;
	const sampler = setInterval(() => {
		peak = Math.max(peak, process.memoryUsage.rss());
	}, SAMPLE_EVERY_MS);
	const started = Date.now();
	let result: { ok: boolean; outcome: string };
	try {
		result = outcomeOf(await download(packageDir, baseUrl, jobId));
	} finally {
		clearInterval(sampler);
	}
	peak = Math.max(peak, process.memoryUsage.rss());
	// The kernel's own high-water mark catches a spike between two samples.
	const maxRssAfter = process.resourceUsage().maxRSS * 1024;
	if (maxRssAfter > maxRssBefore) peak = Math.max(peak, maxRssAfter);
	return {
		...result,
		rssBeforeMiB: Math.round(rssBefore / MIB),
		peakGrowthMiB: Math.round(((peak - rssBefore) / MIB) * 10) / 10,
		seconds: Math.round((Date.now() - started) / 100) / 10,
	};
}

async function main(): Promise<void> {
	const [packageDir, baseUrl, jobId] = process.argv.slice(2);
	if (!packageDir || !baseUrl || !jobId)
		throw new Error('usage: p8-answer-sizes-worker.ts <package dir> <base URL> <job id>');
	try {
		process.stdout.write(`${JSON.stringify(await measure(packageDir, baseUrl, jobId))}\n`);
	} finally {
		await cleanupBinaryData();
	}
}

if (require.main === module) runMain(main);
