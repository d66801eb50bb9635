// Runs workflows that use the built package inside n8n-core's own engine (WorkflowExecute), the way n8n does:
// the package is loaded from dist/ by n8n's package loader, credentials go through the credential type's
// `authenticate`, and binary data lives in n8n's filesystem binary data store.
import { Container } from '@n8n/di';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
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
import type {
	IBinaryData,
	ICredentialDataDecryptedObject,
	ICredentialType,
	IConnections,
	IDataObject,
	IExecuteData,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeExecutionData,
	INodeType,
	INodeTypes,
	IRun,
	IRunExecutionData,
	IVersionedNodeType,
	IWorkflowBase,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';
import { createDeferredPromise, ICredentialsHelper, NodeHelpers, Workflow } from 'n8n-workflow';

export const PACKAGE_DIR = path.resolve(__dirname, '../..');
export const PACKAGE_NAME = 'n8n-nodes-transcription-service';
export const CREDENTIAL_TYPE = 'transcriptionServiceApi';

export function nodeType(name: string): string {
	return `${PACKAGE_NAME}.${name}`;
}

let loaderPromise: Promise<LazyPackageDirectoryLoader> | undefined;

/** Loads dist/ through n8n's package loader (run `npm run build` first). */
export function loadPackage(): Promise<LazyPackageDirectoryLoader> {
	loaderPromise ??= (async () => {
		const loader = new LazyPackageDirectoryLoader(PACKAGE_DIR);
		await loader.loadAll();
		return loader;
	})();
	return loaderPromise;
}

class PackageNodeTypes implements INodeTypes {
	constructor(private readonly loader: LazyPackageDirectoryLoader) {}

	getByName(type: string): INodeType | IVersionedNodeType {
		return this.loader.getNode(shortName(type)).type;
	}

	getByNameAndVersion(type: string, version?: number): INodeType {
		return NodeHelpers.getVersionedNodeType(this.getByName(type), version);
	}

	getKnownTypes() {
		return {};
	}
}

function shortName(type: string): string {
	return type.startsWith(`${PACKAGE_NAME}.`) ? type.slice(PACKAGE_NAME.length + 1) : type;
}

/** Hands out fixture credentials and applies the credential type's own `authenticate`. */
class FixtureCredentialsHelper extends ICredentialsHelper {
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

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		const { authenticate } = this.credentialType(typeName);
		if (typeof authenticate === 'function') return await authenticate(credentials, requestOptions);
		return requestOptions;
	}

	async preAuthentication(
		_helpers: IHttpRequestHelper,
		_credentials: ICredentialDataDecryptedObject,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		return undefined;
	}

	async getCredentials(): Promise<never> {
		throw new Error('Encrypted credentials are not used in engine tests');
	}

	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentialDataDecryptedObject> {
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

export interface TestCredentials {
	apiKey: string;
	baseUrl: string;
	signingSecret?: string;
	previousSigningSecret?: string;
	pathPrefix?: string;
}

export interface RunOptions {
	/** The node under test (or several, connected in order). */
	nodes: Array<Omit<INode, 'id' | 'typeVersion' | 'position'> & Partial<Pick<INode, 'typeVersion'>>>;
	/** Items fed to the first node. */
	input?: INodeExecutionData[];
	credentials?: TestCredentials;
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
	await initBinaryData();
	const executionId = options.executionId ?? `engine-${process.pid}-${++executionCounter}`;

	const nodes: INode[] = options.nodes.map((node, index) => ({
		typeVersion: 1,
		...node,
		id: `node-${index}`,
		position: [index * 200, 0],
		credentials: options.credentials
			? { [CREDENTIAL_TYPE]: { id: 'cred-1', name: 'Transcription Service account' } }
			: undefined,
	}));
	const connections: IConnections = {};
	for (let index = 0; index + 1 < nodes.length; index++) {
		connections[nodes[index].name] = { main: [[{ node: nodes[index + 1].name, type: 'main', index: 0 }]] };
	}
	const workflowData: IWorkflowBase = {
		id: 'engine-test-workflow',
		name: 'engine test',
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
		nodeTypes: new PackageNodeTypes(loader),
		settings: workflowData.settings,
	});

	const hooks = new ExecutionLifecycleHooks('manual', executionId, workflowData);
	const finished = createDeferredPromise<IRun>();
	hooks.addHandler('workflowExecuteAfter', (run) => finished.resolve(run));

	const credentials: Record<string, ICredentialDataDecryptedObject> = {};
	if (options.credentials) {
		credentials[CREDENTIAL_TYPE] = {
			pathPrefix: '/api/v1',
			signingSecret: '',
			previousSigningSecret: '',
			...options.credentials,
		} as unknown as ICredentialDataDecryptedObject;
	}
	const additionalData = {
		executionId,
		hooks,
		credentialsHelper: new FixtureCredentialsHelper(loader, credentials),
		currentNodeParameters: undefined,
		restApiUrl: 'http://127.0.0.1:5678/rest',
		instanceBaseUrl: 'http://127.0.0.1:5678/',
		formWaitingBaseUrl: 'http://127.0.0.1:5678/form-waiting',
		webhookBaseUrl: 'http://127.0.0.1:5678/webhook',
		webhookWaitingBaseUrl: 'http://127.0.0.1:5678/webhook-waiting',
		webhookTestBaseUrl: 'http://127.0.0.1:5678/webhook-test',
		variables: {},
		userId: 'engine-test-user',
		setExecutionStatus: () => undefined,
		sendDataToUI: () => undefined,
		executeWorkflow: async () => {
			throw new Error('Sub-workflows are not used in engine tests');
		},
		logAiEvent: () => undefined,
	} as unknown as IWorkflowExecuteAdditionalData;

	const startNode = nodes[0];
	const executeData: IExecuteData = {
		node: startNode,
		data: { main: [options.input ?? [{ json: {} }]] },
		source: null,
	};
	const runExecutionData: IRunExecutionData = {
		startData: {},
		resultData: { runData: {} },
		executionData: {
			contextData: {},
			nodeExecutionStack: [executeData],
			metadata: {},
			waitingExecution: {},
			waitingExecutionSource: {},
		},
	} as IRunExecutionData;

	const workflowExecute = new WorkflowExecute(additionalData, 'manual', runExecutionData);
	const execution = workflowExecute.processRunExecutionData(workflow);
	if (options.cancelAfterMs !== undefined) {
		setTimeout(() => execution.cancel(), options.cancelAfterMs).unref();
	}
	await execution.catch(() => undefined);
	const run = await finished.promise;

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
		{ type: 'execution', workflowId: 'engine-test-workflow', executionId: args.executionId ?? 'fixtures' },
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
