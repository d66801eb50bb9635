// The Job field of Get and Download Artifact (a resource locator) inside n8n's engine, against the sandbox: the
// editor's From List search run the way n8n runs it (n8n-core's LoadOptionsContext for a node that is being edited),
// the By ID and By URL modes in executions, and a plain string in its place.
import { LoadOptionsContext } from 'n8n-core';
import type {
	INode,
	INodeListSearchResult,
	INodeParameters,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, Workflow } from 'n8n-workflow';
import { request } from 'undici';

import { makeWav } from '../support/fixtures/media';
import { startRateLimitWindow } from '../support/sandbox/client';
import {
	actionNode,
	ACTION_NODE,
	binaryBytes,
	CREDENTIAL_TYPE,
	engineAdditionalData,
	FixtureCredentialsHelper,
	fixtureCredentials,
	loadPackage,
	nodeError,
	nodeType,
	PackageNodeTypes,
	runWorkflow,
	type TestCredentials,
} from '../support/engine/harness';
import { useEngineSandbox, type EngineSandbox } from '../support/engine/engine-sandbox';

const env = useEngineSandbox({
	recordExchanges: true,
	jobSeconds: 5,
	// Setting up hundreds of jobs takes more writes than a platinum minute allows.
	rateLimits: { perTier: { premium: 100_000, platinum: 100_000 } },
});
// A deployment with its own path prefix: links and the list's next links carry it.
const prefixed = useEngineSandbox({
	pathPrefix: '/svc/v2',
	rateLimits: { perTier: { premium: 100_000, platinum: 100_000 } },
});
const wav = makeWav({ seconds: 2 });

/** Direct API calls for setting the scene (not through the node under test). */
async function api<T>(
	sandbox: EngineSandbox,
	apiKey: string,
	method: 'GET' | 'POST' | 'PUT',
	path: string,
	body?: Buffer | object,
	prefix = '/api/v1',
): Promise<T> {
	const raw = Buffer.isBuffer(body);
	const response = await request(`${sandbox.sandbox.baseUrl}${prefix}${path}`, {
		method,
		headers: {
			authorization: `Bearer ${apiKey}`,
			'content-type': raw ? 'application/octet-stream' : 'application/json',
		},
		body: body === undefined ? undefined : raw ? body : JSON.stringify(body),
	});
	const parsed = (await response.body.json()) as T;
	if (response.statusCode >= 300)
		throw new Error(`${method} ${path} answered ${response.statusCode}: ${JSON.stringify(parsed)}`);
	return parsed;
}

interface Job {
	job_id: string;
	status: string;
	created_at: string;
	links: { self: string; artifact: string };
}

async function createJob(
	apiKey: string,
	filename = 'interview.wav',
	sandbox: EngineSandbox = env,
	prefix = '/api/v1',
): Promise<Job> {
	const slot = await api<{ upload_id: string }>(
		sandbox,
		apiKey,
		'POST',
		'/uploads',
		{ filename, content_type: 'audio/wav', size_bytes: wav.length },
		prefix,
	);
	await api(sandbox, apiKey, 'PUT', `/uploads/${slot.upload_id}/binary`, wav, prefix);
	const { job_id } = await api<{ job_id: string }>(
		sandbox,
		apiKey,
		'POST',
		'/transcriptions',
		{ upload_id: slot.upload_id },
		prefix,
	);
	return await api<Job>(sandbox, apiKey, 'GET', `/transcriptions/${job_id}`, undefined, prefix);
}

/** A fresh account (test key) with `count` completed jobs, oldest first. */
async function accountWithJobs(
	count: number,
): Promise<{ credentials: TestCredentials; accountId: string; jobs: Job[] }> {
	const key = await env.admin.createKey({ mode: 'test', tier: 'platinum' });
	const jobs: Job[] = [];
	for (let index = 0; index < count; index++) jobs.push(await createJob(key.key));
	return { credentials: env.credentials(key.key), accountId: key.account_id, jobs };
}

/**
 * The editor's From List request as n8n serves it (POST /rest/dynamic-node-parameters/resource-locator-results): the
 * node being edited in a one-node workflow, n8n-core's LoadOptionsContext, the method of the node type of its version.
 */
