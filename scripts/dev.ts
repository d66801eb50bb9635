// `npm run dev`: the sandbox plus a local n8n editor (the e2e install) with the pack installed, the
// sandbox credentials created and the example workflows imported. Prints the URL and a login; Ctrl-C stops
// everything. E2E_N8N=2.8|2.15 picks the n8n (default 2.8, on this machine's Node).
import { execFileSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';

import {
	SANDBOX_CREDENTIAL,
	SANDBOX_TEST_KEY_CREDENTIAL,
	startEnvironment,
} from '../test/support/n8n/environment';
import type { WorkflowPlaces } from '../test/support/n8n/environment';
import { freePort } from '../test/support/n8n/processes';
import { OWNER } from '../test/support/n8n/rest';
import { triggerIsBuilt, triggerWorkflows, WORKFLOW_IDS } from '../test/support/n8n/suite';
import { isN8nVersionId, N8N_VERSION_IDS, REPO_ROOT, WORK_DIR } from '../test/support/n8n/versions';
import { EXAMPLES, loadExample, relocate } from '../test/support/n8n/workflows';

const write = (line = '') => process.stdout.write(`${line}\n`);

/** The usual port when it is free (bookmarks keep working), any free one otherwise. */
async function preferredPort(port: number): Promise<number> {
	const free = await new Promise<boolean>((resolve) => {
		const probe = createServer();
		probe.once('error', () => resolve(false));
		probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
	});
	return free ? port : await freePort();
}

function exampleWorkflows(places: WorkflowPlaces) {
	// Imported, not active: the pause example waits on its schedule or POST, the polling and podcast ones would start
	// polling (the podcast one a placeholder feed).
	const workflows = [
		loadExample(EXAMPLES.form),
		loadExample(EXAMPLES.pause),
		loadExample(EXAMPLES.polling),
		loadExample(EXAMPLES.podcast),
	];
	if (triggerIsBuilt()) {
		const { exampleTrigger, exampleBatch } = triggerWorkflows(places.n8nBaseUrl);
		workflows.push(exampleTrigger, exampleBatch);
	}
	return workflows.map((workflow) => relocate(workflow, places.filesFolder));
}

async function main(): Promise<void> {
	const versionId = process.env.E2E_N8N ?? '2.8';
	if (!isN8nVersionId(versionId))
		throw new Error(
			`E2E_N8N must be one of ${N8N_VERSION_IDS.join(', ')} for dev, not "${versionId}"`,
		);
	// Cached after the first time (minutes then, instant later).
	execFileSync('bash', [path.join(REPO_ROOT, 'scripts/e2e/install.sh'), versionId], {
		stdio: 'inherit',
	});

	write(`Starting the sandbox and n8n ${versionId} (about 20 s)…`);
	const environment = await startEnvironment({
		versionId,
		workDir: path.join(WORK_DIR, `dev-${versionId}`),
		sandboxPort: await preferredPort(4010),
		n8nPort: await preferredPort(5678),
		jobSeconds: 5,
		workflows: exampleWorkflows,
		activate: triggerIsBuilt()
			? [WORKFLOW_IDS.exampleForm, WORKFLOW_IDS.exampleTrigger]
			: [WORKFLOW_IDS.exampleForm],
	});
	const { n8n, sandbox, filesFolder } = environment;
	for (const folder of ['inbox', 'transcripts'])
		await mkdir(path.join(filesFolder, folder), { recursive: true });

	write();
	write(`n8n ${n8n.install.n8nVersion} editor   ${n8n.baseUrl}`);
	write(`  login                  ${OWNER.email} / ${OWNER.password}`);
	write(`  examples               ${n8n.baseUrl}/home/workflows`);
	write(`  form (example a)       ${n8n.baseUrl}/form/transcribe`);
	if (triggerIsBuilt()) {
		write(`  trigger URL (b)        ${triggerWorkflows(n8n.baseUrl).urls.exampleTrigger}`);
	}
	write(
		`  files folder           ${filesFolder} (batch example reads inbox/, trigger example writes transcripts/)`,
	);
	write(`Sandbox                  ${sandbox.baseUrl} (webhooks to loopback allowed)`);
	write(
		`  credentials            "${SANDBOX_CREDENTIAL.name}" (live key), "${SANDBOX_TEST_KEY_CREDENTIAL.name}"`,
	);
	write(`  live key               ${sandbox.keys.platinum_live.key}`);
	write(`  test key               ${sandbox.keys.platinum_test.key}`);
	write(`  signing secret         ${sandbox.keys.platinum_live.signing_secret}`);
	write(`n8n log                  ${n8n.logFile}`);
	write();
	write('Ctrl-C stops n8n and the sandbox.');

	let stopping = false;
	const stop = (signal: NodeJS.Signals) => {
		if (stopping) return;
		stopping = true;
		write(`\n${signal}: stopping n8n and the sandbox…`);
		environment.stop().then(
			() => process.exit(0),
			(error: unknown) => {
				process.stderr.write(`dev: ${error instanceof Error ? error.message : String(error)}\n`);
				process.exit(1);
			},
		);
	};
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
	process.stderr.write(
		`dev: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
	);
	process.exit(1);
});
