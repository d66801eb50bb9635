// Upload → Create Slot (createUpload) and Upload → Send Media (uploadBinary) inside n8n's engine.
import { Container } from '@n8n/di';
import { unlink } from 'node:fs/promises';
import { BinaryDataService } from 'n8n-core';
import { makeWav } from '../support/fixtures/media';
import {
	actionNode,
	ACTION_NODE,
	binaryItem,
	nodeError,
	runWorkflow,
} from '../support/engine/harness';
import { useEngineSandbox } from '../support/engine/engine-sandbox';
import { freshAccounts } from '../support/engine/accounts';

const env = useEngineSandbox({ recordExchanges: true });
const { live: credentials } = env;
const freshAccount = freshAccounts(env);
const wav = makeWav({ seconds: 1 });

const wavItem = (data: Buffer = wav, fileName = 'interview.wav') =>
	binaryItem({ data, fileName, mimeType: 'audio/wav' });

const createSlot = (parameters: Record<string, unknown> = {}, name?: string) =>
	actionNode(
		{
			resource: 'upload',
			operation: 'createSlot',
			source: 'binary',
			binaryPropertyName: 'data',
			...parameters,
		},
		{ name },
	);
const sendMedia = (parameters: Record<string, unknown> = {}) =>
	actionNode({
		resource: 'upload',
		operation: 'sendMedia',
		binaryPropertyName: 'data',
		...parameters,
	});

async function slotFor(size: number) {
	const result = await runWorkflow({
		nodes: [
			createSlot({
				source: 'manual',
				filename: 'a.wav',
				content_type: 'audio/wav',
				size_bytes: size,
			}),
		],
		credentials,
	});
	return result.output(ACTION_NODE)[0].json as { upload_id: string; upload_url: string };
}

describe('Upload → Create Slot (createUpload)', () => {
	test('from input binary: file name, MIME type and exact size come from the binary, which the item keeps', async () => {
		const input = await wavItem();
		const result = await runWorkflow({ nodes: [createSlot()], credentials, input: [input] });
		expect(result.error).toBeUndefined();
		const [item] = result.output(ACTION_NODE);
		expect(item.json).toEqual({
			upload_id: expect.stringMatching(/\S/),
			upload_url: `/api/v1/uploads/${String(item.json.upload_id)}/binary`,
			upload_method: 'PUT',
			expires_at: expect.any(String),
			filename: 'interview.wav',
			content_type: 'audio/wav',
			size_bytes: wav.length,
		});
		expect(item.binary?.data.id).toBe(input.binary?.data.id);
		const sent = env.proxy.exchanges.find((exchange) => exchange.method === 'POST');
		expect(sent?.requestHeaders['idempotency-key']).toEqual(expect.stringMatching(/^.{1,200}$/));
	});

	test('typed in, with a Hebrew file name', async () => {
		const result = await runWorkflow({
			nodes: [
				createSlot({
					source: 'manual',
					filename: 'ראיון.mp3',
					content_type: 'audio/mpeg',
					size_bytes: 1234,
				}),
			],
			credentials,
		});
		expect(result.output(ACTION_NODE)[0].json).toMatchObject({
			filename: 'ראיון.mp3',
			size_bytes: 1234,
		});
	});

	test("one generated Idempotency-Key per item; the user's key returns the same slot for the same details", async () => {
		const generated = await runWorkflow({
			nodes: [createSlot()],
			credentials,
			input: [await wavItem(), await wavItem()],
		});
		const keys = env.proxy.exchanges.map((exchange) => exchange.requestHeaders['idempotency-key']);
		expect(new Set(keys).size).toBe(2);
		const [first, second] = generated.output(ACTION_NODE);
		expect(first.json.upload_id).not.toBe(second.json.upload_id);

		const withKey = createSlot({ options: { idempotencyKey: '={{ "slot-" + $json.n }}' } });
		const input = [await wavItem(), await wavItem()].map((item) => ({ ...item, json: { n: 7 } }));
		const replayed = await runWorkflow({ nodes: [withKey], credentials, input });
		const [a, b] = replayed.output(ACTION_NODE);
		expect(a.json.upload_id).toBe(b.json.upload_id);
	});

	test('409 idempotency_mismatch: the same key with other details', async () => {
		const key = `mismatch-${Date.now()}`;
		await runWorkflow({
			nodes: [createSlot({ options: { idempotencyKey: key } })],
			credentials,
			input: [await wavItem()],
		});
		const result = await runWorkflow({
			nodes: [createSlot({ options: { idempotencyKey: key } })],
			credentials,
			input: [await wavItem(makeWav({ seconds: 2 }))],
		});
		const error = nodeError(result);
		expect(error.code).toBe('idempotency_mismatch');
		expect(error.httpCode).toBe('409');
	});

	test('an Idempotency Key over 200 characters is refused before sending, naming the field', async () => {
		const result = await runWorkflow({
			nodes: [createSlot({ options: { idempotencyKey: 'k'.repeat(201) } })],
			credentials,
			input: [await wavItem()],
		});
		expect(nodeError(result).message).toBe(
			'Idempotency Key is 201 characters long; the API accepts 1 to 200',
		);
		expect(env.proxy.exchanges).toHaveLength(0);
	});

	test('403 scope_violation_read_only for a read-only key', async () => {
		const result = await runWorkflow({
			nodes: [createSlot()],
			credentials: { ...credentials, apiKey: env.sandbox.keys.read_only_live.key },
			input: [await wavItem()],
		});
		expect(nodeError(result).code).toBe('scope_violation_read_only');
	});

	test('422 for details the API rejects (empty content type)', async () => {
		const result = await runWorkflow({
			nodes: [
				createSlot({
					source: 'manual',
					filename: 'a.wav',
					content_type: '={{ "" }}',
					size_bytes: 10,
				}),
			],
			credentials,
		});
		const error = nodeError(result);
		expect(error.httpCode).toBe('422');
		expect(error.code).toEqual(expect.any(String));
	});

	test('a missing binary field is named, with the fields the item has', async () => {
		const result = await runWorkflow({
			nodes: [createSlot({ binaryPropertyName: 'audio' })],
			credentials,
			input: [await wavItem()],
		});
		const error = nodeError(result);
		expect(error.message).toBe('The item has no binary field "audio"');
		expect(error.description).toBe(
			'Its binary fields are: "data". Set "Input Binary Field" to one of them.',
		);
	});
});