async function searchJobs(
	credentials: TestCredentials,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const loader = await loadPackage();
	const nodeTypes = new PackageNodeTypes(loader);
	const parameters: INodeParameters = {
		resource: 'transcription',
		operation: 'get',
		jobId: { __rl: true, mode: 'list', value: '' },
	};
	const node: INode = {
		id: 'uuid-1234',
		name: 'Temp-Node',
		type: nodeType('transcriptionService'),
		typeVersion: 1,
		position: [0, 0],
		parameters,
		credentials: { [CREDENTIAL_TYPE]: { id: 'cred-1', name: 'Transcription Service account' } },
	};
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	const additionalData = engineAdditionalData({
		executionId: 'editor',
		credentialsHelper: new FixtureCredentialsHelper(loader, fixtureCredentials(credentials)),
	});
	additionalData.currentNodeParameters = parameters;
	const context = new LoadOptionsContext(workflow, node, additionalData, 'jobId');
	const method = nodeTypes.getByNameAndVersion(node.type, node.typeVersion).methods?.listSearch
		?.searchJobs;
	if (!method) throw new Error('The node has no listSearch.searchJobs');
	return await method.call(context, filter, paginationToken);
}

/** Every page of one search, following the tokens the way the editor does when the list is scrolled. */
async function allPages(credentials: TestCredentials, filter?: string) {
	const pages: INodeListSearchResult[] = [];
	let token: string | undefined;
	do {
		const page = await searchJobs(credentials, filter, token);
		pages.push(page);
		token = page.paginationToken as string | undefined;
	} while (token !== undefined && pages.length < 20);
	return pages;
}

const listRequests = () =>
	env.proxy.exchanges.filter((exchange) => exchange.url.startsWith('/api/v1/transcriptions?'));

/** What the list shows for a completed test-key job of `wav` (the sandbox's mock transcript is 15 s of English). */
const expectedLabel = (job: Job, rest = '15 s · English') =>
	`${job.created_at.slice(0, 16).replace('T', ' ')} UTC · ${job.status} · ${rest} · ${job.job_id}`;

const node = (operation: string, parameters: Record<string, unknown> = {}) =>
	actionNode({ resource: 'transcription', operation, ...parameters });
const locator = (mode: 'list' | 'id' | 'url', value: string, cachedResultName?: string) => ({
	__rl: true,
	mode,
	value,
	...(cachedResultName ? { cachedResultName } : {}),
});

describe('The Job field', () => {
	test('one node version; Get and Download Artifact each have the Job locator, From List by default', async () => {
		const loader = await loadPackage();
		const description = new PackageNodeTypes(loader).getByName(nodeType('transcriptionService'))
			.description as INodeTypeDescription;
		expect(description.version).toBe(1);
		expect(description.defaultVersion).toBeUndefined();
		const jobFields = description.properties.filter((property) => property.name === 'jobId');
		expect(jobFields.map((field) => [field.type, field.displayOptions?.show?.operation])).toEqual([
			['resourceLocator', ['downloadArtifact']],
			['resourceLocator', ['get']],
		]);
		const [locatorField] = jobFields;
		expect(locatorField.default).toEqual({ mode: 'list', value: '' });
		expect(locatorField.modes?.map((mode) => mode.name)).toEqual(['list', 'id', 'url']);
	});
});

