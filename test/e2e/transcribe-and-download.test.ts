// Suite 1: Transcribe and Download inside a real n8n — several binary items in, transcripts and all
// four artifact files out, each byte-identical to what the service serves; and the form example.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { ARTIFACT_FORMATS } from '../../src/artifacts';
import { makeWav } from '../support/fixtures/media';
import { ARTIFACT_MIME_TYPES, artifactText } from '../support/n8n/artifacts';
import {
	executionIds,
	failureOf,
	formAnswerPage,
	newExecutions,
	nodeItems,
	postJson,
	serviceArtifact,
	submitFormRecording,
} from '../support/n8n/executions';
import { suiteHandles, WORKFLOW_IDS } from '../support/n8n/suite';

const { context, api } = suiteHandles();

describe(`Transcribe and Download in n8n ${context.n8nVersion} (Node ${context.nodeVersion})`, () => {
	it('turns several media files into their transcripts and all four artifacts', async () => {
		const folder = path.join(context.filesFolder, 'batch');
		await mkdir(folder, { recursive: true });
		const media = [
			{ fileName: 'interview-one.wav', seconds: 1 },
			{ fileName: 'interview-two.wav', seconds: 2 },
			{ fileName: 'ראיון-שלוש.wav', seconds: 1.5 },
		];
		for (const { fileName, seconds } of media) {
			await writeFile(path.join(folder, fileName), makeWav({ seconds }));
		}
		const before = await executionIds(api, WORKFLOW_IDS.batch);

		const response = await postJson(`${context.n8nBaseUrl}/webhook/e2e-transcribe-batch`, {
			glob: path.join(folder, '*.wav'),
		});

		const [execution] = await newExecutions(api, WORKFLOW_IDS.batch, before);
		expect(failureOf(execution)).toBeUndefined();
		expect(response.status).toBe(200);
		const items = nodeItems(execution, 'Transcribe and Download');
		expect(items).toHaveLength(media.length);
		const stems = items.map((item) => path.parse(String(item.binary?.txt?.fileName)).name).sort();
		expect(stems).toEqual(media.map(({ fileName }) => path.parse(fileName).name).sort());

		for (const item of items) {
			const jobId = String(item.json.job_id);
			expect(item.json.status).toBe('completed');
			expect(typeof item.json.text).toBe('string');
			expect(String(item.json.text).length).toBeGreaterThan(0);
			for (const format of ARTIFACT_FORMATS) {
				const binary = item.binary?.[format];
				expect(binary).toBeDefined();
				if (!binary) continue;
				expect(binary.mimeType).toBe(ARTIFACT_MIME_TYPES[format]);
				expect(binary.fileName?.endsWith(`.${format}`)).toBe(true);
				// Kept in n8n's filesystem store (N8N_DEFAULT_BINARY_DATA_MODE=filesystem), not inline in the execution:
				// n8n 3.0 has no in-memory mode.
				expect(binary.id).toMatch(/^filesystem(-v2)?:/);
				const stored = await api.binaryData(binary);
				const served = await serviceArtifact(
					context.sandboxBaseUrl,
					context.keys.live,
					jobId,
					format,
				);
				expect(stored.equals(served)).toBe(true);
				expect((await artifactText(format, stored)).length).toBeGreaterThan(0);
			}
			expect(item.json.text).toBe((await api.binaryData(item.binary!.txt)).toString('utf8'));
		}
	});

	it('answers the example form upload with the transcript', async () => {
		const before = await executionIds(api, WORKFLOW_IDS.exampleForm);
		const response = await submitFormRecording(context.n8nBaseUrl, 'voicemail.wav', 1);

		expect(response.status).toBe(200);
		const answer = formAnswerPage(await response.text());
		const [execution] = await newExecutions(api, WORKFLOW_IDS.exampleForm, before);
		expect(failureOf(execution)).toBeUndefined();
		const served = await serviceArtifact(
			context.sandboxBaseUrl,
			context.keys.live,
			answer.jobId,
			'txt',
		);
		expect(answer.header).toBe('Your transcript');
		expect(answer.text).toBe(served.toString('utf8').trim());
	});
});
