// Serves the built Transcription Service Trigger the way n8n serves a production webhook: an express app with
// n8n's raw-body reader and body parser, a fresh `Workflow` per request with the static data n8n would have
// saved, n8n-core's own WebhookContext around the node's real webhook(), and n8n's rules for answering when the
// node does not answer itself. Activation goes through n8n-core's HookContext (checkExists → create, delete).
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Request, type Response } from 'express';
import * as n8nCore from 'n8n-core';
import { HookContext, WebhookContext, type LazyPackageDirectoryLoader } from 'n8n-core';
import type {
	IDataObject,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	IWebhookData,
	IWebhookResponseData,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { NodeHelpers, Workflow } from 'n8n-workflow';

import {
	FixtureCredentialsHelper,
	fixtureCredentials,
	initBinaryData,
	loadPackage,
	nodeType,
	runWorkflow,
	triggerWorkflow,
	changedStaticData,
	type TestCredentials,
} from './harness';
import { buildSignedDelivery } from '../../../src/service';

export const TRIGGER_TYPE = nodeType('transcriptionServiceTrigger');
export const TRIGGER_NODE_NAME = 'Transcription Service Trigger';
const WEBHOOK_ID = '5b0c7a52-6f0e-4d2b-9a43-trigger00001';
let workflowCounter = 0;
/** n8n's default N8N_PAYLOAD_SIZE_MAX (16 MiB): bodies up to this size reach the node. */
const N8N_PAYLOAD_SIZE_MAX = 16 * 1024 * 1024;

// ---- The trigger behind a real HTTP server ----

export interface TriggerSetup {
	parameters?: INodeParameters;
	credentials: TestCredentials;
	/** Run each started execution through n8n-core's WorkflowExecute (default false: only the node's output). */
	runExecutions?: boolean;
	/** Leave the body unread before webhook(), so the node has to call readRawBody() itself (default false). */
	skipBodyParsing?: boolean;
}

export interface WebhookCall {
	status: number;
	response: unknown;
	/** What the node handed to n8n to start an execution; undefined when no execution started. */
	workflowData?: INodeExecutionData[][];
	/** The trigger node's output in the execution n8n-core ran (with `runExecutions`). */
	executionOutput?: INodeExecutionData[];
	/** An exception out of webhook(): n8n would answer 500. */
	error?: Error;
}

export class TriggerUnderTest {
	/** The workflow's static data as n8n's database holds it between requests. */
	storedStaticData: IDataObject = {};
	readonly calls: WebhookCall[] = [];
	/** Each trigger under test is its own workflow, as the trigger's in-process dedupe window is keyed by workflow. */
	private readonly workflowId = `trigger-engine-workflow-${++workflowCounter}`;
	private readonly waiters: Array<{
		from: number;
		until: number;
		resolve: (calls: WebhookCall[]) => void;
	}> = [];

	private constructor(
		private readonly loader: LazyPackageDirectoryLoader,
		private readonly setup: TriggerSetup,
		private readonly server: Server,
		readonly origin: string,
	) {}

	static async start(setup: TriggerSetup): Promise<TriggerUnderTest> {
		const loader = await loadPackage();
		await initBinaryData();
		const app = express();
		const server = app.listen(0, '127.0.0.1');
		await once(server, 'listening');
		const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
		const trigger = new TriggerUnderTest(loader, setup, server, origin);
		app.use(rawBodyReader(await loadParseIncomingMessage()));
		app.post(
			`/webhook/${WEBHOOK_ID}/webhook`,
			(req, res) => void trigger.handle(req, res, 'webhook'),
		);
		app.post(
			`/webhook-test/${WEBHOOK_ID}/webhook`,
			(req, res) => void trigger.handle(req, res, 'manual'),
		);
		return trigger;
	}

	/** The Production URL the user pastes into the action node's Webhook URL. */
	get productionUrl(): string {
		return `${this.origin}/webhook/${WEBHOOK_ID}/webhook`;
	}

	/** The Test URL of "Listen for test event" (n8n's manual mode). */
	get testUrl(): string {
		return `${this.origin}/webhook-test/${WEBHOOK_ID}/webhook`;
	}

	get nodeStaticData(): IDataObject {
		return (this.storedStaticData[`node:${TRIGGER_NODE_NAME}`] ?? {}) as IDataObject;
	}

	/** POSTs as a client would; status and response are what the client received. */
	async post(
		body: Buffer | string,
		headers: Record<string, string>,
		url = this.productionUrl,
	): Promise<WebhookCall> {
		const settled = this.nextCalls(1);
		const answer = await fetch(url, { method: 'POST', headers, body });
		const text = await answer.text();
		const [call] = await settled;
		return { ...call, status: answer.status, response: text === '' ? undefined : JSON.parse(text) };
	}

	/** Signs `event` with `secret` as the service does, now, and POSTs it as JSON. */
	async postSignedEvent(
		event: { event: string; event_id: string } & object,
		secret: string,
	): Promise<WebhookCall> {
		const signed = buildSignedDelivery({ secret, timestamp: Math.floor(Date.now() / 1000), event });
		return await this.post(signed.body, { ...signed.headers, 'Content-Type': 'application/json' });
	}

	/** Resolves once `count` more requests have been answered and processed (as the sandbox sends them). */
	nextCalls(count: number): Promise<WebhookCall[]> {
		const from = this.calls.length;
		return new Promise((resolve) => this.waiters.push({ from, until: from + count, resolve }));
	}

	/**
	 * n8n's activation (mode 'trigger') or test listener (mode 'manual'): checkExists, then create when it answers
	 * false. Static data is saved only after a successful activation, never for a test listener.
	 */
	async activate(mode: WorkflowExecuteMode = 'trigger'): Promise<void> {
		const workflow = this.workflow();
		const methods = this.nodeType().webhookMethods?.default;
		if (!methods) throw new Error('The trigger has no webhookMethods.default');
		const context = this.hookContext(workflow, mode);
		if (!(await methods.checkExists.call(context))) await methods.create.call(context);
		if (mode !== 'manual') this.saveStaticData(workflow);
	}

	async deactivate(): Promise<void> {
		const workflow = this.workflow();
		await this.nodeType().webhookMethods?.default?.delete.call(
			this.hookContext(workflow, 'internal'),
		);
		this.saveStaticData(workflow);
	}

	async close(): Promise<void> {
		this.server.closeAllConnections();
		this.server.close();
		await once(this.server, 'close');
	}

	private async handle(req: Request, res: Response, mode: WorkflowExecuteMode): Promise<void> {
		const call: WebhookCall = await this.execute(req, res, mode).catch((error: Error) => {
			// A harness failure must fail the test that waits for this call, not hang it.
			if (!res.headersSent) res.status(500).end();
			return { status: 500, response: undefined, error };
		});
		if (call.workflowData && this.setup.runExecutions) {
			const run = await runWorkflow({
				nodes: [
					{ name: TRIGGER_NODE_NAME, type: TRIGGER_TYPE, parameters: this.setup.parameters ?? {} },
				],
				input: call.workflowData[0],
				credentials: this.setup.credentials,
			});
			call.executionOutput = run.output(TRIGGER_NODE_NAME);
		}
		this.calls.push(call);
		for (const waiter of this.waiters.filter(({ until }) => this.calls.length >= until)) {
			this.waiters.splice(this.waiters.indexOf(waiter), 1);
			waiter.resolve(this.calls.slice(waiter.from, waiter.until));
		}
	}

	/** What n8n's webhook helpers do for one request to this node (n8n 2.x, responseMode onReceived). */
	private async execute(
		req: Request,
		res: Response,
		mode: WorkflowExecuteMode,
	): Promise<WebhookCall> {
		if (!this.setup.skipBodyParsing) {
			try {
				await parseBody(req);
			} catch (error) {
				// n8n answers 422 for a body it cannot parse, before any node runs.
				res.status(422).json({
					code: 422,
					message: 'Failed to parse request body',
					hint: (error as Error).message,
				});
				return { status: 422, response: undefined };
			}
		}
		const workflow = this.workflow();
		const additionalData = this.additionalData();
		additionalData.httpRequest = req;
		additionalData.httpResponse = res;
		const context = new WebhookContext(
			workflow,
			this.node(workflow),
			additionalData,
			mode,
			this.webhookData(additionalData, mode === 'manual'),
			[],
			null,
		);
		let result: IWebhookResponseData | undefined;
		let error: Error | undefined;
		try {
			result = await this.nodeType().webhook!.call(context);
		} catch (caught) {
			error = caught as Error;
		}
		if (!res.headersSent) {
			if (error) res.status(500).json({ code: 0, message: 'Error in workflow' });
			else if (result?.workflowData === undefined)
				res.status(200).json(result?.webhookResponse ?? { message: 'Webhook call received' });
			else res.status(200).json({ message: 'Workflow was started' });
		}
		// n8n saves static data when the response callback runs, whether or not an execution starts.
		if (mode !== 'manual') this.saveStaticData(workflow);
		return {
			status: res.statusCode,
			response: (res as Response & { sentBody?: unknown }).sentBody,
			workflowData: result?.workflowData,
			error,
		};
	}

	private nodeType(): INodeType {
		return NodeHelpers.getVersionedNodeType(
			this.loader.getNode('transcriptionServiceTrigger').type,
			1,
		);
	}

	/** A new Workflow per request over the stored static data, as n8n loads it from the database. */
	private workflow(): Workflow {
		return triggerWorkflow({
			workflowId: this.workflowId,
			name: 'trigger engine test',
			node: {
				id: 'trigger-node',
				name: TRIGGER_NODE_NAME,
				type: TRIGGER_TYPE,
				webhookId: WEBHOOK_ID,
				parameters: structuredClone(this.setup.parameters ?? {}),
			},
			loader: this.loader,
			staticData: this.storedStaticData,
		});
	}

	private node(workflow: Workflow): INode {
		return workflow.getNode(TRIGGER_NODE_NAME)!;
	}

	private saveStaticData(workflow: Workflow): void {
		this.storedStaticData = changedStaticData(workflow) ?? this.storedStaticData;
	}

	private hookContext(workflow: Workflow, mode: WorkflowExecuteMode): HookContext {
		const additionalData = this.additionalData();
		const webhookData = this.webhookData(additionalData, mode === 'manual');
		const activation = mode === 'manual' ? 'manual' : 'activate';
		return new HookContext(
			workflow,
			this.node(workflow),
			additionalData,
			mode,
			activation,
			webhookData,
		);
	}

	private webhookData(
		additionalData: IWorkflowExecuteAdditionalData,
		isTest: boolean,
	): IWebhookData {
		const description = this.nodeType().description.webhooks![0];
		return {
			httpMethod: 'POST',
			node: TRIGGER_NODE_NAME,
			path: `${WEBHOOK_ID}/webhook`,
			webhookDescription: description,
			workflowId: this.workflowId,
			workflowExecuteAdditionalData: additionalData,
			webhookId: WEBHOOK_ID,
			isTest,
		};
	}

	private additionalData(): IWorkflowExecuteAdditionalData {
		return {
			credentialsHelper: new FixtureCredentialsHelper(
				this.loader,
				fixtureCredentials(this.setup.credentials),
			),
			restApiUrl: `${this.origin}/rest`,
			instanceBaseUrl: `${this.origin}/`,
			formWaitingBaseUrl: `${this.origin}/form-waiting`,
			webhookBaseUrl: `${this.origin}/webhook`,
			webhookWaitingBaseUrl: `${this.origin}/webhook-waiting`,
			webhookTestBaseUrl: `${this.origin}/webhook-test`,
			variables: {},
			userId: 'engine-test-user',
		} as unknown as IWorkflowExecuteAdditionalData;
	}
}

// ---- n8n's request plumbing, as packages/cli/src/middlewares/body-parser.ts does it ----

type ParseIncomingMessage = (message: Request) => void;

/**
 * n8n's own parseIncomingMessage (content type, charset, disposition onto the request): exported by n8n-core up to
 * 2.3x, by @n8n/backend-network (a dependency of n8n-core) in newer releases such as 2.41.
 */
export async function loadParseIncomingMessage(): Promise<ParseIncomingMessage> {
	const fromCore = (n8nCore as { parseIncomingMessage?: ParseIncomingMessage })
		.parseIncomingMessage;
	if (fromCore) return fromCore;
	const network = (await import(
		require.resolve('@n8n/backend-network', { paths: [require.resolve('n8n-core')] })
	)) as { parseIncomingMessage?: ParseIncomingMessage };
	if (!network.parseIncomingMessage)
		throw new Error('Neither n8n-core nor @n8n/backend-network exports parseIncomingMessage');
	return network.parseIncomingMessage;
}

/** n8n's rawBodyReader: `readRawBody()` fills `rawBody` with the bytes as received (16 MiB limit). */
export const rawBodyReader = (parseIncomingMessage: ParseIncomingMessage) =>
	function rawBodyReader(req: Request, res: Response, next: () => void): void {
		parseIncomingMessage(req);
		req.readRawBody = async () => {
			if (req.rawBody) return;
			const chunks: Buffer[] = [];
			let size = 0;
			for await (const chunk of req) {
				size += (chunk as Buffer).length;
				if (size > N8N_PAYLOAD_SIZE_MAX)
					throw Object.assign(new Error('request entity too large'), { status: 413 });
				chunks.push(chunk as Buffer);
			}
			req.rawBody = Buffer.concat(chunks);
			req._body = true;
		};
		// Remember what was sent so a test can read the node's answer as n8n's client received it.
		const json = res.json.bind(res);
		res.json = (body: unknown) => {
			(res as Response & { sentBody?: unknown }).sentBody = body;
			return json(body);
		};
		next();
	};

/** n8n's parseBody for the content types the service could send; JSON that does not parse throws. */
export async function parseBody(req: Request): Promise<void> {
	await req.readRawBody();
	if (!req.rawBody?.length) return;
	if (req.contentType === 'application/json')
		req.body = JSON.parse(req.rawBody.toString(req.encoding));
	else if (req.contentType === 'text/plain') req.body = req.rawBody.toString(req.encoding);
}
