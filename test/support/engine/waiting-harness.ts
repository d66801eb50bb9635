// A paused execution as n8n keeps one: the workflow runs in n8n-core's WorkflowExecute until a node puts it to
// wait; its data is then held as the database holds it (serialised), and requests to its resume URL are served the
// way n8n's waiting-webhooks.ts serves them: 409 while it runs or once it finished, otherwise the stack entry's node
// disabled, its last run data removed, the node's webhook() run in n8n-core's WebhookContext, and — when webhook()
// returns data — that data put on the stack and the execution continued. `timeout()` is n8n's WaitTracker firing.
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import express, { type Request, type Response } from 'express';
import { WebhookContext } from 'n8n-core';
import type {
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	IRun,
	IRunExecutionData,
	IWebhookData,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeHelpers, Workflow } from 'n8n-workflow';

import {
	CREDENTIAL_TYPE,
	engineAdditionalData,
	executeInEngine,
	FixtureCredentialsHelper,
	fixtureCredentials,
	loadPackage,
	nodeType,
	PACKAGE_DIR,
	PackageNodeTypes,
	type TestCredentials,
} from './harness';
import { loadParseIncomingMessage, parseBody, rawBodyReader } from './webhook-harness';

export const PAUSING_NODE = 'Transcribe';
const WORKFLOW_ID = 'paused-engine-workflow';
let executionCounter = 0;

export type ExecutionStatus = 'running' | 'waiting' | 'finished';

export interface ResumeCall {
	status: number;
	response: unknown;
	/** webhook() handed n8n data: the execution was continued. */
	resumed: boolean;
	/** When the request arrived (wall clock). */
	receivedAtMs: number;
}

export interface PausedRunOptions {
	parameters: INodeParameters;
	input: INodeExecutionData[];
	credentials: TestCredentials;
	continueOnFail?: boolean;
}

export class PausedRun {
	status: ExecutionStatus = 'running';
	readonly calls: ResumeCall[] = [];
	/** What went wrong in serving a request: webhook() threw, or the execution was resumed twice. */
	readonly errors: Error[] = [];
	/** The first run: what n8n saved when the node paused (or the whole run when it did not pause). */
	firstRun!: IRun;
	/** The run after the execution was continued (by webhook() or by the timeout). */
	finalRun: IRun | undefined;
	/** When the execution finished (wall clock). */
	finishedAtMs: number | undefined;
	/** Serves webhook() from a separately loaded copy of the package, as another process (restart, webhook processor) would. */
	otherProcess = false;
	private saved!: IRunExecutionData;
	private readonly executionId = `paused-${process.pid}-${++executionCounter}`;
	private readonly nodes: INode[];
	private readonly finishedWaiters: Array<() => void> = [];

	private constructor(
		private readonly options: PausedRunOptions,
		private readonly nodeTypes: PackageNodeTypes,
		private readonly credentialsHelper: FixtureCredentialsHelper,
		private readonly server: Server,
		readonly origin: string,
	) {
		this.nodes = [
			{
				id: 'pausing-node',
				name: PAUSING_NODE,
				type: nodeType('transcriptionService'),
				typeVersion: 1,
				position: [0, 0],
				parameters: options.parameters,
				credentials: { [CREDENTIAL_TYPE]: { id: 'cred-1', name: 'Transcription Service account' } },
				...(options.continueOnFail ? { onError: 'continueRegularOutput' as const } : {}),
			},
		];
	}

	/** Runs the workflow until it pauses (or ends); the resume URL is served on loopback from then on. */
	static async start(options: PausedRunOptions): Promise<PausedRun> {
		const loader = await loadPackage();
		const app = express();
		const server = app.listen(0, '127.0.0.1');
		await once(server, 'listening');
		const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
		const run = new PausedRun(
			options,
			new PackageNodeTypes(loader),
			new FixtureCredentialsHelper(loader, fixtureCredentials(options.credentials)),
			server,
			origin,
		);
		app.use(rawBodyReader(await loadParseIncomingMessage()));
		app.post('/webhook-waiting/:executionId', (req, res) => void run.serve(req, res));
		run.firstRun = await run.execute();
		run.settle(run.firstRun);
		return run;
	}

	get resumeUrl(): string {
		return `${this.origin}/webhook-waiting/${this.executionId}`;
	}

	get waitTill(): Date | undefined {
		return this.saved?.waitTill;
	}

	/** The pausing node's output items in the last run that produced any. */
	output(): INodeExecutionData[] {
		const run = this.finalRun ?? this.firstRun;
		const tasks = run.data.resultData.runData[PAUSING_NODE] ?? [];
		return tasks.at(-1)?.data?.main?.[0] ?? [];
	}

	/** The items n8n stored on the paused stack entry. */
	storedItems(): INodeExecutionData[] {
		return this.saved.executionData?.nodeExecutionStack[0]?.data.main[0] ?? [];
	}

	/** Resolves once the execution has finished (resumed and run to the end). */
	finished(): Promise<void> {
		if (this.status === 'finished') return Promise.resolve();
		return new Promise((resolve) => this.finishedWaiters.push(resolve));
	}

	/** n8n's WaitTracker at waitTill: the execution continues without its node's code (the node is disabled). */
	async timeout(): Promise<void> {
		if (this.status !== 'waiting') throw new Error(`The execution is ${this.status}, not waiting`);
		this.status = 'running';
		this.finalRun = await this.execute(this.saved);
		this.settle(this.finalRun);
	}