describe('Upload → Send Media (uploadBinary)', () => {
	test('streams the binary with an exact Content-Length into the slot from Create Slot', async () => {
		const result = await runWorkflow({
			nodes: [createSlot({}, 'Create Slot'), sendMedia()],
			credentials,
			input: [await wavItem()],
		});
		expect(result.error).toBeUndefined();
		const [item] = result.output(ACTION_NODE);
		const put = env.proxy.exchanges.find((exchange) => exchange.method === 'PUT');
		expect(put?.requestHeaders['content-length']).toBe(String(wav.length));
		expect(put?.requestHeaders['content-type']).toBe('application/octet-stream');
		expect(put?.requestBytes).toBe(wav.length);
		expect(item.json).toEqual({
			upload_id: expect.any(String),
			ok: true,
			bytes_received: wav.length,
		});
		expect(put?.url).toBe(`/api/v1/uploads/${String(item.json.upload_id)}/binary`);
	});

	test("accepts the slot's upload_url instead of the upload_id, and an in-memory binary", async () => {
		const slot = await slotFor(wav.length);
		const inline = {
			json: {},
			binary: { data: { data: wav.toString('base64'), mimeType: 'audio/wav', fileName: 'a.wav' } },
		};
		const result = await runWorkflow({
			nodes: [sendMedia({ upload: slot.upload_url })],
			credentials,
			input: [inline],
		});
		expect(result.output(ACTION_NODE)[0].json).toEqual({
			upload_id: slot.upload_id,
			ok: true,
			bytes_received: wav.length,
		});
	});

	test("a file whose size differs from the slot's is refused before sending, naming both sizes", async () => {
		const result = await runWorkflow({
			nodes: [
				createSlot(
					{ source: 'manual', filename: 'a.wav', content_type: 'audio/wav', size_bytes: 100 },
					'Create Slot',
				),
				sendMedia(),
			],
			credentials,
			input: [await wavItem()],
		});
		const error = nodeError(result);
		expect(error.message).toBe(
			`The file in "data" is ${wav.length} bytes but the slot was declared with 100 bytes`,
		);
		expect(error.code).toBe('upload_size_mismatch');
		expect(env.proxy.exchanges.filter((exchange) => exchange.method === 'PUT')).toHaveLength(0);
	});

	test('an input binary that can no longer be read is a local error naming it, not a network failure', async () => {
		const slot = await slotFor(wav.length);
		const input = await wavItem();
		await unlink(Container.get(BinaryDataService).getPath(String(input.binary?.data.id)));
		const result = await runWorkflow({
			nodes: [sendMedia({ upload: slot.upload_id })],
			credentials,
			input: [input],
		});
		const error = nodeError(result);
		expect(error.message).toBe('Could not read the input binary to upload: File not found');
		expect(error.code).not.toBe('network_error');
		expect(env.proxy.exchanges.filter((exchange) => exchange.method === 'PUT')).toHaveLength(0);
	});

	test('400 upload_size_mismatch from the service when no declared size is known to the node', async () => {
		const slot = await slotFor(100);
		const result = await runWorkflow({
			nodes: [sendMedia({ upload: slot.upload_id })],
			credentials,
			input: [await wavItem()],
		});
		expect(nodeError(result).code).toBe('upload_size_mismatch');
	});

	test('400 empty_upload_body for an empty file', async () => {
		const slot = await slotFor(100);
		const result = await runWorkflow({
			nodes: [sendMedia({ upload: slot.upload_id })],
			credentials,
			input: [await wavItem(Buffer.alloc(0))],
		});
		expect(nodeError(result).code).toBe('empty_upload_body');
	});

	test('404 upload_not_found for an unknown slot', async () => {
		const result = await runWorkflow({
			nodes: [sendMedia({ upload: 'upl_unknown' })],
			credentials,
			input: [await wavItem()],
		});
		const error = nodeError(result);
		expect(error.code).toBe('upload_not_found');
		expect(error.httpCode).toBe('404');
	});

	test('409 upload_not_available for a slot that already holds its bytes', async () => {
		const slot = await slotFor(wav.length);
		const input = [await wavItem()];
		const first = await runWorkflow({
			nodes: [sendMedia({ upload: slot.upload_id })],
			credentials,
			input,
		});
		expect(first.error).toBeUndefined();
		const again = await runWorkflow({
			nodes: [sendMedia({ upload: slot.upload_id })],
			credentials,
			input,
		});
		expect(nodeError(again).code).toBe('upload_not_available');
	});

	test('410 upload_slot_expired after 30 minutes', async () => {
		const slot = await slotFor(wav.length);
		await env.admin.advanceClock(31 * 60);
		const result = await runWorkflow({
			nodes: [sendMedia({ upload: slot.upload_id })],
			credentials,
			input: [await wavItem()],
		});
		expect(nodeError(result).code).toBe('upload_slot_expired');
	});

	test('403 plan_downgraded_api_revoked for an account without API access', async () => {
		const result = await runWorkflow({
			nodes: [sendMedia({ upload: 'upl_any' })],
			credentials: { ...credentials, apiKey: env.sandbox.keys.no_api_access_live.key },
			input: [await wavItem()],
		});
		expect(nodeError(result).code).toBe('plan_downgraded_api_revoked');
	});
});

