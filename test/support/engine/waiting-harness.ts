// A paused execution as n8n keeps one: the workflow runs in n8n-core's WorkflowExecute until a node puts it to
// wait; its data is then held as the database holds it (serialised), and requests to its resume URL are served the
// way n8n's waiting-webhooks.ts serves them: 409 while it runs or once it finished, otherwise the stack entry's node
// disabled, its last run data removed, the node's webhook() run in n8n-core's WebhookContext, and — when webhook()
// returns data — that data put on the stack and the execution continued. `timeout()` is n8n's WaitTracker firing.
// Requests may be served by the process that paused, by a fresh copy of the package per request (a restarted
// process), or by N long-lived copies (queue mode's webhook processors), each with its own module state; a process
// can restart mid-wait (`restart`), and a front door (the queue suite's router) can stand before the resume URL to
// lose answers or to play every process down.
import { existsSync } from 'node:fs';
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
import { controlledClock } from '../clock/controlled-clock';
import { WebhookRouter } from '../n8n/webhook-router';
import { loadParseIncomingMessage, parseBody, rawBodyReader } from './webhook-harness';

export const PAUSING_NODE = 'Transcribe';
const WORKFLOW_ID = 'paused-engine-workflow';
let executionCounter = 0;

export type ExecutionStatus = 'running' | 'waiting' | 'finished';

export interface ResumeCall {
	/** A service event, or the pack's own signed check (X-Pause-Check-* headers). */
	kind: 'event' | 'check';
	/** Which copy served it: 'pauser', 'fresh', or the processor's index. */
	servedBy: 'pauser' | 'fresh' | number;
	status: number;
	response: unknown;
	/** webhook() handed n8n data: the execution was continued. */
	resumed: boolean;
	/** webhook() handed n8n data after another request had resumed the execution: n8n 2.x refuses it. */
	secondResume?: true;
	/** When the request arrived (wall clock). */
	receivedAtMs: number;
	/** When its answer went out (wall clock): for the request that resumed, the claim, before the downloads. */
	answeredAtMs?: number;
	/** A check as it was sent: its X-Pause-Check-* headers and body, to send it again (a replay). */
	sent?: { headers: Record<string, string>; body: string };
}

export interface PausedRunOptions {
	parameters: INodeParameters;
	input: INodeExecutionData[];
	credentials: TestCredentials;
	continueOnFail?: boolean;
	/** n8n's "On Error" (overrides continueOnFail): continueErrorOutput gives the node a second, error output. */
	onError?: INode['onError'];
	/** The package to run (default: this one's dist/), e.g. an earlier build for a baseline. */
	packageDir?: string;
	/** Serve requests from this many long-lived copies of the package (webhook processors), none by the pauser. */
	processors?: number;
	/**
	 * Put a router before the resume URL ($execution.resumeUrl points at it), as in queue mode: `frontDoor` can then
	 * lose answers after the node handled the request, or refuse every request while all processes are down. A
	 * function sets the router up before the run starts (events that come before the pause pass it too).
	 */
	frontDoor?: boolean | ((router: WebhookRouter) => void);
}

/** The node module and the ledger module of one loaded copy of the package. */
interface PackageCopy {
	nodeType: INodeType;
	/** forgetLedger of this copy, where the package has one: stops its watchers when the run closes. */
	forgetLedger?: (executionId: string) => void;
}

