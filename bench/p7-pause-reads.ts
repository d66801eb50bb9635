// P7 status reads per paused item: Transcribe and Download in Wait Mode "Pause Until Webhook", batches of
// 1, 10 and 100 items, the resume URL served by two webhook processors (two separately loaded copies of the package,
// requests in turn, as n8n's queue mode spreads them) in n8n-core's engine (test/support/engine/waiting-harness.ts), the
// sandbox delivering the real signed events. Counted at a proxy in front of the sandbox: GET /transcriptions/{id}
// (status reads) and artifact downloads per item, from the pause to the end of the run. The baseline is the same
// scenario on an earlier build of the package (by default main at 05a2b4f), built into a temporary folder in the
// same run.

import { SandboxAdmin } from '../sandbox/admin-client';
import { startSandbox } from '../sandbox/server';
import { PACKAGE_DIR } from '../test/support/engine/harness';
import { PausedRun } from '../test/support/engine/waiting-harness';
import { startCountingProxy, type CountingProxy } from '../test/support/sandbox/counting-proxy';
import { pauseUntilWebhookParameters, wavItems } from '../test/support/engine/batch-runs';
import { ratio, round, type ResultRow } from '../test/support/bench-results';
import { buildRevision } from './lib/build-revision';

export interface PauseReadsBenchOptions {
	batchSizes: number[];
	/** Sandbox job length: short, so that 100 items run in reasonable time. */
	jobSeconds: number;
	concurrency: number;
	/** The build the figures are compared with (a git revision of this repository). */
	baselineRevision: string;
	seed: number;
}

const TARGET_READS_PER_ITEM = 2;
const STATUS_PATH = /^\/api\/v1\/transcriptions\/[^/?]+(\?.*)?$/;
const ARTIFACT_PATH = /^\/api\/v1\/transcriptions\/[^/?]+\/artifact/;

interface Measured {
	statusReads: number;
	artifactDownloads: number;
	resumes: number;
	/** Resumes n8n would refuse: a second process collected the results too. */
	secondResumes: number;
	requests: number;
	completed: number;
}

export async function runPauseReadsBenchmark(
	options: PauseReadsBenchOptions,
): Promise<ResultRow[]> {
	const baseline = buildRevision(options.baselineRevision);
	const sandbox = await startSandbox({
		port: 0,
		quiet: true,
		jobSeconds: options.jobSeconds,
		seed: options.seed,
		allowLocalWebhooks: true,
		// Writes are not what is measured: 100 items make 300 of them.
		rateLimits: { perTier: { platinum: 100_000 } },
	});
	const proxy = await startCountingProxy(sandbox.baseUrl);
	const admin = new SandboxAdmin(sandbox.baseUrl);
	const rows: ResultRow[] = [];
	try {
		for (const items of options.batchSizes) {
			const before = await measure(admin, proxy, baseline.packageDir, items, options);
			const after = await measure(admin, proxy, PACKAGE_DIR, items, options);
			const perItem = round(after.statusReads / items, 2);
			const baselinePerItem = round(before.statusReads / items, 2);
			rows.push({
				benchmark: 'P7',
				metric: `status reads per paused item, ${items} item${items === 1 ? '' : 's'}, events over 2 processors`,
				value: perItem,
				unit: 'reads',
				baseline: { label: options.baselineRevision, value: baselinePerItem },
				ratio: ratio(perItem, baselinePerItem),
				target: `≤ ${TARGET_READS_PER_ITEM}`,
				meetsTarget: perItem <= TARGET_READS_PER_ITEM,
				note: `this build: ${describe(after, items)}; ${options.baselineRevision}: ${describe(before, items)}`,
			});
		}
		return rows;
	} finally {
		await proxy.close();
		await sandbox.close();
		baseline.remove();
	}
}

function describe(measured: Measured, items: number): string {
	return `${measured.statusReads} status reads, ${round(measured.artifactDownloads / items, 2)} downloads per item (1 needed), ${measured.resumes} resume + ${measured.secondResumes} refused second resume(s), ${measured.requests} requests to the resume URL, ${measured.completed}/${items} completed`;
}

async function measure(
	admin: SandboxAdmin,
	proxy: CountingProxy,
	packageDir: string,
	items: number,
	options: PauseReadsBenchOptions,
): Promise<Measured> {
	const key = await admin.createKey({ mode: 'live', tier: 'platinum' });
	const input = await wavItems(items, `p7-${items}`);
	const firstExchange = proxy.exchanges.length;
	const run = await PausedRun.start({
		packageDir,
		processors: 2,
		parameters: pauseUntilWebhookParameters({
			concurrency: options.concurrency,
			maxWaitSeconds: 600,
		}),
		input,
		credentials: {
			apiKey: key.key,
			baseUrl: proxy.baseUrl,
			signingSecret: key.signing_secret as string,
		},
	});
	try {
		await within(run.finished(), 300_000);
		// Late events meet a finished execution; a second processor may still be collecting (the baseline's).
		await admin.webhookDeliveries({ waitIdle: true });
		await new Promise((resolve) => setTimeout(resolve, 2000));
		const exchanges = proxy.exchanges.slice(firstExchange);
		const count = (pattern: RegExp) =>
			exchanges.filter((exchange) => exchange.method === 'GET' && pattern.test(exchange.url))
				.length;
		return {
			statusReads: count(STATUS_PATH),
			artifactDownloads: count(ARTIFACT_PATH),
			resumes: run.calls.filter((call) => call.resumed).length,
			secondResumes: run.errors.filter((error) => /resumed twice/.test(error.message)).length,
			requests: run.calls.length,
			completed: run.output().filter((item) => item.json.status === 'completed').length,
		};
	} finally {
		await run.close();
	}
}

async function within<T>(promise: Promise<T>, ms: number): Promise<T> {
	let timer: NodeJS.Timeout | undefined;
	const timeout = new Promise<never>((_, reject) => {
		timer = setTimeout(
			() => reject(new Error(`P7: the paused run did not finish within ${ms} ms`)),
			ms,
		);
	});
	try {
		return await Promise.race([promise, timeout]);
	} finally {
		clearTimeout(timer);
	}
}
