// The first workflow, as a new user meets it (README → Your first workflow), in a real n8n with Debian's chromium
// through playwright-core: the form example shows the person who uploaded the transcript of a recording, its lines as in
// the file, and, for a file that is not one, a page titled for what happened that says why there is none (not n8n's
// "Form Submitted" / "Your response has been recorded"), the run then listed as failed; the documentation links the editor
// shows for the credential and each node lead to a page and a heading that exist in this repository; the action node's
// AI-tool variant carries the description written for agents; and no output of these runs carries a key or a secret.
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { chromium } from 'playwright-core';

import { DOCUMENTATION_PAGES, pageOf, unresolved } from '../../scripts/documentation-links';
import { makeWav, NOT_MEDIA } from '../support/fixtures/media';
import { SANDBOX_CREDENTIAL } from '../support/n8n/environment';
import {
	executionIds,
	failureOf,
	formAnswerPage,
	newExecutions,
	nodeItems,
	postJson,
	serviceArtifact,
} from '../support/n8n/executions';
import { PACKAGE_NAME } from '../support/n8n/package';
import type { ExecutionItem, ExecutionWithData } from '../support/n8n/rest';
import { OWNER } from '../support/n8n/rest';
import { suiteHandles, WORKFLOW_IDS } from '../support/n8n/suite';
import { REPO_ROOT } from '../support/n8n/versions';
import { EXAMPLES, loadExample } from '../support/n8n/workflows';
import { Evidence, scanForSecrets } from '../support/reliability/evidence';

const { context, api } = suiteHandles();
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'];
const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
	name: string;
	repository: { url: string };
};

/** The built action node's description, as n8n loads it from the installed package. */
function builtActionNode(): {
	usableAsTool: { replacements: { description: string } };
	builderHint: unknown;
} {
	const file = path.join(REPO_ROOT, 'dist/nodes/TranscriptionService/TranscriptionService.node.js');
	const { TranscriptionService } = createRequire(__filename)(file) as {
		TranscriptionService: new () => { description: ReturnType<typeof builtActionNode> };
	};
	return new TranscriptionService().description;
}

/** The items a node put on one of its outputs (0: success, 1: error output) in its first run. */
function outputItems(execution: ExecutionWithData, nodeName: string, output: number) {
	return execution.data.resultData.runData[nodeName]?.[0]?.data?.main?.[output] ?? [];
}

/** What the editor loads for its node types (the same request the editor makes, with the session's cookie). */
async function editorNodeTypes(): Promise<
	Array<{
		name: string;
		description: string;
		builderHint?: unknown;
		properties: Array<{ name: string; default?: unknown }>;
	}>
> {
	const response = await fetch(`${context.n8nBaseUrl}/types/nodes.json`, {
		headers: { cookie: context.session.cookie, 'browser-id': 'tss-e2e-harness' },
	});
	expect(response.status).toBe(200);
	return (await response.json()) as Awaited<ReturnType<typeof editorNodeTypes>>;
}

