// The Transcription Service Polling Trigger as n8n runs an active polling workflow (n8n-core's
// ActiveWorkflows.activatePolling and the cli's active-workflow-manager, read in 2.8.4, 2.15.1 and 1.123.81): one
// Workflow and one PollContext per activation hold the static data in memory between polls; the node's real poll()
// runs in n8n-core's own PollContext; what a poll emits (__emit, during the poll or as its result) starts an execution,
// and static data is saved then and after the activation's first poll (ActiveWorkflowManager.add); an error in the
// activation's poll fails the activation, one in a later poll becomes an error execution (__emitError). A restart drops
// the memory and activates from what was saved. Poll Times are the node's parameter `pollTimes`.
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

import { PollContext, type LazyPackageDirectoryLoader } from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';

import type { PollState } from '../../../nodes/TranscriptionServicePollingTrigger/state';
import {
	engineAdditionalData,
	FixtureCredentialsHelper,
	fixtureCredentials,
	initBinaryData,
	loadPackage,
	nodeType,
	PackageNodeTypes,
	triggerWorkflow,
	changedStaticData,
	type TestCredentials,
} from './harness';

export const POLLING_TYPE = nodeType('transcriptionServicePollingTrigger');
export const POLLING_NODE_NAME = 'Transcription Service Polling Trigger';
let workflowCounter = 0;

export interface PollingSetup {
	parameters?: INodeParameters;
	credentials: TestCredentials;
	/**
	 * What n8n tells a poll it may take (getPollBudgetMs): unset, what the engine's PollContext tells (n8n 2.41 and later:
	 * 5 minutes unless n8n's scheduler passes its own; earlier n8n: nothing); null, nothing, as before n8n 2.41.
	 */
	pollBudgetMs?: number | null;
}

export class PollingTriggerUnderTest {
	/** The workflow's static data as n8n's database holds it. */
	storedStaticData: IDataObject = {};
	/** What each emission handed n8n to start an execution with (its first output), in order. */
	readonly emissions: INodeExecutionData[][] = [];
	/** When each emission came (Date.now(), the test's clock). */
	readonly emittedAt: number[] = [];
	/** Errors of scheduled polls (n8n saves each as an error execution). */
	readonly errors: Error[] = [];
	private readonly workflowId = `polling-engine-workflow-${++workflowCounter}`;
	private context: PollContext | undefined;
	/** What n8n decrypts for the node on every poll: an edit of the credential reaches the next poll. */
	private readonly credentials: Record<string, ICredentialDataDecryptedObject>;

	private constructor(
		private readonly loader: LazyPackageDirectoryLoader,
		private setup: PollingSetup,
	) {
		this.credentials = fixtureCredentials(setup.credentials);
	}

	static async start(setup: PollingSetup): Promise<PollingTriggerUnderTest> {
		const loader = await loadPackage();
		await initBinaryData();
		return new PollingTriggerUnderTest(loader, setup);
	}

	/** The node's parameters change (n8n reactivates the workflow: call activate()). */
	reconfigure(parameters: INodeParameters): void {
		this.setup = { ...this.setup, parameters };
	}

	/** The credential is edited (a new API key, another Base URL): n8n reads it afresh at the next poll. */
	editCredentials(credentials: TestCredentials): void {
		Object.assign(this.credentials, fixtureCredentials(credentials));
	}

	/** Activation: the first poll (an error fails the activation), then the save n8n makes after every activation. */
	async activate(): Promise<INodeExecutionData[] | null> {
		const workflow = this.newWorkflow();
		// n8n's __emit: static data saved, an execution started with the data.
		const emit = (data: INodeExecutionData[][]) => {
			this.save(workflow);
			this.emissions.push(data[0]);
			this.emittedAt.push(Date.now());
		};
		this.context = new PollContext(
			workflow,
			workflow.getNode(POLLING_NODE_NAME)!,
			this.additionalData(),
			'trigger',
			'activate',
			emit,
		);
		const budget = this.setup.pollBudgetMs;
		if (budget !== undefined)
			Object.assign(this.context, {
				getPollBudgetMs: budget === null ? undefined : () => budget,
			});
		const items = await this.runPoll(true);
		this.save(workflow);
		return items;
	}