describe('Job → From List (listSearch.searchJobs, GET /transcriptions)', () => {
	let big: Awaited<ReturnType<typeof accountWithJobs>>;
	let hebrew: Job;
	let failed: Job;

	beforeAll(async () => {
		// 601 jobs: more than the 500 one search reads, and a last page of one.
		big = await accountWithJobs(599);
		hebrew = await createJob(big.credentials.apiKey, 'ראיון עם דנה.wav');
		const liveKey = await env.admin.createKey({ mode: 'live', account_id: big.accountId });
		const live = await createJob(liveKey.key);
		failed = { ...live, ...(await env.admin.failJob(live.job_id)) };
	}, 120_000);

	test("the first page: the service's first 100 jobs, newest first, labelled with time, status, duration, language and job_id", async () => {
		const page = await searchJobs(big.credentials);
		expect(page.results).toHaveLength(100);
		expect(page.paginationToken).toBe('100');
		const newest = [...big.jobs, hebrew, failed].reverse();
		expect(page.results.map((result) => result.value)).toEqual(
			newest.slice(0, 100).map((job) => job.job_id),
		);
		const byId = new Map(page.results.map((result) => [result.value, result.name]));
		expect(byId.get(hebrew.job_id)).toBe(expectedLabel(hebrew, '15 s · Hebrew'));
		// A failed live job has no transcript: no duration, no language.
		expect(byId.get(failed.job_id)).toBe(
			`${failed.created_at.slice(0, 16).replace('T', ' ')} UTC · failed · ${failed.job_id}`,
		);
		const plain = big.jobs[big.jobs.length - 1];
		expect(byId.get(plain.job_id)).toBe(expectedLabel(plain));
		expect(page.results.every((result) => result.url === undefined)).toBe(true);
		expect(listRequests().map((exchange) => exchange.url)).toEqual([
			'/api/v1/transcriptions?limit=100&cursor=0',
		]);
	});

	test('scrolling follows the cursor: every job exactly once, one request per page of 100, the last page without a token', async () => {
		const pages = await allPages(big.credentials);
		expect(pages.map((page) => page.results.length)).toEqual([100, 100, 100, 100, 100, 100, 1]);
		expect(pages.map((page) => page.paginationToken)).toEqual([
			'100',
			'200',
			'300',
			'400',
			'500',
			'600',
			undefined,
		]);
		const listed = pages.flatMap((page) => page.results.map((result) => result.value));
		expect(new Set(listed).size).toBe(601);
		expect(new Set(listed)).toEqual(
			new Set([...big.jobs, hebrew, failed].map((job) => job.job_id)),
		);
		expect(listRequests()).toHaveLength(7);
	});

	test('search matches job_id, status, language, created time, and every word given', async () => {
		const target = big.jobs[550];
		const byId = await searchJobs(big.credentials, target.job_id.slice(-10).toUpperCase());
		expect(byId.results).toEqual([{ name: expectedLabel(target), value: target.job_id }]);

		const byStatus = await searchJobs(big.credentials, 'failed');
		expect(byStatus.results.map((result) => result.value)).toEqual([failed.job_id]);

		const byLanguage = await searchJobs(big.credentials, 'hebrew');
		expect(byLanguage.results.map((result) => result.value)).toEqual([hebrew.job_id]);
		expect((await searchJobs(big.credentials, 'he-IL')).results).toHaveLength(1);

		const both = await searchJobs(big.credentials, 'completed  Hebrew');
		expect(both.results.map((result) => result.value)).toEqual([hebrew.job_id]);
		expect((await searchJobs(big.credentials, 'failed hebrew')).results).toEqual([]);

		const minute = hebrew.created_at.slice(0, 16).replace('T', ' ');
		expect((await searchJobs(big.credentials, minute)).results.map((r) => r.value)).toContain(
			hebrew.job_id,
		);
	});

	test('one search reads at most 500 jobs (5 requests) and hands back where it stopped; a job past them is found on the next page', async () => {
		const oldest = big.jobs[0];
		const first = await searchJobs(big.credentials, oldest.job_id);
		expect(first.results).toEqual([]);
		expect(first.paginationToken).toBe('500');
		expect(listRequests().map((exchange) => exchange.url)).toEqual(
			[0, 100, 200, 300, 400].map((cursor) => `/api/v1/transcriptions?limit=100&cursor=${cursor}`),
		);
		const second = await searchJobs(big.credentials, oldest.job_id, '500');
		expect(second.results).toEqual([{ name: expectedLabel(oldest), value: oldest.job_id }]);
		expect(second.paginationToken).toBeUndefined();
		expect(listRequests()).toHaveLength(7);
	});

	test('a search stops reading once it has a page of matches, and continues from there on scrolling', async () => {
		// The first page has 98 English jobs (one Hebrew, one failed), so the second page is read too.
		const first = await searchJobs(big.credentials, 'english');
		expect(first.results).toHaveLength(198);
		expect(first.paginationToken).toBe('200');
		expect(listRequests()).toHaveLength(2);
	});

	test('an empty account: no jobs, no token', async () => {
		const key = await env.admin.createKey({ mode: 'live' });
		expect(await searchJobs(env.credentials(key.key))).toEqual({ results: [] });
		expect(await searchJobs(env.credentials(key.key), 'anything')).toEqual({ results: [] });
	});

	test("a revoked key: the API's 401 as a NodeApiError, which the editor shows with its code and a link to the credential", async () => {
		const key = await env.admin.createKey({ mode: 'live' });
		await env.admin.revokeKey(key.key);
		const error = await searchJobs(env.credentials(key.key)).then(
			() => undefined,
			(thrown: unknown) => thrown,
		);
		expect(error).toBeInstanceOf(NodeApiError);
		const apiError = error as NodeApiError;
		expect(apiError.httpCode).toBe('401');
		expect(apiError.description).toMatch(/^Error code: invalid_api_key · Request ID: req_/);
		// 401 is never repeated.
		expect(listRequests()).toHaveLength(1);
	});

	test('a key without a known prefix is refused before any request, naming both prefixes', async () => {
		const error = await searchJobs(env.credentials('sk_live_typo')).then(
			() => undefined,
			(thrown: unknown) => thrown,
		);
		expect(error).toBeInstanceOf(NodeOperationError);
		expect((error as NodeOperationError).message).toBe(
			"The credential's API Key has no known prefix",
		);
		expect(listRequests()).toHaveLength(0);
	});

	test('a spent read budget is reported at once (rate_limit_exceeded, with when it resets), not waited out', async () => {
		const key = await env.admin.createKey({ mode: 'test', tier: 'premium' });
		const credentials = env.credentials(key.key);
		await env.admin.setRateLimits({
			windowSeconds: 600,
			perTier: { premium: 1, platinum: 100_000 },
		});
		await startRateLimitWindow(env.admin, 600);
		try {
			// Reads are twice the tier: two lists, then the window is spent for ten minutes.
			await searchJobs(credentials);
			await searchJobs(credentials);
			const started = Date.now();
			const error = await searchJobs(credentials).then(
				() => undefined,
				(thrown: unknown) => thrown,
			);
			expect(Date.now() - started).toBeLessThan(5_000);
			expect(error).toBeInstanceOf(NodeApiError);
			expect((error as NodeApiError).message).toMatch(/rate limit/i);
			expect((error as NodeApiError).description).toMatch(/^Error code: rate_limit_exceeded/);
		} finally {
			await env.admin.setRateLimits({
				windowSeconds: 60,
				perTier: { premium: 100_000, platinum: 100_000 },
			});
		}
	});

	test('a page token it did not hand out is refused', async () => {
		await expect(searchJobs(big.credentials, undefined, '../account')).rejects.toThrow(
			'Unknown page of the job list: "../account"',
		);
		expect(listRequests()).toHaveLength(0);
	});
});

