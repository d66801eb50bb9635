// What is built from the OpenAPI document for people and tools: the Arazzo workflow (transcribe.arazzo.yaml) and the
// API reference page (/developers/api-reference).

import { existsSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { apiReferenceHtml, arazzoYaml, errorCatalog } from '../../openapi';
import { OPERATION_IDS, OPERATIONS } from '../../src/api';
import type { OperationId } from '../../src/api';
import { operation, parameters, response } from '../support/fixtures/openapi-document';

const repoRoot = path.join(__dirname, '..', '..');

describe('Arazzo workflow (transcribe.arazzo.yaml)', () => {
	interface ArazzoStep {
		stepId: string;
		operationId: string;
		parameters?: Array<{ name: string; in: string }>;
	}
	const arazzo = parse(arazzoYaml()) as {
		arazzo: string;
		sourceDescriptions: Array<{ name: string; url: string; type: string }>;
		workflows: Array<{ workflowId: string; steps: ArazzoStep[] }>;
	};

	it('is Arazzo 1.0.x sourced from openapi.yaml', () => {
		expect(arazzo.arazzo).toMatch(/^1\.0\.\d+$/);
		expect(arazzo.sourceDescriptions).toEqual([
			{ name: 'transcriptionService', url: './openapi.yaml', type: 'openapi' },
		]);
		expect(existsSync(path.join(repoRoot, 'openapi', arazzo.sourceDescriptions[0].url))).toBe(true);
	});

	it('follows the five recommended steps', () => {
		expect(arazzo.workflows[0].steps.map((step) => step.operationId)).toEqual([
			'createUpload',
			'uploadBinary',
			'createTranscription',
			'getTranscription',
			'getTranscriptionArtifact',
		]);
	});

	it('references only operations and parameters that exist', () => {
		for (const step of arazzo.workflows.flatMap((workflow) => workflow.steps)) {
			expect(OPERATION_IDS).toContain(step.operationId);
			const declared = parameters(step.operationId as OperationId).map(
				(parameter) => `${parameter.in}:${parameter.name}`,
			);
			for (const parameter of step.parameters ?? [])
				expect(declared).toContain(`${parameter.in}:${parameter.name}`);
		}
	});

	it('can point its source description at the served OpenAPI location', () => {
		const served = parse(arazzoYaml({ openApiUrl: '../openapi.yaml' })) as typeof arazzo;
		expect(served.sourceDescriptions[0].url).toBe('../openapi.yaml');
	});
});

describe('API reference page (/developers/api-reference)', () => {
	const html = apiReferenceHtml();

	it('has an anchor for every catalogued error code and the general #errors section', () => {
		for (const { code } of errorCatalog()) expect(html).toContain(`id="${code}"`);
		expect(html).toContain('id="errors"');
	});

	it('links the OpenAPI JSON and YAML and the Arazzo workflow', () => {
		for (const href of [
			'/api/v1/openapi.json',
			'/api/v1/openapi.yaml',
			'/api/v1/workflows/transcribe.arazzo.yaml',
		]) {
			expect(html).toContain(`href="${href}"`);
		}
	});

	it.each(OPERATION_IDS)('lists %s with the error codes the document gives it', (operationId) => {
		const start = html.indexOf(`<tr id="op-${operationId}">`);
		expect(start).toBeGreaterThan(-1);
		const row = html.slice(start, html.indexOf('</tr>', start));
		const { method, path: operationPath } = OPERATIONS[operationId];
		expect(row).toContain(`${method}</span> <code>/api/v1${operationPath}</code>`);
		const codes = Object.keys(operation(operationId).responses).flatMap(
			(status) => response(operationId, status)['x-error-codes'] ?? [],
		);
		const linked = [...row.matchAll(/href="#([a-z_]+)"/g)].map((match) => match[1]);
		expect(linked).toEqual(codes);
	});

	it('is self-contained: no scripts and no external resources', () => {
		expect(html).not.toMatch(/<script/i);
		expect(html).not.toMatch(/(src|href)="(https?:)?\/\//i);
	});
});
