// R5, media links: "nothing lost, nothing twice" for Transcribe and Download by URL when the media host fails. Per fault
// class a batch of items, Concurrency 5, every other item's link faulty and the others healthy, run by the real node in
// n8n-core's engine against the sandbox and the test media host on loopback (test/support/media).
//
// Pass, per class: every input has exactly one output; a healthy item (and a faulty one the class expects to
// succeed) is completed, with exactly one slot and one job at the service holding the whole file; a faulty item is an
// error with the class's code, and the service holds no job of its file (no job from a partial upload) and at most one
// slot; no run outlives its bound, and no item ends by a timeout its class did not set. Faults are counted from the media
// host's own request log (and the sandbox's clock for the expired slot), never from the node. No output, error or log
// line carries the link's signature, the media host's token or the API key. The totals are printed and written to
// bench/results/ as "R5-media" (a dated file and latest.json). RELIABILITY_SCALE shrinks the batches.
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { SandboxAdmin, type SandboxRecords } from '../../sandbox/admin-client';
import { startSandbox, type RunningSandbox } from '../../sandbox/server';
import { makeWav } from '../support/fixtures/media';
import { nodeType, runWorkflow, type RunResult } from '../support/engine/harness';
import { startMediaHost, type HostedRequest, type MediaHost } from '../support/media/media-host';
import { captureLogs, Evidence, scanForSecrets } from '../support/reliability/evidence';
import { reliabilityScale } from '../support/reliability/scale';
import { Tally } from '../support/reliability/tally';

const SCALE = reliabilityScale();
/** Items per class: half of them with a faulty link. */
const ITEMS = Math.max(4, 2 * Math.round(10 * SCALE));
const STALL_BOUND_MS = 120_000;
const SIGNATURE = 'X-Amz-Signature=r5m3d1a5ignature7f3a&X-Amz-Expires=600';
const MEDIA = makeWav({ seconds: 2 });
const NODE = 'Transcribe and Download';

interface FaultClass {
	name: string;
	/** The route of a faulty item's link (`<name>` is the item's file); healthy items use `/file/<name>`. */
	faultyRoute: (name: string) => string;
	/** What a faulty item ends as: `completed`, or the error code its item carries. */
	expected: 'completed' | string;
	/** Item error codes of a timeout this class sets up (others count as stalls). */
	timeouts?: string[];
	parameters?: IDataObject;
	mediaLinkCredential?: IDataObject;
	/** Runs beside the batch (the expired slot: the sandbox's clock moved on mid-upload). */
	during?: (context: ClassContext) => Promise<void>;
	/** Faults injected, from the media host's request log (`faulty`: the requests of faulty links). */
	injected: (faulty: HostedRequest[], context: ClassContext) => { count: number; detail: string };
}

interface ClassContext {
	admin: SandboxAdmin;
	accountId: string;
	host: MediaHost;
	faultyNames: string[];
	/** Set by `during`: how often it moved the sandbox's clock. */
	clockMoves: number;
}

const count = (requests: HostedRequest[], test: (request: HostedRequest) => boolean) =>
	requests.filter(test).length;