const NODE_FILE = 'dist/nodes/TranscriptionService/TranscriptionService.node.js';
const LEDGER_FILE =
	'dist/nodes/TranscriptionService/actions/transcription/transcribeAndDownload/ledger.js';

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
	/** n8n is starting up: it answers every request "200 n8n is starting up" and runs nothing (the real n8n does). */
	startingUp = false;
	/** n8n cannot decrypt the credential: the node's webhook() cannot verify a request (a process with a wrong key). */
	set credentialsUndecryptable(value: boolean) {
		this.credentialsHelper.undecryptable = value;
	}
	/** The router before the resume URL, with the `frontDoor` option. */
	readonly frontDoor: WebhookRouter | undefined;
	/** Which processor serves the next request (default: in turn), when the run has processors. */
	route: (callIndex: number, kind: ResumeCall['kind']) => number = (callIndex) =>
		callIndex % this.processors.length;
	private saved!: IRunExecutionData;
	private readonly executionId = `paused-${process.pid}-${++executionCounter}`;
	private readonly nodes: INode[];
	private readonly finishedWaiters: Array<() => void> = [];
	private readonly processors: PackageCopy[];
	/** Every copy that served a request, so that close() stops the watchers they started. */
	private readonly copies: PackageCopy[] = [];
	private requestCount = 0;

	private constructor(
		private readonly options: PausedRunOptions,
		private readonly nodeTypes: PackageNodeTypes,
		/** The decrypted credentials every process is handed (one n8n database): editing them edits the credential. */
		private readonly credentialFields: ReturnType<typeof fixtureCredentials>,
		private readonly credentialsHelper: FixtureCredentialsHelper,
		private readonly server: Server,
		readonly origin: string,
		private readonly pauser: PackageCopy,
		frontDoor: WebhookRouter | undefined,
	) {
		this.frontDoor = frontDoor;
		this.processors = Array.from({ length: options.processors ?? 0 }, () => this.loadCopy());
		this.copies.push(pauser);
		const onError =
			options.onError ?? (options.continueOnFail ? 'continueRegularOutput' : undefined);
		this.nodes = [
			{
				id: 'pausing-node',
				name: PAUSING_NODE,
				type: nodeType('transcriptionService'),
				typeVersion: 1,
				position: [0, 0],
				parameters: options.parameters,
				credentials: { [CREDENTIAL_TYPE]: { id: 'cred-1', name: 'Transcription Service account' } },
				...(onError ? { onError } : {}),
			},
		];
	}

	/** Runs the workflow until it pauses (or ends); the resume URL is served on loopback from then on. */
	static async start(options: PausedRunOptions): Promise<PausedRun> {
		const packageDir = options.packageDir ?? PACKAGE_DIR;
		const loader = await loadPackage(packageDir);
		const nodeTypes = new PackageNodeTypes(loader);
		const app = express();
		const server = app.listen(0, '127.0.0.1');
		await once(server, 'listening');
		const own = { name: 'n8n', port: (server.address() as AddressInfo).port };
		const frontDoor = options.frontDoor ? await WebhookRouter.start(own, [own]) : undefined;
		if (frontDoor && typeof options.frontDoor === 'function') options.frontDoor(frontDoor);
		const origin = frontDoor?.baseUrl ?? `http://127.0.0.1:${own.port}`;
		const credentialFields = fixtureCredentials(options.credentials);
		const run = new PausedRun(
			options,
			nodeTypes,
			credentialFields,
			new FixtureCredentialsHelper(loader, credentialFields),
			server,
			origin,
			{
				nodeType: nodeTypes.getByNameAndVersion(nodeType('transcriptionService')),
				// eslint-disable-next-line @typescript-eslint/no-require-imports
				forgetLedger: ledgerModule(packageDir, (file) => require(file) as LedgerModule),
			},
			frontDoor,
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
		return this.outputs()[0] ?? [];
	}

	/** Every output of the pausing node in the last run (with "continueErrorOutput", the second is the error output). */
	outputs(): INodeExecutionData[][] {
		const run = this.finalRun ?? this.firstRun;
		const tasks = run.data.resultData.runData[PAUSING_NODE] ?? [];
		return (tasks.at(-1)?.data?.main ?? []).map((items) => items ?? []);
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

	/**
	 * A process restarts mid-wait: what it held of this execution in memory (its ledger, its watcher) is gone. A
	 * processor serves on as a freshly loaded copy; the pauser (which serves no request when the run has processors)
	 * keeps only its loaded modules, as a restarted process knows nothing of the paused execution until a request
	 * reaches it.
	 */
	restart(process: 'pauser' | number): void {
		if (process === 'pauser') {
			this.pauser.forgetLedger?.(this.executionId);
			return;
		}
		const copy = this.processors[process];
		if (!copy) throw new Error(`The run has no processor ${process}`);
		copy.forgetLedger?.(this.executionId);
		this.processors[process] = this.loadCopy();
	}

	/** The user edits the credential mid-wait (e.g. a rotated signing secret): every later request reads the new one. */
	updateCredentials(fields: Partial<TestCredentials>): void {
		Object.assign(this.credentialFields[CREDENTIAL_TYPE], fields);
	}

	/** Every process of the run restarts (see `restart`). */
	restartAll(): void {
		this.restart('pauser');
		for (const index of this.processors.keys()) this.restart(index);
	}

	/** Stops the watchers every copy started for this execution, then the front door and the server. */
	async close(): Promise<void> {
		for (const copy of this.copies) copy.forgetLedger?.(this.executionId);
		await this.frontDoor?.close();
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
		let answeredAtMs: number | undefined;
		res.once('finish', () => (answeredAtMs = Date.now()));
		const kind: ResumeCall['kind'] =
			req.headers['x-pause-check-signature'] === undefined ? 'event' : 'check';
		const served = this.servingCopy(kind);
		const record = (
			call: Omit<ResumeCall, 'receivedAtMs' | 'answeredAtMs' | 'kind' | 'servedBy' | 'sent'>,
		) =>
			this.calls.push({
				...call,
				kind,
				servedBy: served.by,
				receivedAtMs,
				answeredAtMs,
				...(kind === 'check' ? { sent: checkAsSent(req) } : {}),
			});
		if (this.startingUp) {
			res.status(200).json({ message: 'n8n is starting up. Please wait' });
			record({ status: 200, response: undefined, resumed: false });
			return;
		}
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
		const nodeType = served.copy.nodeType;
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
			record({ status: res.statusCode, response: sent, resumed: false, secondResume: true });
			return;
		}
		this.status = 'running';
		record({ status: res.statusCode, response: sent, resumed: true });
		stackEntry.data.main = result.workflowData;
		this.finalRun = await this.execute(data);
		this.settle(this.finalRun);
	}

	/** The copy that serves this request: the pauser, a fresh one (a restarted process), or a processor. */
	private servingCopy(kind: ResumeCall['kind']): {
		copy: PackageCopy;
		by: ResumeCall['servedBy'];
	} {
		const callIndex = this.requestCount++;
		if (this.processors.length > 0) {
			const index = this.route(callIndex, kind);
			return { copy: this.processors[index], by: index };
		}
		if (this.otherProcess) return { copy: this.loadCopy(), by: 'fresh' };
		return { copy: this.pauser, by: 'pauser' };
	}

	/** A separately loaded copy of the package, with its own module state (ledgers, watchers, pacers). */
	private loadCopy(): PackageCopy {
		const packageDir = this.options.packageDir ?? PACKAGE_DIR;
		const copy = isolatedRequire(packageDir, (load) => {
			const { TranscriptionService } = load(path.join(packageDir, NODE_FILE)) as {
				TranscriptionService: new () => INodeType;
			};
			return {
				nodeType: NodeHelpers.getVersionedNodeType(new TranscriptionService(), 1),
				forgetLedger: ledgerModule(packageDir, (file) => load(file) as LedgerModule),
			};
		});
		this.copies.push(copy);
		return copy;
	}
}

