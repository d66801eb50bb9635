// Everything a real-n8n run needs, in the order a user would set it up: the sandbox service, a fresh
// n8n user folder with the packed pack installed, credentials and workflows imported with n8n's CLI,
// n8n started, the owner signed in with an API key, the listed workflows activated.
// Shared by the e2e suite (jest global setup) and `npm run dev`.
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { startCountingProxy, type CountingProxy } from '../sandbox/counting-proxy';
import type { RunningSandbox, SandboxOptions } from '../../../sandbox/server';
import { startSandbox } from '../../../sandbox/server';
import { N8nInstance } from './n8n';
import { installIntoUserFolder, packPackage } from './package';
import { N8nApi } from './rest';
import type { N8nVersionId } from './versions';
import { n8nInstall } from './versions';
import type { WorkflowJson } from './workflows';

/** The credential every example and e2e workflow refers to (examples keep this id so they import ready to run). */
export const SANDBOX_CREDENTIAL = {
	id: 'tssSandboxCred01',
	name: 'Transcription Service (sandbox)',
};
/** Same account with its test key: jobs complete at once, so every operation can run in one pass. */
export const SANDBOX_TEST_KEY_CREDENTIAL = {
	id: 'tssSandboxTest01',
	name: 'Transcription Service (sandbox, test key)',
};
export const CREDENTIAL_TYPE = 'transcriptionServiceApi';

export interface WorkflowPlaces {
	n8nBaseUrl: string;
	sandboxBaseUrl: string;
	filesFolder: string;
}

export interface EnvironmentOptions {
	versionId: N8nVersionId;
	/** Emptied and filled with the user folder, files folder, tarball and logs. */
	workDir: string;
	sandboxPort?: number;
	n8nPort?: number;
	/** Seconds a live sandbox job takes (short keeps the suite fast). */
	jobSeconds?: number;
	/** Further sandbox settings (e.g. timeScale for the webhook retry schedule). */
	sandbox?: Omit<SandboxOptions, 'port' | 'quiet' | 'allowLocalWebhooks' | 'jobSeconds'>;
	/** Put a counting proxy between n8n and the service: the credentials point at it. */
	countService?: boolean;
	/** Built once the sandbox and n8n ports are known (webhook URLs depend on them). */
	workflows: (places: WorkflowPlaces) => WorkflowJson[];
	/** Ids of the imported workflows to activate once n8n runs. */
	activate?: string[];
}

export interface E2eEnvironment {
	n8n: N8nInstance;
	api: N8nApi;
	sandbox: RunningSandbox;
	/** The folder n8n's Read/Write Files from Disk node may use. */
	filesFolder: string;
	/** Every request n8n made to the service (with `countService`). */
	proxy?: CountingProxy;
	stop(): Promise<void>;
}

export async function startEnvironment(options: EnvironmentOptions): Promise<E2eEnvironment> {
	const install = n8nInstall(options.versionId);
	// The n8n user folder lives outside this repository, linked from the work folder (where its n8n.log is looked for):
	// inside the repository Node would resolve the installed pack's `n8n-workflow` from the repository's own node_modules
	// (parent folders come before the NODE_PATH through which n8n hands community packages its copy), and the pack would
	// run on this project's n8n-workflow instead of the one of the n8n under test.
	const userFolder = path.join(options.workDir, 'user');
	const userFolderPrefix = path.join(await realpath(tmpdir()), 'tss-e2e-user-');
	const previousUserFolder = await realpath(userFolder).catch(() => undefined);
	await rm(options.workDir, { recursive: true, force: true });
	await mkdir(options.workDir, { recursive: true });
	if (previousUserFolder?.startsWith(userFolderPrefix))
		await rm(previousUserFolder, { recursive: true, force: true });
	await symlink(await mkdtemp(userFolderPrefix), userFolder);
	const filesFolder = path.join(options.workDir, 'files');

	const sandbox = await startSandbox({
		...options.sandbox,
		port: options.sandboxPort ?? 0,
		quiet: true,
		allowLocalWebhooks: true,
		jobSeconds: options.jobSeconds ?? 2,
	});
	const proxy = options.countService ? await startCountingProxy(sandbox.baseUrl) : undefined;
	const serviceBaseUrl = proxy?.baseUrl ?? sandbox.baseUrl;
	const n8n = await N8nInstance.create({ install, userFolder, filesFolder, port: options.n8nPort });
	const stop = async () => {
		await n8n.stop();
		await proxy?.close();
		await sandbox.close();
	};

	try {
		const tarball = await packPackage(options.workDir);
		await installIntoUserFolder(userFolder, tarball);

		const credentialsFile = path.join(options.workDir, 'credentials.json');
		const credentials = [
			{ ...SANDBOX_CREDENTIAL, key: sandbox.keys.platinum_live },
			{ ...SANDBOX_TEST_KEY_CREDENTIAL, key: sandbox.keys.platinum_test },
		].map(({ key, ...credential }) => ({
			...credential,
			type: CREDENTIAL_TYPE,
			data: {
				apiKey: key.key,
				signingSecret: key.signing_secret,
				previousSigningSecret: '',
				baseUrl: serviceBaseUrl,
				pathPrefix: '/api/v1',
			},
		}));
		await writeFile(credentialsFile, JSON.stringify(credentials, null, 2));
		await n8n.cli(['import:credentials', `--input=${credentialsFile}`]);

		const workflowsFolder = path.join(options.workDir, 'workflows');
		await mkdir(workflowsFolder, { recursive: true });
		const workflows = options.workflows({
			n8nBaseUrl: n8n.baseUrl,
			sandboxBaseUrl: sandbox.baseUrl,
			filesFolder,
		});
		for (const workflow of workflows) {
			await writeFile(
				path.join(workflowsFolder, `${workflow.id}.json`),
				JSON.stringify(workflow, null, 2),
			);
		}
		if (workflows.length > 0) {
			await n8n.cli(['import:workflow', '--separate', `--input=${workflowsFolder}`]);
		}

		await n8n.start();
		const api = new N8nApi(n8n.baseUrl);
		await api.signIn();
		for (const workflowId of options.activate ?? []) {
			await api.activateWorkflow(workflowId);
		}
		return { n8n, api, sandbox, filesFolder, proxy, stop };
	} catch (error) {
		await stop();
		throw error;
	}
}