const CLASSES: FaultClass[] = [
	{
		name: 'the source resets mid-stream',
		faultyRoute: (name) => `/reset/${name}`,
		expected: 'media_transfer_failed',
		injected: (faulty) => ({
			count: count(faulty, (request) => request.bytesSent < MEDIA.length),
			detail: 'connections reset after half the file',
		}),
	},
	{
		name: 'the source is slower than its deadline (a drip)',
		faultyRoute: (name) => `/drip/${name}?everyMs=100`,
		expected: 'media_timeout',
		timeouts: ['media_timeout'],
		parameters: { linkOptions: { deadlineSeconds: 1 } },
		injected: (faulty) => ({
			count: faulty.length,
			detail: '1 KiB every 100 ms, a 1 s deadline',
		}),
	},
	{
		name: 'the announced length is wrong (4 KiB more than sent)',
		faultyRoute: (name) => `/lying/${name}`,
		expected: 'media_transfer_failed',
		injected: (faulty) => ({
			count: count(faulty, (request) => request.bytesSent < MEDIA.length + 4096),
			detail: 'bodies 4 KiB short of their Content-Length',
		}),
	},
	{
		name: 'the announced length is wrong (a compressed body)',
		faultyRoute: (name) => `/gzip/${name}`,
		expected: 'media_length_mismatch',
		injected: (faulty) => ({
			count: faulty.length,
			detail: 'gzip bodies sent with Content-Encoding against Accept-Encoding: identity',
		}),
	},
	{
		name: 'a redirect to another origin, with a Media Link credential',
		faultyRoute: (name) => `/elsewhere/file/${name}`,
		expected: 'completed',
		mediaLinkCredential: {
			authType: 'header',
			headerName: 'Authorization',
			headerSecret: 'Bearer r5-media-token-7f3a',
			allowedHosts: '127.0.0.1',
		},
		parameters: { linkAuthentication: 'mediaLinkCredential' },
		injected: (faulty) => ({
			count: count(faulty, (request) => request.server === 'main'),
			detail: `redirects to the other origin, which got ${count(faulty, (request) => request.server === 'other' && request.headers.authorization !== undefined)} credentials`,
		}),
	},
	{
		name: 'a private link without a credential',
		faultyRoute: (name) => `/private/${name}`,
		expected: 'media_access_denied',
		injected: (faulty) => ({ count: faulty.length, detail: '401 answers' }),
	},
	{
		name: 'the source answers 503',
		faultyRoute: (name) => `/status/503/${name}`,
		expected: 'media_http_error',
		injected: (faulty) => ({ count: faulty.length, detail: '503 answers, 3 per faulty item' }),
	},
	{
		name: 'the upload slot expires while the bytes come in',
		faultyRoute: (name) => `/drip/${name}?everyMs=50`,
		expected: 'upload_slot_expired',
		// Every item at once: the healthy ones are done in a moment, then every faulty one is taking its bytes.
		parameters: { options: { concurrency: 10, pollIntervalSeconds: 0.2, maxWaitSeconds: 60 } },
		during: async (context) => {
			// Once every faulty item's slot takes its bytes, the service's clock moves past the slots' 30 minutes.
			const giveUpAt = Date.now() + 30_000;
			while (Date.now() < giveUpAt) {
				const { uploads } = await context.admin.records(context.accountId);
				const receiving = uploads.filter(
					(upload) => context.faultyNames.includes(upload.filename) && upload.state === 'receiving',
				);
				if (receiving.length === context.faultyNames.length) {
					await context.admin.advanceClock(31 * 60);
					context.clockMoves++;
					return;
				}
				await new Promise((resolve) => setTimeout(resolve, 25));
			}
		},
		injected: (_faulty, context) => ({
			count: context.clockMoves * context.faultyNames.length,
			detail:
				"slots that expired while taking their bytes (the service's clock moved 31 minutes on)",
		}),
	},
];

let sandbox: RunningSandbox;
let admin: SandboxAdmin;
let host: MediaHost;
const tally = new Tally('R5-media');
const evidence = new Evidence();

beforeAll(async () => {
	captureLogs(evidence);
	sandbox = await startSandbox({
		port: 0,
		quiet: true,
		rateLimits: { perTier: { premium: 100_000, platinum: 100_000 } },
	});
	admin = new SandboxAdmin(sandbox.baseUrl);
	host = await startMediaHost();
});

afterAll(async () => {
	await host?.close();
	await sandbox?.close();
	if (tally.classes.length === 0) return;
	process.stderr.write(
		`\nR5 media links (scale ${SCALE}, ${ITEMS} items a class):\n${tally.render()}\n`,
	);
	const written = await tally.write({
		scale: SCALE,
		itemsPerClass: ITEMS,
		stallBoundSeconds: STALL_BOUND_MS / 1000,
	});
	process.stderr.write(`R5 media links written to ${written.join(' and ')}\n`);
});

