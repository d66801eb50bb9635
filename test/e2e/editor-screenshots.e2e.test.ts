// The nodes in the real n8n editor, photographed with Debian's chromium through playwright-core
// (never a downloaded browser). Pictures go to test/e2e/.work/screenshots/<version>/; with
// E2E_UPDATE_SCREENSHOTS=1 they also replace the ones under docs/ that the README shows.
import { existsSync } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { chromium } from 'playwright-core';

import { OWNER } from './harness/rest';
import { suiteHandles, WORKFLOW_IDS } from './harness/suite';
import { REPO_ROOT, WORK_DIR } from './harness/versions';

const { context } = suiteHandles();
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_FLAGS = [
	'--headless',
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
];
const outputFolder = path.join(WORK_DIR, 'screenshots', context.versionId);

const describeWithChromium = existsSync(CHROMIUM) ? describe : describe.skip;

describeWithChromium(`Editor screenshots in n8n ${context.n8nVersion}`, () => {
	let browser: Browser;
	let page: Page;

	beforeAll(async () => {
		await mkdir(outputFolder, { recursive: true });
		browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
		page = await browser.newPage({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1 });
		await page.goto(`${context.n8nBaseUrl}/signin`);
		await page
			.locator('input[type="email"], input[name="emailOrLdapLoginId"]')
			.first()
			.fill(OWNER.email);
		await page.locator('input[type="password"]').first().fill(OWNER.password);
		await page.keyboard.press('Enter');
		await page.waitForURL((url) => !url.pathname.startsWith('/signin'), { timeout: 60_000 });
	});

	afterAll(async () => {
		await browser?.close();
	});

	async function save(name: string): Promise<void> {
		const file = path.join(outputFolder, `${name}.png`);
		await page.screenshot({ path: file });
		if (process.env.E2E_UPDATE_SCREENSHOTS === '1') {
			await mkdir(path.join(REPO_ROOT, 'docs'), { recursive: true });
			await copyFile(file, path.join(REPO_ROOT, 'docs', `${name}.png`));
		}
	}

	async function openWorkflow(workflowId: string): Promise<void> {
		await page.goto(`${context.n8nBaseUrl}/workflow/${workflowId}`);
		await page.locator('[data-test-id="canvas-node"]').first().waitFor({ timeout: 60_000 });
		// n8n 2.15 opens a "Production Checklist" over published workflows a moment after load; a click on
		// empty canvas closes it.
		const checklist = page.getByText('Production Checklist');
		const checklistShown = await checklist
			.waitFor({ timeout: 3000 })
			.then(() => true)
			.catch(() => false);
		if (checklistShown) {
			await page.mouse.click(200, 250);
			await checklist.waitFor({ state: 'hidden', timeout: 5000 });
		}
		await page.waitForTimeout(500);
	}

	async function openNode(nodeName: string): Promise<void> {
		await page.locator(`[data-test-id="canvas-node"][data-node-name="${nodeName}"]`).dblclick();
		await page.locator('[data-test-id="ndv"]').first().waitFor({ timeout: 30_000 });
		await page.waitForTimeout(800);
	}

	async function closeNode(): Promise<void> {
		await page.keyboard.press('Escape');
		await page.waitForTimeout(300);
	}

	it('shows the form example and the Transcribe and Download node', async () => {
		await openWorkflow(WORKFLOW_IDS.exampleForm);
		await save('workflow-form-transcribe');
		await openNode('Transcribe and Download');
		await save('node-transcribe-and-download');
		await closeNode();
	});

	it('finds the node in the nodes panel', async () => {
		await openWorkflow(WORKFLOW_IDS.exampleForm);
		await page.locator('[data-test-id="node-creator-plus-button"]').first().click();
		await page
			.locator('[data-test-id="node-creator-search-bar"]')
			.first()
			.waitFor({ timeout: 30_000 });
		// The search field takes focus when the panel opens.
		await page.keyboard.type('Transcription');
		await page.waitForTimeout(1000);
		await save('nodes-panel-search');
		const found = await page.locator('[data-test-id="node-creator-item-name"]').allInnerTexts();
		await page.keyboard.press('Escape');

		expect(found).toContain('Transcription Service');
	});

	it('shows the scheduled batch and the trigger example', async () => {
		await openWorkflow(WORKFLOW_IDS.exampleBatch);
		await save('workflow-scheduled-batch');
		await openNode('Create Transcription');
		await save('node-create-transcription');
		await closeNode();
		await openWorkflow(WORKFLOW_IDS.exampleTrigger);
		await save('workflow-trigger-save');
		await openNode('On Transcription Completed');
		await save('node-trigger');
		await closeNode();
	});
});
