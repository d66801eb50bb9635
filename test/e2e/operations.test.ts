// Suite 3: every operation besides Transcribe and Download runs once in a real n8n workflow
// (the test key makes the job complete at once, so one pass reaches Download Artifact).
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { makeWav } from '../support/fixtures/media';
import { ARTIFACT_MIME_TYPES } from '../support/n8n/artifacts';
import {
	executionIds,
	failureOf,
	newExecutions,
	nodeItems,
	postJson,
	serviceArtifact,
} from '../support/n8n/executions';
import { suiteHandles, WORKFLOW_IDS } from '../support/n8n/suite';

const { context, api } = suiteHandles();

describe(`Every other operation in n8n ${context.n8nVersion} (Node ${context.nodeVersion})`, () => {
	it('runs Account Get, Send Test Event, Create Slot, Send Media, Create, Get, Download Artifact and Get Many', async () => {
		const folder = path.join(context.filesFolder, 'operations');
		await mkdir(folder, { recursive: true });
		const media = makeWav({ seconds: 2 });
		const file = path.join(folder, 'podcast-episode.wav');
		await writeFile(file, media);
		const testEventTarget =
			context.triggerUrls?.exampleTrigger ?? `${context.n8nBaseUrl}/webhook/e2e-missing-trigger`;
		const before = await executionIds(api, WORKFLOW_IDS.everyOperation);

		const response = await postJson(`${context.n8nBaseUrl}/webhook/e2e-every-operation`, {
			file,
			webhook_url: testEventTarget,
		});

		const [execution] = await newExecutions(api, WORKFLOW_IDS.everyOperation, before);
		expect(failureOf(execution)).toBeUndefined();
		expect(response.status).toBe(200);
		const only = (nodeName: string) => {
			const items = nodeItems(execution, nodeName);
			expect(items).toHaveLength(1);
			return items[0];
		};

		expect(only('Account Get').json).toMatchObject({
			account_id: 'acct_sandbox_platinum',
			api_access: true,
		});
		expect(only('Send Test Event').json).toMatchObject({
			ok: true,
			delivered: true,
			status_code: 200,
		});
		const slot = only('Create Slot').json;
		expect(slot).toMatchObject({ filename: 'podcast-episode.wav', size_bytes: media.length });
		expect(only('Send Media').json).toMatchObject({
			upload_id: slot.upload_id,
			ok: true,
			bytes_received: media.length,
		});
		const created = only('Create Transcription').json;
		expect(created.status).toBe('completed');
		const jobId = String(created.job_id);
		expect(only('Get Transcription').json).toMatchObject({ job_id: jobId, status: 'completed' });

		const download = only('Download Artifact');
		expect(download.json).toMatchObject({
			job_id: jobId,
			format: 'txt',
			file_name: 'podcast-episode.txt',
		});
		expect(download.binary?.data.mimeType).toBe(ARTIFACT_MIME_TYPES.txt);
		const stored = await api.binaryData(download.binary!.data);
		expect(
			stored.equals(await serviceArtifact(context.sandboxBaseUrl, context.keys.test, jobId, 'txt')),
		).toBe(true);
		expect(download.json.text).toBe(stored.toString('utf8'));

		const listed = nodeItems(execution, 'Get Many').map((item) => item.json.job_id);
		expect(listed).toContain(jobId);
	});
});