/** A check's own headers and its body as received. */
function checkAsSent(req: Request): NonNullable<ResumeCall['sent']> {
	const headers: Record<string, string> = {};
	for (const [name, value] of Object.entries(req.headers)) {
		if (name.startsWith('x-pause-check-') && typeof value === 'string') headers[name] = value;
	}
	return { headers, body: req.rawBody?.toString('utf8') ?? '' };
}

type LedgerModule = { forgetLedger?: (executionId: string) => void };

function ledgerModule(
	packageDir: string,
	load: (file: string) => LedgerModule,
): PackageCopy['forgetLedger'] {
	const file = path.join(packageDir, LEDGER_FILE);
	return existsSync(file) ? load(file).forgetLedger : undefined;
}

/**
 * Runs `use` with a `load` that requires the package's files afresh, apart from every copy loaded before: under jest
 * in an isolated module registry, under plain Node (the benchmarks) by setting the package's entries in require's
 * cache aside while it runs.
 */
function isolatedRequire<T>(packageDir: string, use: (load: (file: string) => unknown) => T): T {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const load = (file: string) => require(file) as unknown;
	if (typeof jest !== 'undefined') {
		let result: T | undefined;
		jest.isolateModules(() => {
			// That process's n8n-workflow waits on the file's controlled clock too, as the first one's does.
			controlledClock()?.adoptSleeps(load);
			result = use(load);
		});
		return result as T;
	}
	const dist = path.join(packageDir, 'dist') + path.sep;
	const ours = () => Object.keys(require.cache).filter((key) => key.startsWith(dist));
	const setAside = new Map(ours().map((key) => [key, require.cache[key]]));
	for (const key of setAside.keys()) delete require.cache[key];
	try {
		return use(load);
	} finally {
		for (const key of ours()) delete require.cache[key];
		for (const [key, module] of setAside) require.cache[key] = module;
	}
}
