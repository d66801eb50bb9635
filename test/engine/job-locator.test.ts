// The Job field of Get and Download Artifact (a resource locator) inside n8n's engine, against the sandbox: its
// description, the By ID, From List and By URL modes in executions, a custom path prefix, and a plain string in its
// place. The editor's From List search: job-list-search.test.ts.
import type { INodeTypeDescription } from 'n8n-workflow';
import { request } from 'undici';

import {
	actionNode,
	ACTION_NODE,
	binaryBytes,
	loadPackage,
	nodeError,
	nodeType,
	PackageNodeTypes,
	runWorkflow,
} from '../support/engine/harness';
import { useEngineSandbox } from '../support/engine/engine-sandbox';
import { allPages, expectedLabel, jobSetup, type Job } from '../support/engine/job-list';

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

const { createJob } = jobSetup(env);

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