describe('Job → By ID and From List in an execution', () => {
	let job: Job;

	beforeAll(async () => {
		job = await createJob(env.testMode.apiKey);
	});

	test('From List: the chosen job', async () => {
		const result = await runWorkflow({
			nodes: [node('get', { jobId: locator('list', job.job_id, expectedLabel(job)) })],
			credentials: env.testMode,
		});
		expect(result.error).toBeUndefined();
		expect(result.output(ACTION_NODE)[0].json).toMatchObject({
			job_id: job.job_id,
			status: 'completed',
		});
	});

	test("By ID with an expression: each item's own job_id", async () => {
		const other = await createJob(env.testMode.apiKey);
		const result = await runWorkflow({
			nodes: [node('get', { jobId: locator('id', '={{ $json.job_id }}') })],
			credentials: env.testMode,
			input: [{ json: { job_id: job.job_id } }, { json: { job_id: other.job_id } }],
		});
		expect(result.output(ACTION_NODE).map((item) => item.json.job_id)).toEqual([
			job.job_id,
			other.job_id,
		]);
	});

	test('By ID: a typed value that is no id is marked in the editor, and n8n refuses to run the workflow', async () => {
		// n8n 2.8 says "The workflow has issues…"; 2.41 names the node and the field's own message.
		for (const value of ['..', 'job_1/../../account', '/api/v1/transcriptions/job_1']) {
			await expect(
				runWorkflow({
					nodes: [node('get', { jobId: locator('id', value) })],
					credentials: env.testMode,
				}),
			).rejects.toThrow(/has issues/);
		}
		expect(env.proxy.exchanges).toHaveLength(0);
	});

	test('By ID: an expression that gives no id is refused by the node before any request, naming the Job field', async () => {
		const cases: Array<[string, string]> = [
			['..', '".." is a path segment, not an id'],
			['job_1/../../account', 'it contains a path separator ("/" or "\\")'],
			['  ', 'it is empty'],
		];
		for (const [value, problem] of cases) {
			const error = nodeError(
				await runWorkflow({
					nodes: [node('get', { jobId: locator('id', '={{ $json.job_id }}') })],
					credentials: env.testMode,
					input: [{ json: { job_id: value } }],
				}),
			);
			expect(error.code).toBe('invalid_id');
			expect(error.message).toBe(`The parameter "Job" is not a valid id: ${problem}`);
		}
		expect(env.proxy.exchanges).toHaveLength(0);
	});
});