describe.each(CLASSES)('R5 media links: $name', (faultClass) => {
	test('every item output once; healthy ones transcribed whole, faulty ones an error with no job; nothing stalled', async () => {
		const key = await admin.createKey({ mode: 'test', tier: 'platinum' });
		const slug = faultClass.name.replace(/\W+/g, '-').slice(0, 40);
		const names = Array.from(
			{ length: ITEMS },
			(_, index) => `${slug}-${String(index).padStart(3, '0')}.wav`,
		);
		const faultyNames = names.filter((_, index) => index % 2 === 1);
		for (const name of names) host.add(name, { bytes: MEDIA, contentType: 'audio/wav' });
		const input: INodeExecutionData[] = names.map((name, index) => ({
			json: {
				index,
				link: `${host.url(faultyNames.includes(name) ? faultClass.faultyRoute(name) : `/file/${name}`)}${faultClass.faultyRoute(name).includes('?') && faultyNames.includes(name) ? '&' : '?'}${SIGNATURE}`,
			},
		}));
		const firstRequest = host.requests.length;
		const context: ClassContext = {
			admin,
			accountId: key.account_id,
			host,
			faultyNames,
			clockMoves: 0,
		};

		const run = runWorkflow({
			nodes: [
				{
					name: NODE,
					type: nodeType('transcriptionService'),
					parameters: {
						resource: 'transcription',
						operation: 'transcribeAndDownload',
						mediaSource: 'url',
						mediaUrl: '={{ $json.link }}',
						formats: ['txt'],
						options: { concurrency: 5, pollIntervalSeconds: 0.2, maxWaitSeconds: 60 },
						...faultClass.parameters,
					},
					onError: 'continueRegularOutput',
				},
			],
			input,
			credentials: { apiKey: key.key, baseUrl: sandbox.baseUrl },
			mediaLinkCredential: faultClass.mediaLinkCredential as never,
		});
		const during = faultClass.during?.(context);
		let bound: NodeJS.Timeout | undefined;
		const result = await Promise.race([
			run,
			new Promise<'stalled'>((resolve) => {
				bound = setTimeout(() => resolve('stalled'), STALL_BOUND_MS);
			}),
		]);
		clearTimeout(bound);
		await during;

		const records = await admin.records(key.account_id);
		const requests = host.requests.slice(firstRequest);
		const faultyRequests = requests.filter((request) =>
			faultyNames.some(
				(name) => request.url.includes(encodeURIComponent(name)) || request.url.includes(name),
			),
		);
		const outcome = judge(faultClass, result, names, faultyNames, records);
		if (result !== 'stalled') {
			const output = result.output(NODE);
			evidence.addItems(`R5 media ${faultClass.name}`, output);
			if (result.error) evidence.addError(`R5 media ${faultClass.name} run error`, result.error);
		}
		const injected = faultClass.injected(faultyRequests, context);
		const row = tally.add({
			feature: 'Media from a link',
			faultClass: faultClass.name,
			jobs: names.length,
			faults: injected.count,
			...outcome.counts,
			detail: `${injected.detail}${outcome.problems.length ? `; ${outcome.problems.join('; ')}` : ''}`,
		});
		expect(outcome.problems).toEqual([]);
		expect(row.faults).toBeGreaterThanOrEqual(faultyNames.length);
		expect({ lost: row.lost, duplicated: row.duplicated, stalled: row.stalled }).toEqual({
			lost: 0,
			duplicated: 0,
			stalled: 0,
		});
		if (faultClass.mediaLinkCredential) {
			expect(
				requests.filter((request) => request.server === 'other' && request.headers.authorization),
			).toEqual([]);
		}
	});
});

test('R4 (R5 media run): no link signature, media host token or API key in any output, error or log line', () => {
	expect(tally.classes.length).toBe(CLASSES.length);
	const findings = scanForSecrets(evidence, {
		'the link signature': 'r5m3d1a5ignature7f3a',
		'the media host token': 'r5-media-token-7f3a',
		'the API key': sandbox.keys.platinum_test.key,
	});
	expect(findings).toEqual([]);
	expect(evidence.size).toBeGreaterThan(CLASSES.length * ITEMS);
});

interface Judgement {
	counts: { lost: number; duplicated: number; stalled: number };
	problems: string[];
}

function judge(
	faultClass: FaultClass,
	result: RunResult | 'stalled',
	names: string[],
	faultyNames: string[],
	records: SandboxRecords,
): Judgement {
	const counts = { lost: 0, duplicated: 0, stalled: 0 };
	const problems: string[] = [];
	if (result === 'stalled') {
		counts.stalled = names.length;
		problems.push(`the run outlived ${STALL_BOUND_MS / 1000} s`);
		return { counts, problems };
	}
	if (result.error) problems.push(`the run failed: ${result.error.message}`);
	const output = result.output(NODE);
	const outputsPerItem = new Map<number, INodeExecutionData[]>();
	for (const item of output) {
		const index = (item.pairedItem as { item: number }).item;
		outputsPerItem.set(index, [...(outputsPerItem.get(index) ?? []), item]);
	}
	names.forEach((name, index) => {
		const items = outputsPerItem.get(index) ?? [];
		const uploads = records.uploads.filter((upload) => upload.filename === name);
		const jobs = records.jobs.filter((job) =>
			uploads.some((upload) => upload.upload_id === job.upload_id),
		);
		if (items.length > 1 || uploads.length > 1 || jobs.length > 1) {
			counts.duplicated++;
			problems.push(
				`${name}: ${items.length} outputs, ${uploads.length} slots, ${jobs.length} jobs`,
			);
			return;
		}
		const [item] = items;
		const error = item?.json.error as IDataObject | undefined;
		const expected = faultyNames.includes(name) ? faultClass.expected : 'completed';
		if (
			error &&
			typeof error.code === 'string' &&
			/timeout|max_wait/.test(error.code) &&
			!(faultClass.timeouts ?? []).includes(error.code)
		) {
			counts.stalled++;
			problems.push(`${name}: ended by ${error.code}`);
			return;
		}
		const whole = uploads.length === 1 && uploads[0].bytes_received === MEDIA.length;
		const ok =
			expected === 'completed'
				? item?.json.status === 'completed' &&
					typeof item.json.text === 'string' &&
					jobs.length === 1 &&
					whole
				: error?.code === expected && jobs.length === 0;
		if (!ok) {
			counts.lost++;
			problems.push(
				`${name}: expected ${expected}, got ${JSON.stringify(error ?? item?.json.status)} with ${jobs.length} jobs, ${uploads.map((upload) => upload.bytes_received).join('/')} bytes stored`,
			);
		}
	});
	return { counts, problems };
}
