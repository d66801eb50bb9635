// R3 bad input: for every operation of the action node, required parameters empty or of the wrong type, missing
// binary fields, a wrong Idempotency-Key length, unsupported formats, unknown ids and another account's ids.
// Each case runs in n8n-core's engine with Continue On Fail, so the item's error is data we can read. Each must
// end in one error item that names the field or carries the API's error.code, with no crash (a TypeError or an
// execution-level error), and every upload slot or job the case created must be named by its output.

import type {
	IDataObject,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeProperties,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import {
	binaryItem,
	loadPackage,
	nodeType,
	runWorkflow,
	type TestCredentials,
} from '../support/engine/harness';
import { makeWav } from '../support/fixtures/media';
import { SandboxAdmin, type CreatedKey, type SandboxRecords } from '../../sandbox/admin-client';
import { startSandbox, type RunningSandbox } from '../../sandbox/server';
import { captureLogs, Evidence, scanForSecrets } from '../support/reliability/evidence';

const NODE_NAME = 'Transcription Service';
const TOO_LONG_KEY = 'k'.repeat(201);
/**
 * An expression that comes out empty at run time. A literally empty required parameter never reaches the node:
 * n8n refuses the whole workflow first (checked separately below).
 */
const EMPTY = '={{ "" }}';
const CRASH =
	/Cannot read|is not a function|is not defined|undefined is not|TypeError|ReferenceError|\[object Object\]/;

type KeyName = 'live' | 'test' | 'readOnly' | 'revoked' | 'noAccess';
type Input = 'wav' | 'emptyWav' | 'json';

interface Expectation {
	/** The API's error.code (or the node's own code for a check it makes before calling). */
	code?: string;
	/** Any one of these must appear in the error's message or description (case-insensitive). */
	mentions?: string[];
}

interface BadInputCase {
	name: string;
	parameters: IDataObject | ((fixtures: Fixtures) => IDataObject);
	input?: Input;
	key?: KeyName;
	expect: Expectation;
}

interface Fixtures {
	otherUploadId: string;
	otherJobId: string;
	emptySlotId: string;
	completedJobId: string;
	/** Holds its bytes and has no job: a create with one bad field must be refused for that field alone. */
	filledSlotId: string;
	runningJobId: string;
}

const createSlot = (parameters: IDataObject) => ({
	resource: 'upload',
	operation: 'createSlot',
	...parameters,
});
const manualSlot = (parameters: IDataObject) =>
	createSlot({
		source: 'manual',
		filename: 'talk.wav',
		content_type: 'audio/wav',
		size_bytes: 1000,
		...parameters,
	});
const sendMedia = (parameters: IDataObject) => ({
	resource: 'upload',
	operation: 'sendMedia',
	binaryPropertyName: 'data',
	...parameters,
});
const createJob = (parameters: IDataObject) => ({
	resource: 'transcription',
	operation: 'create',
	...parameters,
});
const getJob = (jobId: string) => ({ resource: 'transcription', operation: 'get', jobId });
const listJobs = (parameters: IDataObject) => ({
	resource: 'transcription',
	operation: 'getAll',
	...parameters,
});
const download = (parameters: IDataObject) => ({
	resource: 'transcription',
	operation: 'downloadArtifact',
	format: 'srt',
	binaryPropertyName: 'data',
	...parameters,
});
// A bound on the wait, so a case that wrongly starts a job cannot hold the suite.
const transcribe = (parameters: IDataObject) => ({
	resource: 'transcription',
	operation: 'transcribeAndDownload',
	binaryPropertyName: 'data',
	formats: ['srt'],
	options: { maxWaitSeconds: 20 },
	...parameters,
});
const testWebhook = (parameters: IDataObject) => ({
	resource: 'webhook',
	operation: 'sendTestEvent',
	eventType: 'transcription.completed',
	...parameters,
});

const CASES: Record<string, BadInputCase[]> = {
	'account.get': [
		{
			name: 'revoked key',
			key: 'revoked',
			parameters: { resource: 'account', operation: 'get' },
			expect: { code: 'invalid_api_key' },
		},
		{
			name: 'account without API access',
			key: 'noAccess',
			parameters: { resource: 'account', operation: 'get' },
			expect: { code: 'plan_downgraded_api_revoked' },
		},
	],
	'upload.createSlot': [
		{
			name: 'file name empty',
			parameters: manualSlot({ filename: EMPTY }),
			expect: { mentions: ['File Name', 'filename'] },
		},
		{
			name: 'content type empty',
			parameters: manualSlot({ content_type: EMPTY }),
			expect: { mentions: ['Content Type', 'content_type'] },
		},
		{
			name: 'size 0',
			parameters: manualSlot({ size_bytes: 0 }),
			expect: { mentions: ['Size (Bytes)', 'size_bytes'] },
		},
		{
			name: 'size negative',
			parameters: manualSlot({ size_bytes: -5 }),
			expect: { mentions: ['Size (Bytes)', 'size_bytes'] },
		},
		{
			name: 'size not a number',
			parameters: manualSlot({ size_bytes: '={{ "abc" }}' }),
			expect: { mentions: ['Size (Bytes)', 'size_bytes'] },
		},
		{
			name: 'size fractional',
			parameters: manualSlot({ size_bytes: 10.5 }),
			expect: { mentions: ['Size (Bytes)', 'size_bytes'] },
		},
		{
			name: 'Idempotency Key of 201 characters',
			parameters: manualSlot({ options: { idempotencyKey: TOO_LONG_KEY } }),
			expect: { mentions: ['Idempotency Key'] },
		},
		{
			name: 'missing binary field',
			input: 'wav',
			parameters: createSlot({ source: 'binary', binaryPropertyName: 'media' }),
			expect: { mentions: ['"media"'] },
		},
		{
			name: 'no binary at all',
			input: 'json',
			parameters: createSlot({ source: 'binary', binaryPropertyName: 'data' }),
			expect: { mentions: ['"data"'] },
		},
		{
			name: 'empty binary',
			input: 'emptyWav',
			parameters: createSlot({ source: 'binary', binaryPropertyName: 'data' }),
			expect: { mentions: ['empty', '0 bytes'] },
		},
		{
			name: 'read-only key',
			key: 'readOnly',
			parameters: manualSlot({}),
			expect: { code: 'scope_violation_read_only' },
		},
	],
	'upload.sendMedia': [
		{
			name: 'upload empty',
			input: 'wav',
			parameters: sendMedia({ upload: EMPTY }),
			expect: { mentions: ['Upload'] },
		},
		{
			name: 'unknown upload id',
			input: 'wav',
			parameters: sendMedia({ upload: 'upl_doesnotexist000000000000' }),
			expect: { code: 'upload_not_found' },
		},
		{
			name: "another account's upload id",
			input: 'wav',
			parameters: (f) => sendMedia({ upload: f.otherUploadId }),
			expect: { code: 'upload_not_found' },
		},
		{
			name: 'missing binary field',
			input: 'wav',
			parameters: (f) => sendMedia({ upload: f.emptySlotId, binaryPropertyName: 'media' }),
			expect: { mentions: ['"media"'] },
		},
		{
			name: 'declared size differs from the file',
			input: 'wav',
			parameters: (f) => sendMedia({ upload: f.emptySlotId, options: { declaredSize: 12345 } }),
			expect: { code: 'upload_size_mismatch', mentions: ['12345'] },
		},
		{
			name: 'upload id not a string',
			input: 'wav',
			parameters: sendMedia({ upload: '={{ 42 }}' }),
			expect: { code: 'upload_not_found' },
		},
	],
	'transcription.create': [
		{
			name: 'upload id empty',
			parameters: createJob({ uploadId: EMPTY }),
			expect: { mentions: ['Upload ID', 'upload_id'] },
		},
		{
			name: 'unknown upload id',
			parameters: createJob({ uploadId: 'upl_doesnotexist000000000000' }),
			expect: { code: 'upload_not_found' },
		},
		{
			name: "another account's upload id",
			parameters: (f) => createJob({ uploadId: f.otherUploadId }),
			expect: { code: 'upload_not_found' },
		},
		{
			name: 'slot without bytes',
			parameters: (f) => createJob({ uploadId: f.emptySlotId }),
			expect: { code: 'upload_not_available' },
		},
		{
			name: 'Idempotency Key of 201 characters',
			parameters: (f) =>
				createJob({ uploadId: f.filledSlotId, options: { idempotencyKey: TOO_LONG_KEY } }),
			expect: { mentions: ['Idempotency Key'] },
		},
		{
			name: 'malformed webhook URL',
			parameters: (f) =>
				createJob({ uploadId: f.filledSlotId, additionalFields: { webhook_url: 'not a url' } }),
			expect: { code: 'invalid_webhook_url' },
		},
		{
			name: 'loopback webhook URL',
			parameters: (f) =>
				createJob({
					uploadId: f.filledSlotId,
					additionalFields: { webhook_url: 'https://127.0.0.1/hook' },
				}),
			expect: { code: 'webhook_url_forbidden_target' },
		},
		{
			name: 'model tier not one of the options',
			parameters: (f) =>
				createJob({ uploadId: f.filledSlotId, additionalFields: { model_tier: 'ultra' } }),
			expect: { mentions: ['model_tier', 'Model Tier'] },
		},
		{
			name: 'read-only key',
			key: 'readOnly',
			parameters: (f) => createJob({ uploadId: f.filledSlotId }),
			expect: { code: 'scope_violation_read_only' },
		},
	],
	'transcription.get': [
		{ name: 'job id empty', parameters: getJob(EMPTY), expect: { mentions: ['"Job"', 'job_id'] } },
		{
			name: 'unknown job id',
			parameters: getJob('job_doesnotexist000000000000'),
			expect: { code: 'job_not_found' },
		},
		{
			name: "another account's job id",
			parameters: (f) => getJob(f.otherJobId),
			expect: { code: 'job_not_found' },
		},
		{
			// Refused before any request: an id travels as one path segment (src/api/ids.ts).
			name: 'job id with a path in it',
			parameters: getJob('../../account'),
			expect: { code: 'invalid_id' },
		},
	],
	'transcription.getAll': [
		{
			name: 'limit 0',
			parameters: listJobs({ returnAll: false, limit: 0 }),
			expect: { mentions: ['Limit', 'limit'] },
		},
		{
			name: 'limit 101',
			parameters: listJobs({ returnAll: false, limit: 101 }),
			expect: { mentions: ['Limit', 'limit'] },
		},
		{
			name: 'limit not a number',
			parameters: listJobs({ returnAll: false, limit: '={{ "many" }}' }),
			expect: { mentions: ['Limit', 'limit'] },
		},
	],
	'transcription.downloadArtifact': [
		{
			name: 'job id empty',
			parameters: download({ jobId: EMPTY }),
			expect: { mentions: ['"Job"', 'job_id'] },
		},
		{
			name: 'unknown job id',
			parameters: download({ jobId: 'job_doesnotexist000000000000' }),
			expect: { code: 'job_not_found' },
		},
		{
			name: "another account's job id",
			parameters: (f) => download({ jobId: f.otherJobId }),
			expect: { code: 'job_not_found' },
		},
		{
			name: 'unsupported format',
			parameters: (f) => download({ jobId: f.runningJobId, format: 'mp3' }),
			expect: { code: 'unsupported_artifact_format', mentions: ['Format', 'format'] },
		},
		{
			name: 'job not completed',
			parameters: (f) => download({ jobId: f.runningJobId }),
			expect: { code: 'artifact_not_ready' },
		},
		{
			name: 'output field empty',
			parameters: (f) => download({ jobId: f.completedJobId, binaryPropertyName: EMPTY }),
			expect: { mentions: ['Put Output File in Field', 'field'] },
		},
	],
	'transcription.transcribeAndDownload': [
		{
			name: 'missing binary field',
			input: 'wav',
			parameters: transcribe({ binaryPropertyName: 'media' }),
			expect: { mentions: ['"media"'] },
		},
		{
			name: 'no binary at all',
			input: 'json',
			parameters: transcribe({}),
			expect: { mentions: ['"data"'] },
		},
		{
			name: 'empty binary',
			input: 'emptyWav',
			parameters: transcribe({}),
			expect: { mentions: ['empty', '0 bytes'] },
		},
		{
			name: 'no format selected',
			input: 'wav',
			parameters: transcribe({ formats: '={{ [] }}' }),
			expect: { mentions: ['Download Format', 'format'] },
		},
		// The test key completes at once, so the format is put to the service rather than waited out.
		{
			name: 'unsupported format',
			key: 'test',
			input: 'wav',
			parameters: transcribe({ formats: ['mp3'] }),
			expect: { mentions: ['mp3'] },
		},
		{
			name: 'malformed webhook URL',
			input: 'wav',
			parameters: transcribe({ additionalFields: { webhook_url: 'not a url' } }),
			expect: { code: 'invalid_webhook_url' },
		},
		{
			name: 'loopback webhook URL',
			input: 'wav',
			parameters: transcribe({ additionalFields: { webhook_url: 'https://[::1]/hook' } }),
			expect: { code: 'webhook_url_forbidden_target' },
		},
		{
			name: 'read-only key',
			key: 'readOnly',
			input: 'wav',
			parameters: transcribe({}),
			expect: { code: 'scope_violation_read_only' },
		},
	],
	'webhook.sendTestEvent': [
		{
			name: 'webhook URL empty',
			parameters: testWebhook({ webhookUrl: EMPTY }),
			expect: { mentions: ['Webhook URL', 'webhook_url'] },
		},
		{
			name: 'malformed webhook URL',
			parameters: testWebhook({ webhookUrl: 'not a url' }),
			expect: { code: 'invalid_webhook_url' },
		},
		{
			name: 'loopback webhook URL',
			parameters: testWebhook({ webhookUrl: 'https://localhost/hook' }),
			expect: { code: 'webhook_url_forbidden_target' },
		},
	],
};

let sandbox: RunningSandbox;
let admin: SandboxAdmin;
let other: CreatedKey;
let fixtures: Fixtures;
const evidence = new Evidence();

async function api<T>(key: string, method: string, path: string, body?: unknown): Promise<T> {
	const response = await fetch(`${sandbox.baseUrl}/api/v1${path}`, {
		method,
		headers: {
			authorization: `Bearer ${key}`,
			'content-type': body instanceof Buffer ? 'application/octet-stream' : 'application/json',
		},
		body: body === undefined ? undefined : body instanceof Buffer ? body : JSON.stringify(body),
	});
	const parsed = (await response.json()) as T;
	if (!response.ok)
		throw new Error(`${method} ${path} → ${response.status} ${JSON.stringify(parsed)}`);
	return parsed;
}

/** A slot (with its bytes when `media` is given) and, when asked, a job — made directly through the API. */
async function seedSlot(
	key: string,
	media?: Buffer,
	withJob = false,
): Promise<{ uploadId: string; jobId?: string }> {
	const bytes = media ?? makeWav({ seconds: 1 });
	const slot = await api<{ upload_id: string }>(key, 'POST', '/uploads', {
		filename: 'seed.wav',
		content_type: 'audio/wav',
		size_bytes: bytes.length,
	});
	if (!media) return { uploadId: slot.upload_id };
	await api(key, 'PUT', `/uploads/${slot.upload_id}/binary`, bytes);
	if (!withJob) return { uploadId: slot.upload_id };
	const job = await api<{ job_id: string }>(key, 'POST', '/transcriptions', {
		upload_id: slot.upload_id,
	});
	return { uploadId: slot.upload_id, jobId: job.job_id };
}

function keyOf(name: KeyName): string {
	const keys = sandbox.keys;
	return {
		live: keys.platinum_live,
		test: keys.platinum_test,
		readOnly: keys.read_only_live,
		revoked: keys.revoked_live,
		noAccess: keys.no_api_access_live,
	}[name].key;
}

async function inputItems(input: Input | undefined): Promise<INodeExecutionData[]> {
	if (input === 'wav')
		return [
			await binaryItem({
				data: makeWav({ seconds: 1 }),
				fileName: 'bad-input.wav',
				mimeType: 'audio/wav',
			}),
		];
	if (input === 'emptyWav')
		return [
			await binaryItem({ data: Buffer.alloc(0), fileName: 'empty.wav', mimeType: 'audio/wav' }),
		];
	return [{ json: { note: 'an item without binary data' } }];
}

/** What a case left behind for the user to find: new jobs, and new slots that no job consumed. */
function createdIds(before: SandboxRecords, after: SandboxRecords): string[] {
	const known = new Set([
		...before.uploads.map((upload) => upload.upload_id),
		...before.jobs.map((job) => job.job_id),
	]);
	const consumed = new Set(after.jobs.map((job) => job.upload_id));
	return [
		...after.uploads
			.filter((upload) => !consumed.has(upload.upload_id))
			.map((upload) => upload.upload_id),
		...after.jobs.map((job) => job.job_id),
	].filter((id) => !known.has(id));
}

beforeAll(async () => {
	captureLogs(evidence);
	// Long live jobs, so a job created here is still running when a case needs one that is not completed.
	sandbox = await startSandbox({ port: 0, quiet: true, jobSeconds: 600 });
	admin = new SandboxAdmin(sandbox.baseUrl);
	other = await admin.createKey({ mode: 'live', scope: 'full_access', tier: 'platinum' });
	const othersJob = await seedSlot(other.key, makeWav({ seconds: 1 }), true);
	const running = await seedSlot(keyOf('live'), makeWav({ seconds: 1 }), true);
	fixtures = {
		otherUploadId: othersJob.uploadId,
		otherJobId: othersJob.jobId!,
		emptySlotId: (await seedSlot(keyOf('live'))).uploadId,
		filledSlotId: (await seedSlot(keyOf('live'), makeWav({ seconds: 1 }))).uploadId,
		runningJobId: running.jobId!,
		completedJobId: (await seedSlot(keyOf('test'), makeWav({ seconds: 1 }), true)).jobId!,
	};
});

afterAll(async () => {
	await sandbox?.close();
});

const table = Object.entries(CASES).flatMap(([operation, cases]) =>
	cases.map((badCase) => [operation, badCase.name, badCase] as const),
);

test.each(table)(
	'R3 %s: %s → a clear error, no crash, nothing unmentioned created',
	async (_operation, _name, badCase) => {
		const parameters =
			typeof badCase.parameters === 'function' ? badCase.parameters(fixtures) : badCase.parameters;
		const accounts = [sandbox.keys.platinum_live.account_id, other.account_id];
		const before = await Promise.all(accounts.map((account) => admin.records(account)));
		const credentials: TestCredentials = {
			apiKey: keyOf(badCase.key ?? 'live'),
			baseUrl: sandbox.baseUrl,
		};

		const run = await runWorkflow({
			nodes: [
				{
					name: NODE_NAME,
					type: nodeType('transcriptionService'),
					parameters: parameters as INodeParameters,
					onError: 'continueRegularOutput',
				},
			],
			input: await inputItems(badCase.input),
			credentials,
		});
		if (run.error) evidence.addError(`R3 ${badCase.name} execution error`, run.error);
		expect(run.error).toBeUndefined();
		const output = run.output(NODE_NAME);
		evidence.addItems(`R3 ${badCase.name}`, output);
		expect(output).toHaveLength(1);

		const error = output[0].json.error as
			{ code?: string; message?: string; description?: string } | undefined;
		expect(error).toBeDefined();
		const text = `${error?.message ?? ''}\n${error?.description ?? ''}`;
		expect(error?.message).toEqual(expect.any(String));
		expect(text).not.toMatch(CRASH);
		if (badCase.expect.code) expect(error?.code).toBe(badCase.expect.code);
		if (badCase.expect.mentions) {
			const lower = text.toLowerCase();
			expect({
				text,
				mentionsOneOf: badCase.expect.mentions.some((field) => lower.includes(field.toLowerCase())),
			}).toEqual({ text, mentionsOneOf: true });
		}

		const after = await Promise.all(accounts.map((account) => admin.records(account)));
		const created = before.flatMap((records, index) => createdIds(records, after[index]));
		const outputText = JSON.stringify(output[0].json);
		expect(created.filter((id) => !outputText.includes(id))).toEqual([]);
	},
);

test('R3: a literally empty required parameter of any operation is refused by n8n before the run, naming it', async () => {
	const description = (await loadPackage()).getNode('transcriptionService').type
		.description as INodeTypeDescription;
	const properties = description.properties;
	const withDefaults = (parameters: INodeParameters): INode => {
		const node: INode = {
			id: 'r3',
			name: NODE_NAME,
			type: nodeType('transcriptionService'),
			typeVersion: 1,
			position: [0, 0],
			parameters,
		};
		node.parameters =
			NodeHelpers.getNodeParameters(properties, parameters, true, false, node, description) ?? {};
		return node;
	};
	const shown = (node: INode, property: INodeProperties) =>
		NodeHelpers.displayParameter(node.parameters, property, node, description);
	const operations = properties
		.filter((property) => property.name === 'operation')
		.flatMap((property) =>
			(property.options ?? []).map((option) => ({
				resource: String(property.displayOptions?.show?.resource?.[0]),
				operation: String((option as { value: unknown }).value),
			})),
		);
	const unflagged = new Set<string>();
	const checked = new Set<string>();
	for (const { resource, operation } of operations) {
		const base = withDefaults({ resource, operation });
		// Every value of every choice the operation shows (e.g. Create Slot's "Media Details") is a variant of its form.
		const variants: INodeParameters[] = [{}];
		for (const choice of properties.filter(
			(property) =>
				property.type === 'options' && property.name !== 'operation' && shown(base, property),
		)) {
			for (const option of choice.options ?? [])
				variants.push({ [choice.name]: (option as { value: string }).value });
		}
		for (const variant of variants) {
			const node = withDefaults({ resource, operation, ...variant });
			for (const property of properties.filter(
				(candidate) =>
					candidate.required &&
					(candidate.type === 'string' || candidate.type === 'resourceLocator') &&
					shown(node, candidate),
			)) {
				const label = `${resource}.${operation}: ${property.name}`;
				checked.add(label);
				const empty =
					property.type === 'resourceLocator' ? { __rl: true, mode: 'id', value: '' } : '';
				const emptied = withDefaults({ ...node.parameters, [property.name]: empty });
				emptied.parameters[property.name] = empty;
				if (
					!NodeHelpers.getNodeParametersIssues(properties, emptied, description)?.parameters?.[
						property.name
					]
				)
					unflagged.add(label);
			}
		}
	}
	expect(checked.size).toBeGreaterThan(5);
	expect([...unflagged]).toEqual([]);
});

test('R4 (R3 runs): no API key or signing secret in any output item, error or log line', () => {
	const secrets: Record<string, string> = {
		'other account key': other.key,
		'other signing secret': other.signing_secret ?? '',
	};
	for (const [name, key] of Object.entries(sandbox.keys)) {
		secrets[`${name} key`] = key.key;
		secrets[`${name} signing secret`] = key.signing_secret;
	}
	expect(evidence.size).toBeGreaterThan(table.length);
	expect(scanForSecrets(evidence, secrets)).toEqual([]);
});