	/** A tick of Poll Times: what the poll emitted (in one or more executions), null when nothing. */
	async poll(): Promise<INodeExecutionData[] | null> {
		if (!this.context) throw new Error('Activate the workflow first');
		return await this.runPoll(false);
	}

	/** n8n stops and starts again: what was only in memory is gone, and the workflow is activated again. */
	async restart(): Promise<INodeExecutionData[] | null> {
		this.context = undefined;
		return await this.activate();
	}

	/** Every item emitted so far, in order. */
	items(): INodeExecutionData[] {
		return this.emissions.flat();
	}

	/** The poll state as saved. */
	storedState(): PollState | undefined {
		const node = this.storedStaticData[`node:${POLLING_NODE_NAME}`] as IDataObject | undefined;
		return node?.poll as PollState | undefined;
	}

	private async runPoll(activating: boolean): Promise<INodeExecutionData[] | null> {
		const context = this.context!;
		const before = this.emissions.length;
		try {
			const data = await this.nodeType().poll!.call(context);
			if (data !== null) context.__emit(data);
		} catch (error) {
			if (activating) throw error;
			this.errors.push(error as Error);
		}
		const emitted = this.emissions.slice(before).flat();
		return emitted.length > 0 ? emitted : null;
	}

	private nodeType(): INodeType {
		return new PackageNodeTypes(this.loader).getByNameAndVersion(POLLING_TYPE, 1);
	}

	private newWorkflow(): Workflow {
		return triggerWorkflow({
			workflowId: this.workflowId,
			name: 'polling engine test',
			node: {
				id: 'polling-node',
				name: POLLING_NODE_NAME,
				type: POLLING_TYPE,
				parameters: structuredClone(this.setup.parameters ?? {}),
			},
			loader: this.loader,
			staticData: this.storedStaticData,
		});
	}

	private save(workflow: Workflow): void {
		const data = changedStaticData(workflow);
		if (!data) return;
		this.storedStaticData = data;
		workflow.staticData.__dataChanged = false;
	}

	private additionalData(): IWorkflowExecuteAdditionalData {
		return engineAdditionalData({
			executionId: `${this.workflowId}-poll`,
			credentialsHelper: new FixtureCredentialsHelper(this.loader, this.credentials),
		});
	}
}

/** A list request as a gate sees it. */
export interface GatedListRequest {
	status: string;
	cursor: number;
}

/**
 * A proxy in front of `targetBaseUrl` that, before passing on a GET /api/v1/transcriptions, waits for `before`: a
 * test makes the service change (a job ends) between two page requests of one poll, as it does on a busy account.
 */
export async function startListGate(
	targetBaseUrl: string,
	before: (request: GatedListRequest) => Promise<void>,
): Promise<{ baseUrl: string; close(): Promise<void> }> {
	const target = new URL(targetBaseUrl);
	const server = createServer((incoming, outgoing) => {
		const url = new URL(incoming.url ?? '/', 'http://gate.invalid');
		const listed =
			incoming.method === 'GET' && /\/api\/v1\/transcriptions$/.test(url.pathname)
				? before({
						status: url.searchParams.get('status') ?? '',
						cursor: Number(url.searchParams.get('cursor') ?? 0),
					})
				: Promise.resolve();
		void listed.then(
			() => {
				const upstream = httpRequest(
					{
						host: target.hostname,
						port: target.port,
						method: incoming.method,
						path: incoming.url,
						headers: { ...incoming.headers, host: target.host },
					},
					(answer) => {
						// The answer's own headers: no Date of Node's (this machine's clock) where it has none.
						outgoing.sendDate = false;
						outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
						answer.pipe(outgoing);
					},
				);
				upstream.on('error', () => incoming.socket.destroy());
				incoming.pipe(upstream);
			},
			() => incoming.socket.destroy(),
		);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}`,
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}