describe('Job → By URL (links.self, links.artifact)', () => {
	let job: Job;

	let transcript: Buffer;

	beforeAll(async () => {
		job = await createJob(env.testMode.apiKey, 'board meeting.wav');
		const artifact = await request(`${env.sandbox.baseUrl}${job.links.artifact}.txt`, {
			headers: { authorization: `Bearer ${env.testMode.apiKey}` },
		});
		transcript = Buffer.from(await artifact.body.arrayBuffer());
	});

	const downloadBy = (link: string) =>
		runWorkflow({
			nodes: [
				node('downloadArtifact', {
					jobId: locator('url', link),
					format: 'txt',
					binaryPropertyName: 'data',
				}),
			],
			credentials: env.testMode,
		});

	test("the job's status link, relative as API responses give it, or absolute; its artifact links, with or without extension and query", async () => {
		const absolute = (path: string) => `https://transcription.example.com${path}`;
		const links = [
			job.links.self,
			`${job.links.self}/`,
			absolute(job.links.self),
			job.links.artifact,
			absolute(`${job.links.artifact}.pdf`),
			absolute(`${job.links.artifact}?format=docx`),
			` ${absolute(job.links.self)}#status `,
		];
		for (const link of links) {
			const result = await downloadBy(link);
			expect(result.error).toBeUndefined();
			const [item] = result.output(ACTION_NODE);
			// The link names the job; the Format field still decides the file.
			expect(item.json).toMatchObject({ job_id: job.job_id, format: 'txt' });
			expect((await binaryBytes(item.binary!.data)).equals(transcript)).toBe(true);
		}
		// Only the credential's service was asked, at its own prefix, never the link's host.
		expect(new Set(env.proxy.exchanges.map((exchange) => exchange.url))).toEqual(
			new Set([`/api/v1/transcriptions/${job.job_id}/artifact.txt`]),
		);
		expect(env.proxy.exchanges).toHaveLength(links.length);
	});

	test("an expression giving a webhook body's links.artifact (absolute) works like a pasted link", async () => {
		const result = await runWorkflow({
			nodes: [node('get', { jobId: locator('url', '={{ $json.links.artifact }}') })],
			credentials: env.testMode,
			input: [
				{
					json: {
						event: 'transcription.completed',
						links: { artifact: `http://127.0.0.1:9${job.links.artifact}` },
					},
				},
			],
		});
		expect(result.output(ACTION_NODE)[0].json).toMatchObject({ job_id: job.job_id });
	});

	test('a typed link that is no job link is marked in the editor, and n8n refuses to run the workflow', async () => {
		for (const link of [
			'/api/v1/transcriptions/../account',
			'/api/v1/transcriptions/..',
			`${job.links.self}/../../account`,
			'/api/v1/uploads/upl_1/binary',
			'job_123',
		]) {
			await expect(downloadBy(link)).rejects.toThrow(/has issues/);
		}
		expect(env.proxy.exchanges).toHaveLength(0);
	});

	test('hostile or foreign links from an expression are refused by the node before any request, naming the Job field', async () => {
		const downloadFromItem = (link: string) =>
			runWorkflow({
				nodes: [
					node('downloadArtifact', {
						jobId: locator('url', '={{ $json.link }}'),
						format: 'txt',
						binaryPropertyName: 'data',
					}),
				],
				credentials: env.testMode,
				input: [{ json: { link } }],
			});
		const notALink: Array<[string, string]> = [
			['/api/v1/transcriptions/../account', 'no /transcriptions/{job_id} path in it'],
			['/api/v1/transcriptions/..', 'no /transcriptions/{job_id} path in it'],
			[`${job.links.self}/../../account`, 'no /transcriptions/{job_id} path in it'],
			['/api/v1/uploads/upl_1/binary', 'no /transcriptions/{job_id} path in it'],
			['job_123', 'no /transcriptions/{job_id} path in it'],
			['', 'no /transcriptions/{job_id} path in it'],
			['/api/v1/transcriptions/job_%E0%A4%A', 'its job_id is not valid percent-encoding'],
		];
		for (const [link, problem] of notALink) {
			const error = nodeError(await downloadFromItem(link));
			expect(error.code).toBe('invalid_id');
			expect(error.message).toBe(`The parameter "Job" (By URL) is not a job link: ${problem}`);
		}
		// Percent-encoding cannot smuggle a path in: the decoded id is checked like any other (typed in, too).
		const smuggled: Array<[string, string]> = [
			['/api/v1/transcriptions/%2e%2e/artifact', '".." is a path segment, not an id'],
			['/api/v1/transcriptions/job_1%2F..%2Faccount', 'it contains a path separator ("/" or "\\")'],
			['/api/v1/transcriptions/job%201', 'it contains whitespace or a control character'],
		];
		for (const [link, problem] of smuggled) {
			for (const result of [await downloadFromItem(link), await downloadBy(link)]) {
				const error = nodeError(result);
				expect(error.code).toBe('invalid_id');
				expect(error.message).toBe(`The parameter "Job" is not a valid id: ${problem}`);
			}
		}
		expect(env.proxy.exchanges).toHaveLength(0);
	});

	test('with Continue On Fail a refused link is an item error, and the other items run', async () => {
		const result = await runWorkflow({
			nodes: [
				actionNode(
					{
						resource: 'transcription',
						operation: 'get',
						jobId: locator('url', '={{ $json.link }}'),
					},
					{ continueOnFail: true },
				),
			],
			credentials: env.testMode,
			input: [
				{ json: { link: '/api/v1/transcriptions/../account' } },
				{ json: { link: job.links.self } },
			],
		});
		const [bad, good] = result.output(ACTION_NODE);
		expect(bad.json.error).toMatchObject({
			code: 'invalid_id',
			message:
				'The parameter "Job" (By URL) is not a job link: no /transcriptions/{job_id} path in it',
		});
		expect(good.json).toMatchObject({ job_id: job.job_id, status: 'completed' });
	});
});