	async close(): Promise<void> {
		this.server.closeAllConnections();
		this.server.close();
		await once(this.server, 'close');
	}

	private async execute(saved?: IRunExecutionData): Promise<IRun> {
		return await executeInEngine({
			workflowId: WORKFLOW_ID,
			executionId: this.executionId,
			nodes: this.nodes,
			connections: {},
			nodeTypes: this.nodeTypes,
			credentialsHelper: this.credentialsHelper,
			startNode: this.nodes[0],
			input: this.options.input,
			origin: this.origin,
			runExecutionData: saved,
		});
	}

	/** As the database keeps it: serialised, status waiting when waitTill is set. */
	private settle(run: IRun): void {
		this.saved = JSON.parse(JSON.stringify(run.data)) as IRunExecutionData;
		if (run.data.waitTill) {
			this.saved.waitTill = new Date(run.data.waitTill);
			this.status = 'waiting';
			return;
		}
		this.status = 'finished';
		this.finishedAtMs = Date.now();
		for (const resolve of this.finishedWaiters.splice(0)) resolve();
	}

	/** n8n's WaitingWebhooks.executeWebhook for a POST without suffix. */
	private async serve(req: Request, res: Response): Promise<void> {
		const receivedAtMs = Date.now();
		const record = (call: Omit<ResumeCall, 'receivedAtMs'>) =>
			this.calls.push({ ...call, receivedAtMs });
		if (req.params.executionId !== this.executionId) {
			res
				.status(404)
				.json({ code: 404, message: `The execution "${req.params.executionId}" does not exist.` });
			return;
		}
		if (this.status !== 'waiting') {
			const message =
				this.status === 'running'
					? `The execution "${this.executionId}" is running already.`
					: `The execution "${this.executionId} has finished already.`;
			res.status(409).json({ code: 409, message });
			record({ status: 409, response: { message }, resumed: false });
			return;
		}
		try {
			await parseBody(req);
		} catch {
			res.status(422).json({ code: 422, message: 'Failed to parse request body' });
			return;
		}
		const data = JSON.parse(JSON.stringify(this.saved)) as IRunExecutionData;
		data.waitTill = undefined;
		const stackEntry = data.executionData!.nodeExecutionStack[0];
		stackEntry.node.disabled = true;
		const lastNode = data.resultData.lastNodeExecuted as string;
		data.resultData.runData[lastNode].pop();

		const workflow = new Workflow({
			id: WORKFLOW_ID,
			name: WORKFLOW_ID,
			nodes: this.nodes,
			connections: {},
			active: false,
			nodeTypes: this.nodeTypes,
			settings: { executionOrder: 'v1' },
		});
		const node = workflow.getNode(lastNode) as INode;
		const additionalData = engineAdditionalData({
			executionId: this.executionId,
			credentialsHelper: this.credentialsHelper,
			origin: this.origin,
		});
		additionalData.httpRequest = req;
		additionalData.httpResponse = res;
		const nodeType = this.webhookNodeType();
		const webhookData: IWebhookData = {
			httpMethod: 'POST',
			node: lastNode,
			path: '',
			webhookDescription: nodeType.description.webhooks![0],
			workflowId: WORKFLOW_ID,
			workflowExecuteAdditionalData: additionalData,
		};
		const context = new WebhookContext(
			workflow,
			node,
			additionalData,
			'manual',
			webhookData,
			[],
			data,
		);
		let result: IWebhookResponseData | undefined;
		try {
			result = await nodeType.webhook!.call(context);
		} catch (error) {
			// n8n answers 500 here (and would then run the rest of the workflow with an empty item).
			if (!res.headersSent) res.status(500).json({ code: 0, message: (error as Error).message });
			record({ status: 500, response: undefined, resumed: false });
			this.errors.push(error as Error);
			return;
		}
		if (!res.headersSent) res.status(200).json({ message: 'Webhook call received' });
		const sent = (res as Response & { sentBody?: unknown }).sentBody;
		if (result?.workflowData === undefined) {
			record({ status: res.statusCode, response: sent, resumed: false });
			return;
		}
		// n8n 2.x resumes only a waiting execution (ExecutionAlreadyResumingError otherwise).
		if (this.status !== 'waiting') {
			this.errors.push(new Error('The execution was resumed twice'));
			return;
		}
		this.status = 'running';
		record({ status: res.statusCode, response: sent, resumed: true });
		stackEntry.data.main = result.workflowData;
		this.finalRun = await this.execute(data);
		this.settle(this.finalRun);
	}

	/** The node type of this process, or a separately loaded copy with its own module state. */
	private webhookNodeType(): INodeType {
		if (!this.otherProcess)
			return this.nodeTypes.getByNameAndVersion(nodeType('transcriptionService'));
		let fresh: INodeType | undefined;
		jest.isolateModules(() => {
			const file = path.join(
				PACKAGE_DIR,
				'dist/nodes/TranscriptionService/TranscriptionService.node.js',
			);
			// eslint-disable-next-line @typescript-eslint/no-require-imports
			const { TranscriptionService } = require(file) as {
				TranscriptionService: new () => INodeType;
			};
			fresh = new TranscriptionService();
		});
		return NodeHelpers.getVersionedNodeType(fresh as INodeType, 1);
	}
}
