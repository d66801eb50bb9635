// Suite 4: n8n offers the action node to AI agents (usableAsTool) and loads every node under the names users see for
// an installed community package; and an agent transcribes a link with it. No language model is needed for that: n8n's
// MCP Server Trigger exposes the tools attached to it to any MCP client, so the official MCP SDK lists the node as a
// tool and calls it with nothing but a URL, as an agent would, and gets the transcript's text back.
// The SDK's exports map gives "./*" the types "./dist/esm/*.d.ts", which the lint's resolver reads as "index.js.d.ts";
// Node, jest and TypeScript resolve these paths as the SDK documents them.
// eslint-disable-next-line import-x/no-unresolved
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
// eslint-disable-next-line import-x/no-unresolved
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { makeWav } from '../support/fixtures/media';
import { startMediaHost, type MediaHost } from '../support/media/media-host';
import { SANDBOX_TEST_KEY_CREDENTIAL } from '../support/n8n/environment';
import { serviceArtifact } from '../support/n8n/executions';
import { PACKAGE_NAME } from '../support/n8n/package';
import { suiteHandles } from '../support/n8n/suite';
import { Evidence, scanForSecrets } from '../support/reliability/evidence';

const { context, api } = suiteHandles();

describe(`Node types in n8n ${context.n8nVersion} (Node ${context.nodeVersion})`, () => {
	it('lists the action node, its AI-tool variant and both triggers', async () => {
		const names = await api.nodeTypeNames();

		expect(names).toContain(`${PACKAGE_NAME}.transcriptionService`);
		expect(names).toContain(`${PACKAGE_NAME}.transcriptionServiceTool`);
		expect(names).toContain(`${PACKAGE_NAME}.transcriptionServiceTrigger`);
		expect(names).toContain(`${PACKAGE_NAME}.transcriptionServicePollingTrigger`);
	});
});

const MCP_PATH = 'tss-transcribe-a-link';
const TOOL_NODE = 'Transcribe a Recording';
const SIGNATURE = 'X-Amz-Signature=mcp5ignature0000e2e';

/** An MCP Server Trigger with the action node attached as its tool: Transcribe and Download of a URL the model gives. */
function mcpWorkflow() {
	return {
		name: 'e2e: MCP Server Trigger → Transcription Service tool',
		nodes: [
			{
				id: 'a1f0c2d4-7e6b-4c3a-9d8e-000000000001',
				name: 'MCP Server Trigger',
				type: '@n8n/n8n-nodes-langchain.mcpTrigger',
				typeVersion: 2,
				position: [0, 0],
				webhookId: 'a1f0c2d4-7e6b-4c3a-9d8e-0000000000aa',
				parameters: { path: MCP_PATH },
			},
			{
				id: 'a1f0c2d4-7e6b-4c3a-9d8e-000000000002',
				name: TOOL_NODE,
				type: `${PACKAGE_NAME}.transcriptionServiceTool`,
				typeVersion: 1,
				position: [0, 240],
				credentials: { transcriptionServiceApi: SANDBOX_TEST_KEY_CREDENTIAL },
				parameters: {
					resource: 'transcription',
					operation: 'transcribeAndDownload',
					mediaSource: 'url',
					mediaUrl:
						"={{ $fromAI('url', 'The https:// or http:// link of the audio or video file to transcribe', 'string') }}",
					formats: ['txt'],
					options: {},
				},
			},
		],
		connections: {
			[TOOL_NODE]: { ai_tool: [[{ node: 'MCP Server Trigger', type: 'ai_tool', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	};
}

describe(`An AI agent transcribes a link in n8n ${context.n8nVersion}: the node as an MCP tool`, () => {
	let host: MediaHost;
	let client: Client;
	const evidence = new Evidence();

	beforeAll(async () => {
		host = await startMediaHost();
		host.add('episode-7.wav', { bytes: makeWav({ seconds: 3 }), contentType: 'audio/wav' });
		const workflowId = await api.createWorkflow(mcpWorkflow());
		await api.activateWorkflow(workflowId);
		client = new Client({ name: 'tss-e2e-agent', version: '1.0.0' });
		await client.connect(
			new StreamableHTTPClientTransport(new URL(`${context.n8nBaseUrl}/mcp/${MCP_PATH}`)),
		);
	});

	afterAll(async () => {
		await client?.close();
		await host?.close();
	});

	it('lists the tool with the description written for agents, its only input the URL', async () => {
		const { tools } = await client.listTools();
		expect(tools).toHaveLength(1);
		const [tool] = tools;
		// n8n describes a node's tool by its operation's action.
		expect(tool.description).toBe(
			'Transcribe a recording from a URL or a file and get its transcript in Transcription Service',
		);
		expect(tool.inputSchema.properties).toEqual({
			url: expect.objectContaining({ type: 'string' }),
		});
	});

	it('called with nothing but a link, it downloads the file, waits for the job and returns the transcript text', async () => {
		const { tools } = await client.listTools();
		const link = `${host.url('/file/episode-7.wav')}?${SIGNATURE}`;
		const result = await client.callTool({ name: tools[0].name, arguments: { url: link } });
		evidence.add('MCP tool result', result);

		expect(result.isError).not.toBe(true);
		const [content] = result.content as Array<{ type: string; text: string }>;
		expect(content.type).toBe('text');
		const output = JSON.parse(content.text) as unknown;
		const [item] = (Array.isArray(output) ? output : [output]) as Array<{
			job_id: string;
			status: string;
			text: string;
		}>;
		expect(item.status).toBe('completed');
		const transcript = await serviceArtifact(
			context.sandboxBaseUrl,
			context.keys.test,
			item.job_id,
			'txt',
		);
		expect(item.text).toBe(transcript.toString('utf8'));

		// The media host saw one GET, with the signature and no credential of the service.
		const gets = host.requests.filter((request) => request.method === 'GET');
		expect(gets).toHaveLength(1);
		expect(gets[0].url).toContain(SIGNATURE);
		expect(gets[0].headers.authorization).toBeUndefined();
		expect(scanForSecrets(evidence, { 'the link signature': 'mcp5ignature0000e2e' })).toEqual([]);
	});
});