describe('Job with a custom path prefix (/svc/v2)', () => {
	test("the list pages through the deployment's own next links, and its links work By URL", async () => {
		const key = await prefixed.admin.createKey({ mode: 'test', tier: 'platinum' });
		const credentials = { ...prefixed.credentials(key.key), pathPrefix: '/svc/v2' };
		const jobs: Job[] = [];
		for (let index = 0; index < 101; index++)
			jobs.push(await createJob(key.key, 'interview.wav', prefixed, '/svc/v2'));
		expect(jobs[0].links.self).toBe(`/svc/v2/transcriptions/${jobs[0].job_id}`);

		const pages = await allPages(credentials);
		expect(pages.map((page) => [page.results.length, page.paginationToken])).toEqual([
			[100, '100'],
			[1, undefined],
		]);

		const result = await runWorkflow({
			nodes: [
				node('get', {
					jobId: locator('url', `${prefixed.sandbox.baseUrl}${jobs[0].links.artifact}.srt`),
				}),
			],
			credentials,
		});
		expect(result.error).toBeUndefined();
		expect(result.output(ACTION_NODE)[0].json).toMatchObject({ job_id: jobs[0].job_id });
	});
});

describe('Job given a plain string in place of the locator (a hand-written or generated workflow)', () => {
	let job: Job;

	beforeAll(async () => {
		job = await createJob(env.testMode.apiKey, 'plain string.wav');
	});

	test('Get and Download Artifact read it as an id, here the job_id of each input item', async () => {
		const input = [{ json: { job_id: job.job_id } }];
		const get = await runWorkflow({
			nodes: [node('get', { jobId: '={{ $json.job_id }}' })],
			credentials: env.testMode,
			input,
		});
		expect(get.error).toBeUndefined();
		expect(get.output(ACTION_NODE)[0].json).toMatchObject({
			job_id: job.job_id,
			status: 'completed',
		});

		const download = await runWorkflow({
			nodes: [
				node('downloadArtifact', {
					jobId: '={{ $json.job_id }}',
					format: 'srt',
					binaryPropertyName: 'data',
				}),
			],
			credentials: env.testMode,
			input,
		});
		expect(download.error).toBeUndefined();
		expect(download.output(ACTION_NODE)[0].json).toMatchObject({
			job_id: job.job_id,
			format: 'srt',
			file_name: 'plain string.srt',
		});
	});

	test('an id it cannot be is refused before any request, naming the Job field', async () => {
		const error = nodeError(
			await runWorkflow({
				nodes: [node('get', { jobId: '={{ $json.job_id }}' })],
				credentials: env.testMode,
				input: [{ json: { job_id: '../account' } }],
			}),
		);
		expect(error.code).toBe('invalid_id');
		expect(error.message).toBe(
			'The parameter "Job" is not a valid id: it contains a path separator ("/" or "\\")',
		);
		expect(env.proxy.exchanges).toHaveLength(0);
	});
});