describe(`Your first workflow in n8n ${context.n8nVersion} (Node ${context.nodeVersion})`, () => {
	let browser: Browser;
	let page: Page;
	const formExecutions: string[] = [];

	beforeAll(async () => {
		if (!existsSync(CHROMIUM))
			throw new Error(`${CHROMIUM} is missing: scripts/e2e/install-chromium.sh installs it`);
		browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
		page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
	});

	afterAll(async () => {
		await browser?.close();
	});

	/** Fills the form example in the browser with one file, submits it and reads the page it ends on. */
	async function uploadThroughTheForm(file: { name: string; mimeType: string; buffer: Buffer }) {
		const before = await executionIds(api, WORKFLOW_IDS.exampleForm);
		await page.goto(`${context.n8nBaseUrl}/form/transcribe`);
		await page.locator('input[type="file"]').first().setInputFiles(file);
		await page.locator('#submit-btn').click();
		await page.locator('#submitted-form').waitFor({ state: 'visible', timeout: 120_000 });
		const shown = {
			header: (await page.locator('#submitted-header').textContent())?.trim(),
			text: (await page.locator('#submitted-content').textContent())?.trim(),
			/** The text as the page renders it: its line breaks are the reader's. */
			rendered: await page.locator('#submitted-content').innerText(),
		};
		const [execution] = await newExecutions(api, WORKFLOW_IDS.exampleForm, before);
		formExecutions.push(execution.id);
		return { shown, execution };
	}

	describe('the form example', () => {
		it('shows the person who uploaded a recording its transcript', async () => {
			const { shown, execution } = await uploadThroughTheForm({
				name: 'team-standup.wav',
				mimeType: 'audio/wav',
				buffer: makeWav({ seconds: 2 }),
			});

			expect(failureOf(execution)).toBeUndefined();
			const [item] = nodeItems(execution, 'Transcribe and Download');
			const transcript = await serviceArtifact(
				context.sandboxBaseUrl,
				context.keys.live,
				String(item.json.job_id),
				'txt',
			);
			expect(item.json.text).toBe(transcript.toString('utf8'));
			expect(shown.header).toBe('Your transcript');
			expect(shown.text).toBe(String(item.json.text).trim());
			expect(shown.text?.length).toBeGreaterThan(0);
			// Lines and paragraphs as in the file: its title line stands alone, not run into the first sentence.
			const fileLines = String(item.json.text).trim().split('\n');
			expect(fileLines.length).toBeGreaterThan(2);
			expect(shown.rendered.split('\n')).toEqual(fileLines);
			expect(outputItems(execution, 'Respond with Failure', 0)).toEqual([]);
		});

		it('shows why there is no transcript when the file is not a recording, not "Your response has been recorded"', async () => {
			const { shown, execution } = await uploadThroughTheForm({
				name: 'voicemail.wav',
				mimeType: 'audio/wav',
				buffer: NOT_MEDIA,
			});

			// The failure went out on the node's error output and was answered; then the run is marked failed, so the
			// executions list shows it as one.
			expect(execution.status).toBe('error');
			expect(failureOf(execution)).toMatch(
				/^error at "Mark the Run Failed": Transcription job \S+ failed \(job_failed\)$/,
			);
			expect(outputItems(execution, 'Transcribe and Download', 0)).toEqual([]);
			const [failed] = outputItems(execution, 'Transcribe and Download', 1) as ExecutionItem[];
			const error = failed.json.error as {
				code: string;
				message: string;
				description: string;
				job_id: string;
			};
			expect(error.code).toBe('job_failed');
			expect(shown.header).toBe('The recording could not be transcribed');
			expect(shown.text).toBe(
				`${error.message}. ${error.description}\n\nError code: job_failed · job ${error.job_id}`,
			);
			expect(shown.text).toMatch(
				/^Transcription job \S+ failed\. The service could not transcribe the media\./,
			);
			expect(shown.text).not.toContain('Your response has been recorded');
		});

		it('answers an API client that posts a file that is not a recording with 422 and the error', async () => {
			const before = await executionIds(api, WORKFLOW_IDS.exampleForm);
			const form = new FormData();
			form.append('field-0', new Blob([NOT_MEDIA], { type: 'audio/wav' }), 'notes.wav');
			const response = await fetch(`${context.n8nBaseUrl}/form/transcribe`, {
				method: 'POST',
				body: form,
			});
			const [execution] = await newExecutions(api, WORKFLOW_IDS.exampleForm, before);
			formExecutions.push(execution.id);

			expect(response.status).toBe(422);
			const answer = formAnswerPage(await response.text());
			const [failed] = outputItems(execution, 'Transcribe and Download', 1) as ExecutionItem[];
			const error = failed.json.error as { message: string; description: string; job_id: string };
			expect(error.message).toBe(`Transcription job ${error.job_id} failed`);
			expect(error.description).toMatch(/^The service could not transcribe the media\./);
			expect(answer).toEqual({
				jobId: error.job_id,
				header: 'The recording could not be transcribed',
				text: `${error.message}. ${error.description}\n\nError code: job_failed · job ${error.job_id}`,
			});
			expect(execution.status).toBe('error');
		});
	});

	describe('the documentation links the editor shows', () => {
		beforeAll(async () => {
			await page.goto(`${context.n8nBaseUrl}/signin`);
			await page
				.locator('input[type="email"], input[name="emailOrLdapLoginId"]')
				.first()
				.fill(OWNER.email);
			await page.locator('input[type="password"]').first().fill(OWNER.password);
			await page.keyboard.press('Enter');
			await page.waitForURL((url) => !url.pathname.startsWith('/signin'), { timeout: 60_000 });
		});

		/** The page and heading of this repository a link leads to; fails when it leads elsewhere or nowhere. */
		function repositoryPage(href: string): string {
			const target = pageOf(manifest, href);
			expect([
				href,
				target === null ? 'not on the repository' : unresolved(REPO_ROOT, target),
			]).toEqual([href, null]);
			return target as string;
		}

		/** The links in the editor's element that lead to the repository (the docs links). */
		async function repositoryLinks(scope: string): Promise<string[]> {
			const prefix = manifest.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
			return await page
				.locator(`${scope} a[href^="${prefix}"]`)
				.evaluateAll((links) => links.map((link) => (link as unknown as { href: string }).href));
		}

		it("leads from the credential dialog to the credential's heading of docs/nodes.md", async () => {
			await page.goto(`${context.n8nBaseUrl}/home/credentials/${SANDBOX_CREDENTIAL.id}`);
			const dialog = '[data-test-id="editCredential-modal"]';
			await page.locator(dialog).waitFor({ timeout: 60_000 });
			await page.waitForTimeout(800);
			const links = await repositoryLinks(dialog);
			await page.keyboard.press('Escape');

			expect(links.length).toBeGreaterThan(0);
			for (const href of links)
				expect(repositoryPage(href)).toBe(DOCUMENTATION_PAGES.transcriptionServiceApi);
		});

		it.each([
			['transcriptionService', WORKFLOW_IDS.exampleForm, 'Transcribe and Download'],
			['transcriptionServiceTrigger', WORKFLOW_IDS.exampleTrigger, 'On Transcription Completed'],
			['transcriptionServicePollingTrigger', undefined, 'Finished Transcriptions'],
		])("leads from %s's Docs link to its heading", async (node, workflowId, nodeName) => {
			let id: string | undefined = workflowId;
			if (!id) {
				const example = loadExample(EXAMPLES.polling);
				id = await api.createWorkflow({
					name: example.name,
					nodes: example.nodes,
					connections: example.connections,
					settings: example.settings ?? {},
				});
			}
			await page.goto(`${context.n8nBaseUrl}/workflow/${id}`);
			const onCanvas = page.locator(`[data-test-id="canvas-node"][data-node-name="${nodeName}"]`);
			await onCanvas.waitFor({ timeout: 60_000 });
			// n8n 2.15 opens a "Production Checklist" over published workflows a moment after load.
			await page.waitForTimeout(3000);
			await page.keyboard.press('Escape');
			await onCanvas.dblclick();
			await page.locator('[data-test-id="ndv"]').first().waitFor({ timeout: 30_000 });
			await page.waitForTimeout(800);
			const links = await repositoryLinks('[data-test-id="ndv"]');
			await page.keyboard.press('Escape');

			expect(links.length).toBeGreaterThan(0);
			for (const href of links) expect(repositoryPage(href)).toBe(DOCUMENTATION_PAGES[node]);
		});
	});

	it("offers the action node to AI agents with the tool description written for them, and n8n's builder its hint", async () => {
		const built = builtActionNode();
		const types = await editorNodeTypes();
		const tool = types.find((type) => type.name === `${PACKAGE_NAME}.transcriptionServiceTool`);
		const node = types.find((type) => type.name === `${PACKAGE_NAME}.transcriptionService`);

		expect(tool?.description).toBe(built.usableAsTool.replacements.description);
		expect(tool?.properties.find((property) => property.name === 'toolDescription')?.default).toBe(
			built.usableAsTool.replacements.description,
		);
		expect(node?.builderHint).toEqual(built.builderHint);
	});

	it('puts no API key or signing secret in any output of these runs, or of a run of every other operation', async () => {
		const folder = path.join(context.filesFolder, 'first-workflow');
		await mkdir(folder, { recursive: true });
		const file = path.join(folder, 'interview.wav');
		await writeFile(file, makeWav({ seconds: 2 }));
		const before = await executionIds(api, WORKFLOW_IDS.everyOperation);
		const response = await postJson(`${context.n8nBaseUrl}/webhook/e2e-every-operation`, {
			file,
			webhook_url: context.triggerUrls?.exampleTrigger ?? `${context.n8nBaseUrl}/webhook/none`,
		});
		const [everyOperation] = await newExecutions(api, WORKFLOW_IDS.everyOperation, before);
		expect(failureOf(everyOperation)).toBeUndefined();
		expect(response.status).toBe(200);
		const executions = [
			...(await Promise.all(formExecutions.map((id) => api.execution(id)))),
			everyOperation,
		];
		expect(executions).toHaveLength(4);

		const evidence = new Evidence();
		let outputs = 0;
		for (const execution of executions) {
			const { runData, error } = execution.data.resultData;
			if (error) evidence.add(`execution ${execution.id} error`, error);
			for (const [nodeName, runs] of Object.entries(runData)) {
				for (const [runIndex, run] of runs.entries()) {
					if (run.error) evidence.add(`${nodeName} run ${runIndex} error`, run.error);
					for (const [output, items] of (run.data?.main ?? []).entries()) {
						outputs += items?.length ?? 0;
						evidence.add(`execution ${execution.id} ${nodeName} output ${output}`, items);
					}
				}
			}
		}
		expect(outputs).toBeGreaterThan(10);
		expect(
			scanForSecrets(evidence, {
				'live API key': context.keys.live,
				'test API key': context.keys.test,
				'signing secret': context.keys.signingSecret,
			}),
		).toEqual([]);
	});
});
