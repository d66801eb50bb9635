// Starts one sandbox + one real n8n (the version E2E_N8N_VERSION names) for every suite of this jest run.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

import type { E2eEnvironment } from '../support/n8n/environment';
import { startEnvironment } from '../support/n8n/environment';
import {
	activeWorkflowIds,
	contextFile,
	suiteVersionId,
	suiteWorkflows,
	triggerIsBuilt,
	triggerWorkflows,
} from '../support/n8n/suite';
import type { SuiteContext } from '../support/n8n/suite';
import { WORK_DIR } from '../support/n8n/versions';

declare global {
	var tssE2eEnvironment: E2eEnvironment | undefined;
}

export default async function globalSetup(): Promise<void> {
	const versionId = suiteVersionId();
	const started = Date.now();
	const environment = await startEnvironment({
		versionId,
		workDir: path.join(WORK_DIR, versionId),
		workflows: suiteWorkflows,
		activate: activeWorkflowIds(),
	});
	globalThis.tssE2eEnvironment = environment;
	const { n8n, sandbox, api } = environment;

	const context: SuiteContext = {
		versionId,
		n8nVersion: n8n.install.n8nVersion,
		nodeVersion: n8n.install.nodeVersion,
		n8nBaseUrl: n8n.baseUrl,
		n8nPort: n8n.port,
		userFolder: n8n.userFolder,
		filesFolder: environment.filesFolder,
		sandboxBaseUrl: sandbox.baseUrl,
		session: api.session,
		triggerUrls: triggerIsBuilt() ? triggerWorkflows(n8n.baseUrl).urls : undefined,
		keys: {
			live: sandbox.keys.platinum_live.key,
			test: sandbox.keys.platinum_test.key,
			signingSecret: sandbox.keys.platinum_live.signing_secret,
		},
	};
	await mkdir(path.dirname(contextFile(versionId)), { recursive: true });
	await writeFile(contextFile(versionId), JSON.stringify(context, null, 2));
	process.stderr.write(
		`\n[e2e] n8n ${context.n8nVersion} on Node ${context.nodeVersion} at ${n8n.baseUrl}, sandbox ${sandbox.baseUrl}` +
			` — ready in ${((Date.now() - started) / 1000).toFixed(1)} s (log: ${n8n.logFile})\n`,
	);
}
