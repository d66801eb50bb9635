// Runs workflows that use the built package inside n8n-core's own engine (WorkflowExecute), the way n8n does:
// the package is loaded from dist/ by n8n's package loader, credentials go through the credential type's
// `authenticate`, and binary data lives in n8n's filesystem binary data store.
import { Container } from '@n8n/di';
import { createReadStream } from 'node:fs';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import {
	createServer,
	request as httpRequest,
	type IncomingHttpHeaders,
	type IncomingMessage,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import {
	BinaryDataConfig,
	BinaryDataService,
	ExecutionLifecycleHooks,
	LazyPackageDirectoryLoader,
	WorkflowExecute,
} from 'n8n-core';
import { SSHClientsManager } from 'n8n-core/dist/execution-engine/ssh-clients-manager';
import type {
	IBinaryData,
	ICredentialDataDecryptedObject,
	ICredentialType,
	IConnections,
	IDataObject,
	IExecuteData,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	INodeTypes,
	IRun,
	IRunExecutionData,
	IVersionedNodeType,
	IWorkflowBase,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';
import { ICredentialsHelper, NodeHelpers, Workflow } from 'n8n-workflow';

import { describeStaleBuild, DIST_VERIFIED, staleBuildReasons } from '../build/freshness';
import { controlledClock } from '../clock/controlled-clock';

export const PACKAGE_DIR = path.resolve(__dirname, '../../..');
export const PACKAGE_NAME = 'n8n-nodes-transcription-service';
export const CREDENTIAL_TYPE = 'transcriptionServiceApi';
export const MEDIA_LINK_CREDENTIAL_TYPE = 'transcriptionServiceMediaLinkApi';

export function nodeType(name: string): string {
	return `${PACKAGE_NAME}.${name}`;
}

const loaders = new Map<string, Promise<LazyPackageDirectoryLoader>>();

/**
 * Loads dist/ through n8n's package loader; refuses a dist/ older than its sources (run `npm run build`). Another
 * package directory (an earlier build, for a baseline) is loaded as it is.
 */
export function loadPackage(packageDir = PACKAGE_DIR): Promise<LazyPackageDirectoryLoader> {
	let loader = loaders.get(packageDir);
	if (!loader) {
		loader = (async () => {
			// The jest tiers' global setup checked it before any test file ran (and rebuilt it if need be).
			const checked = packageDir !== PACKAGE_DIR || process.env[DIST_VERIFIED] === PACKAGE_DIR;
			const stale = checked ? [] : staleBuildReasons(PACKAGE_DIR);
			if (stale.length > 0)
				throw new Error(
					`dist/ does not match the sources, so the built package would be stale code (${describeStaleBuild(stale)}): run npm run build`,
				);
			const packageLoader = new LazyPackageDirectoryLoader(packageDir);
			await packageLoader.loadAll();
			return packageLoader;
		})();
		loaders.set(packageDir, loader);
	}
	return loader;
}

/** n8n's NodeTypes over the loaded package; types may be given with or without the package name. */
/** The node types of one package, as n8n names them: `<package name>.<node name>`. */
export class PackageNodeTypes implements INodeTypes {
	constructor(
		private readonly loader: LazyPackageDirectoryLoader,
		private readonly packageName: string = PACKAGE_NAME,
	) {}

	getByName(type: string): INodeType | IVersionedNodeType {
		const prefix = `${this.packageName}.`;
		return this.loader.getNode(type.startsWith(prefix) ? type.slice(prefix.length) : type).type;
	}

	getByNameAndVersion(type: string, version?: number): INodeType {
		return NodeHelpers.getVersionedNodeType(this.getByName(type), version);
	}

	getKnownTypes() {
		return {};
	}
}

/**
 * An active one-node workflow over a copy of the stored static data, as n8n loads a trigger's workflow from the
 * database for every activation, request or poll.
 */
export function triggerWorkflow(args: {
	workflowId: string;
	name: string;
	node: Omit<INode, 'typeVersion' | 'position' | 'credentials'>;
	loader: LazyPackageDirectoryLoader;
	staticData: IDataObject;
}): Workflow {
	return new Workflow({
		id: args.workflowId,
		name: args.name,
		nodes: [
			{
				typeVersion: 1,
				position: [0, 0],
				credentials: { [CREDENTIAL_TYPE]: { id: 'cred-1', name: 'Transcription Service account' } },
				...args.node,
			},
		],
		connections: {},
		active: true,
		nodeTypes: new PackageNodeTypes(args.loader),
		staticData: JSON.parse(JSON.stringify(args.staticData)) as IDataObject,
		settings: { executionOrder: 'v1' },
	});
}

/**
 * What n8n's WorkflowStaticDataService would save after a run: nothing unless the node changed its static data,
 * else that data as JSON (as the database column holds it).
 */
export function changedStaticData(workflow: Workflow): IDataObject | undefined {
	if (workflow.staticData.__dataChanged !== true) return undefined;
	const data = JSON.parse(JSON.stringify(workflow.staticData)) as IDataObject;
	delete data.__dataChanged;
	return data;
}

/** Hands out fixture credentials and applies the credential type's own `authenticate`. */
export class FixtureCredentialsHelper extends ICredentialsHelper {
	constructor(
		private readonly loader: LazyPackageDirectoryLoader,
		private readonly credentials: Record<string, ICredentialDataDecryptedObject>,
	) {
		super();
	}

	private credentialType(typeName: string): ICredentialType {
		return this.loader.getCredential(typeName).type;
	}

	getParentTypes(): string[] {
		return [];
	}

	/** n8n's rule (asked by n8n-core 2.41+ before a node gets credentials): a type restricted to its supported nodes. */
	isCredentialUsableByNode(typeName: string, nodeType: string): boolean {
		const type = this.credentialType(typeName) as ICredentialType & {
			restrictToSupportedNodes?: boolean;
			supportedNodes?: string[];
		};
		if (!type.restrictToSupportedNodes) return true;
		return (type.supportedNodes ?? []).includes(nodeType);
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		const { authenticate } = this.credentialType(typeName);
		if (typeof authenticate === 'function') return await authenticate(credentials, requestOptions);
		return requestOptions;
	}

	// The credential has no preAuthentication step (no token to fetch).
	async preAuthentication(): Promise<ICredentialDataDecryptedObject | undefined> {
		return undefined;
	}

	async getCredentials(): Promise<never> {
		throw new Error('Encrypted credentials are not used in engine tests');
	}

	/** While set, every read fails as n8n's does when it cannot decrypt a credential (a wrong encryption key). */
	undecryptable = false;

	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentialDataDecryptedObject> {
		if (this.undecryptable) throw new Error('Credentials could not be decrypted');
		const credentials = this.credentials[type];
		if (!credentials) throw new Error(`No fixture credentials of type ${type}`);
		return { ...credentials };
	}

	async updateCredentials(): Promise<void> {}

	async updateCredentialsOauthTokenData(): Promise<void> {}

	getCredentialsProperties() {
		return this.credentialType(CREDENTIAL_TYPE).properties;
	}
}

let binaryDataReady: Promise<string> | undefined;

/** n8n's binary data service in filesystem mode: binaries get `filesystem-v2:` ids and stream from disk. */
export function initBinaryData(): Promise<string> {
	binaryDataReady ??= (async () => {
		const storagePath = await mkdtemp(path.join(tmpdir(), 'tss-binary-'));
		const config = Container.get(BinaryDataConfig);
		config.mode = 'filesystem';
		config.availableModes = ['filesystem'];
		config.localStoragePath = storagePath;
		await Container.get(BinaryDataService).init();
		return storagePath;
	})();
	return binaryDataReady;
}

/** Every file of n8n's binary-data store (initBinaryData's) and its size, its metadata files left out. */
export async function binaryStoreFiles(): Promise<Map<string, number>> {
	const root = await initBinaryData();
	const sizes = new Map<string, number>();
	const walk = async (folder: string): Promise<void> => {
		for (const entry of await readdir(folder, { withFileTypes: true })) {
			const full = path.join(folder, entry.name);
			if (entry.isDirectory()) await walk(full);
			else if (!entry.name.endsWith('.metadata')) sizes.set(full, (await stat(full)).size);
		}
	};
	await walk(root);
	return sizes;
}

export interface TestCredentials {
	apiKey: string;
	baseUrl: string;
	signingSecret?: string;
	previousSigningSecret?: string;
	pathPrefix?: string;
}

/** The decrypted credential n8n would hand the nodes: the test's fields over the credential's defaults. */
export function fixtureCredentials(
	credentials: TestCredentials,
): Record<string, ICredentialDataDecryptedObject> {
	return {
		[CREDENTIAL_TYPE]: {
			pathPrefix: '/api/v1',
			signingSecret: '',
			previousSigningSecret: '',
			...credentials,
		} as unknown as ICredentialDataDecryptedObject,
	};
}

export interface RunOptions {
	/** The node under test (or several, connected in order). */
	nodes: Array<
		Omit<INode, 'id' | 'typeVersion' | 'position'> & Partial<Pick<INode, 'typeVersion'>>
	>;
	/** Items fed to the first node. */
	input?: INodeExecutionData[];
	credentials?: TestCredentials;
	/** A Media Link credential (transcriptionServiceMediaLinkApi) for the nodes, beside the service's. */
	mediaLinkCredential?: ICredentialDataDecryptedObject;
	executionId?: string;
	/** Aborts the execution after this many milliseconds (as a user pressing "stop" would). */
	cancelAfterMs?: number;
}

export interface RunResult {
	run: IRun;
	/** Output items of each node (first run, first output). */
	output(nodeName: string): INodeExecutionData[];
	/** The workflow-level error, if the execution failed. */
	error: IRun['data']['resultData']['error'];
	executionId: string;
}

let executionCounter = 0;

export async function runWorkflow(options: RunOptions): Promise<RunResult> {
	const loader = await loadPackage();
	const executionId = options.executionId ?? `engine-${process.pid}-${++executionCounter}`;

	const names = options.nodes.map((node) => node.name);
	if (new Set(names).size !== names.length)
		throw new Error(`Node names must differ (connections go by name): ${names.join(', ')}`);
	const nodes: INode[] = options.nodes.map((node, index) => ({
		typeVersion: 1,
		...node,
		id: `node-${index}`,
		position: [index * 200, 0],
		credentials: options.credentials
			? {
					[CREDENTIAL_TYPE]: { id: 'cred-1', name: 'Transcription Service account' },
					...(options.mediaLinkCredential
						? { [MEDIA_LINK_CREDENTIAL_TYPE]: { id: 'cred-2', name: 'Media host' } }
						: {}),
				}
			: undefined,
	}));
	const connections: IConnections = {};
	for (let index = 0; index + 1 < nodes.length; index++) {
		connections[nodes[index].name] = {
			main: [[{ node: nodes[index + 1].name, type: 'main', index: 0 }]],
		};
	}
	const run = await executeInEngine({
		workflowId: 'engine-test-workflow',
		executionId,
		nodes,
		connections,
		nodeTypes: new PackageNodeTypes(loader),
		credentialsHelper: new FixtureCredentialsHelper(loader, {
			...(options.credentials ? fixtureCredentials(options.credentials) : {}),
			...(options.mediaLinkCredential
				? { [MEDIA_LINK_CREDENTIAL_TYPE]: options.mediaLinkCredential }
				: {}),
		}),
		startNode: nodes[0],
		input: options.input ?? [{ json: {} }],
		cancelAfterMs: options.cancelAfterMs,
	});

	return {
		run,
		executionId,
		error: run.data.resultData.error,
		output(nodeName: string) {
			const taskData = run.data.resultData.runData[nodeName]?.[0];
			if (!taskData) throw new Error(`Node "${nodeName}" did not run`);
			return taskData.data?.main?.[0] ?? [];
		},
	};
}

export interface EngineExecution {
	workflowId: string;
	executionId: string;
	nodes: INode[];
	connections: IConnections;
	nodeTypes: INodeTypes;
	credentialsHelper?: ICredentialsHelper;
	startNode: INode;
	/** Items fed to the start node. */
	input: INodeExecutionData[];
	/** Aborts the execution after this many milliseconds (as a user pressing "stop" would). */
	cancelAfterMs?: number;
	/** Where n8n would listen: resume URLs ($execution.resumeUrl) are built from it (default 127.0.0.1:5678). */
	origin?: string;
	/** A saved execution to continue (a resumed wait) instead of a new one starting at `startNode`. */
	runExecutionData?: IRunExecutionData;
}

/** What n8n hands a node about its instance and this execution (URLs, credentials, hooks). */
export function engineAdditionalData(args: {
	executionId: string;
	credentialsHelper?: ICredentialsHelper;
	origin?: string;
	hooks?: ExecutionLifecycleHooks;
}): IWorkflowExecuteAdditionalData {
	const origin = args.origin ?? 'http://127.0.0.1:5678';
	return {
		executionId: args.executionId,
		hooks: args.hooks,
		credentialsHelper: args.credentialsHelper,
		currentNodeParameters: undefined,
		restApiUrl: `${origin}/rest`,
		instanceBaseUrl: `${origin}/`,
		formWaitingBaseUrl: `${origin}/form-waiting`,
		webhookBaseUrl: `${origin}/webhook`,
		webhookWaitingBaseUrl: `${origin}/webhook-waiting`,
		webhookTestBaseUrl: `${origin}/webhook-test`,
		variables: {},
		userId: 'engine-test-user',
		setExecutionStatus: () => undefined,
		sendDataToUI: () => undefined,
		executeWorkflow: async () => {
			throw new Error('Sub-workflows are not used in engine tests');
		},
		logAiEvent: () => undefined,
	} as unknown as IWorkflowExecuteAdditionalData;
}

/** One manual execution through n8n-core's WorkflowExecute, started at `startNode` with `input`; resolves with its run. */
export async function executeInEngine(execution: EngineExecution): Promise<IRun> {
	await initBinaryData();
	const { executionId, nodes, connections } = execution;
	const workflowData: IWorkflowBase = {
		id: execution.workflowId,
		name: execution.workflowId,
		active: false,
		isArchived: false,
		nodes,
		connections,
		settings: { executionOrder: 'v1' },
		createdAt: new Date(),
		updatedAt: new Date(),
	} as IWorkflowBase;
	const workflow = new Workflow({
		id: workflowData.id,
		name: workflowData.name,
		nodes,
		connections,
		active: false,
		nodeTypes: execution.nodeTypes,
		settings: workflowData.settings,
	});

	const hooks = new ExecutionLifecycleHooks('manual', executionId, workflowData);
	// A plain promise: n8n-workflow's createDeferredPromise is gone in newer releases (2.41).
	const finished = new Promise<IRun>((resolve) => {
		hooks.addHandler('workflowExecuteAfter', (run) => resolve(run));
	});

	const additionalData = engineAdditionalData({
		executionId,
		hooks,
		credentialsHelper: execution.credentialsHelper,
		origin: execution.origin,
	});

	const executeData: IExecuteData = {
		node: execution.startNode,
		data: { main: [execution.input] },
		source: null,
	};
	const runExecutionData: IRunExecutionData =
		execution.runExecutionData ??
		({
			startData: {},
			resultData: { runData: {} },
			executionData: {
				contextData: {},
				nodeExecutionStack: [executeData],
				metadata: {},
				waitingExecution: {},
				waitingExecutionSource: {},
			},
		} as IRunExecutionData);

	const running = new WorkflowExecute(
		additionalData,
		'manual',
		runExecutionData,
	).processRunExecutionData(workflow);
	const stopTimer =
		execution.cancelAfterMs === undefined
			? undefined
			: cancelAfter(execution.cancelAfterMs, () => running.cancel());
	await running.catch(() => undefined);
	stopTimer?.();
	return await finished;
}

/**
 * Calls `cancel` after `ms`: on the file's controlled clock when it has one (test/support/clock), so the cancellation
 * comes at that point of the execution's own waits. The function returned stops it.
 */
function cancelAfter(ms: number, cancel: () => void): () => void {
	const clock = controlledClock();
	if (clock) return clock.setTimer(cancel, ms);
	const timer = setTimeout(cancel, ms).unref();
	return () => clearTimeout(timer);
}

/** An input item whose binary lives in n8n's filesystem binary store, as an uploaded file would. */
export async function binaryItem(args: {
	data: Buffer | { filePath: string };
	fileName: string;
	mimeType: string;
	property?: string;
	json?: IDataObject;
	executionId?: string;
}): Promise<INodeExecutionData> {
	await initBinaryData();
	const service = Container.get(BinaryDataService);
	const source = Buffer.isBuffer(args.data) ? args.data : createReadStream(args.data.filePath);
	const binary = await service.store(
		{
			type: 'execution',
			workflowId: 'engine-test-workflow',
			executionId: args.executionId ?? 'fixtures',
		},
		source as Buffer | Readable,
		{ data: '', mimeType: args.mimeType, fileName: args.fileName } as IBinaryData,
	);
	return { json: args.json ?? {}, binary: { [args.property ?? 'data']: binary } };
}

/** Bytes of an output binary, wherever n8n keeps them. */
export async function binaryBytes(binary: IBinaryData): Promise<Buffer> {
	return await Container.get(BinaryDataService).getAsBuffer(binary);
}

export async function cleanupBinaryData(): Promise<void> {
	if (!binaryDataReady) return;
	await rm(await binaryDataReady, { recursive: true, force: true });
}

/** Stops what n8n-core starts in the background (the SSH tunnel cleanup interval), so jest can exit. */
export function shutdownEngine(): void {
	Container.get(SSHClientsManager).onShutdown();
}

// Every test file that loads the harness ends with its binary store removed and the engine shut down.
if (typeof afterAll === 'function') {
	afterAll(async () => {
		await cleanupBinaryData();
		shutdownEngine();
	});
}

/** One request as it passed between the node and the service. */
export interface Exchange {
	method: string;
	/** Path and query, as sent. */
	url: string;
	requestHeaders: IncomingHttpHeaders;
	/** Body bytes the node sent (counted as they streamed through). */
	requestBytes: number;
	/** The body of a JSON request, parsed (media bodies are only counted). */
	requestJson: unknown;
	/** undefined when the service answered nothing (connection reset or dropped). */
	status: number | undefined;
	responseHeaders: IncomingHttpHeaders;
}

export interface RecordingProxy {
	baseUrl: string;
	exchanges: Exchange[];
	/** The most exchanges that were open at the same moment (reset it with the exchanges). */
	concurrency: { current: number; max: number };
	close(): Promise<void>;
}

/** An answer the proxy gives in the sandbox's place. */
export interface ProxyReply {
	status: number;
	headers: Record<string, string>;
	body: string;
}

/**
 * Chooses the requests the proxy answers itself, for an answer the sandbox cannot give (undefined: forward it); the
 * exchange is recorded either way. `exchanges` already holds this request's.
 */
export type ProxyAnswer = (
	incoming: IncomingMessage,
	exchanges: readonly Exchange[],
) => ProxyReply | undefined;

/**
 * A loopback proxy in front of the sandbox that records every exchange: what headers the node sent (Idempotency-Key,
 * If-None-Match, Content-Length), how many bytes, and what came back. A connection the sandbox drops is dropped
 * towards the node too, so faults look the same through it.
 */
export async function startRecordingProxy(
	targetBaseUrl: string,
	answer?: ProxyAnswer,
): Promise<RecordingProxy> {
	const target = new URL(targetBaseUrl);
	const exchanges: Exchange[] = [];
	const concurrency = { current: 0, max: 0 };
	const server = createServer((incoming, outgoing) => {
		concurrency.current++;
		concurrency.max = Math.max(concurrency.max, concurrency.current);
		outgoing.on('close', () => concurrency.current--);
		const exchange: Exchange = {
			method: incoming.method ?? 'GET',
			url: incoming.url ?? '/',
			requestHeaders: incoming.headers,
			requestBytes: 0,
			requestJson: undefined,
			status: undefined,
			responseHeaders: {},
		};
		exchanges.push(exchange);
		const reply = answer?.(incoming, exchanges);
		if (reply) {
			exchange.status = reply.status;
			exchange.responseHeaders = reply.headers;
			// Exactly the headers given: no Date of Node's own, which reads this machine's clock, not the service's.
			outgoing.sendDate = false;
			outgoing.writeHead(reply.status, reply.headers);
			outgoing.end(reply.body);
			return;
		}
		const upstream = httpRequest(
			{
				host: target.hostname,
				port: target.port,
				method: exchange.method,
				path: exchange.url,
				headers: { ...incoming.headers, host: target.host },
			},
			(answer) => {
				exchange.status = answer.statusCode;
				exchange.responseHeaders = answer.headers;
				// The answer's own headers: no Date of Node's (this machine's clock) where it has none.
				outgoing.sendDate = false;
				outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
				answer.pipe(outgoing);
			},
		);
		upstream.on('error', () => incoming.socket.destroy());
		const isJson = /json/.test(incoming.headers['content-type'] ?? '');
		const jsonChunks: Buffer[] = [];
		incoming.on('data', (chunk: Buffer) => {
			exchange.requestBytes += chunk.length;
			if (isJson) jsonChunks.push(chunk);
		});
		incoming.on('end', () => {
			if (isJson) exchange.requestJson = JSON.parse(Buffer.concat(jsonChunks).toString('utf8'));
		});
		incoming.pipe(upstream);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		baseUrl: `http://127.0.0.1:${port}`,
		exchanges,
		concurrency,
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

export const ACTION_NODE = 'Transcription Service';

/**
 * The action node with these parameters, named ACTION_NODE unless told; `continueOnFail` sets "On Error: Continue"
 * (n8n's continueRegularOutput).
 */
export function actionNode(
	parameters: INodeParameters,
	options: { continueOnFail?: boolean; name?: string } = {},
): RunOptions['nodes'][number] {
	return {
		name: options.name ?? ACTION_NODE,
		type: nodeType('transcriptionService'),
		parameters,
		...(options.continueOnFail ? { onError: 'continueRegularOutput' as const } : {}),
	};
}

/** What a test asserts about a failed execution: the node error's message, description and the API fields. */
export interface NodeErrorView {
	message: string;
	description: string | undefined;
	/** The API's error.code (NodeApiError) or the node's own code (NodeOperationError). */
	code: string | undefined;
	httpCode: string | undefined;
	/** The item error the node attached (what a Continue On Fail item would carry as json.error). */
	context: IDataObject;
}

export function nodeError(result: RunResult): NodeErrorView {
	const error = result.error as unknown as
		| { message: string; description?: string; httpCode?: string | null; context?: IDataObject }
		| undefined;
	if (!error)
		throw new Error(
			`Expected the execution to fail, it succeeded: ${JSON.stringify(result.output(ACTION_NODE))}`,
		);
	const itemError = (error.context?.itemError ?? {}) as IDataObject;
	return {
		message: error.message,
		description: error.description ?? undefined,
		code: itemError.code as string | undefined,
		httpCode: error.httpCode ?? undefined,
		context: itemError,
	};
}