// A retry of Send Media after a lost answer (spec 7), beside 409 upload_not_available above.
describe('retries (spec 7) without a duplicate slot or job', () => {
	test('Send Media alone: a retry after a lost answer meets 409 upload_not_available and reports the bytes as stored', async () => {
		const { credentials } = await freshAccount();
		await env.admin.setFaults({
			seed: 1,
			rules: [{ route: 'uploadBinary', kind: 'drop_after_commit', count: 1 }],
		});
		const result = await runWorkflow({
			nodes: [
				actionNode(
					{
						resource: 'upload',
						operation: 'createSlot',
						source: 'binary',
						binaryPropertyName: 'data',
					},
					{ name: 'Slot' },
				),
				actionNode({ resource: 'upload', operation: 'sendMedia', binaryPropertyName: 'data' }),
			],
			credentials,
			input: [await binaryItem({ data: wav, fileName: 'a.wav', mimeType: 'audio/wav' })],
		});
		expect(result.error).toBeUndefined();
		expect(result.output(ACTION_NODE)[0].json).toEqual({
			upload_id: expect.any(String),
			ok: true,
			bytes_received: wav.length,
			already_stored: true,
		});
		expect(
			env.proxy.exchanges.filter((exchange) => exchange.method === 'PUT').map((put) => put.status),
		).toEqual([undefined, 409]);
	});
});
