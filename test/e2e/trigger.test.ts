// Suite 2: the Trigger in an active workflow receives the sandbox's signed webhook for a real job,
// forged requests get 401 and start nothing, and the scheduled-batch + save-to-disk examples work together.
import { createHmac } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

import { makeWav } from '../support/fixtures/media';
import { ARTIFACT_MIME_TYPES } from '../support/n8n/artifacts';
import { createJob } from '../support/n8n/service-jobs';
import {
	executionIds,
	failureOf,
	newExecutions,
	nodeItems,
	serviceArtifact,
} from '../support/n8n/executions';
import { suiteHandles, WORKFLOW_IDS } from '../support/n8n/suite';

const { context, api, n8n } = suiteHandles();

function triggerUrls() {
	if (!context.triggerUrls)
		throw new Error('The trigger node is not built (dist/nodes/TranscriptionServiceTrigger)');
	return context.triggerUrls;
}

/** A live job created straight through the API (no n8n involved), reporting to `webhookUrl`. */
async function createLiveJob(webhookUrl: string, fileName: string): Promise<string> {
	return await createJob(context.sandboxBaseUrl, context.keys.live, webhookUrl, fileName);
}

describe(`Transcription Service Trigger in n8n ${context.n8nVersion} (Node ${context.nodeVersion})`, () => {
	it('receives the signed completion event of a real job, with the artifact downloaded', async () => {
		const before = await executionIds(api, WORKFLOW_IDS.triggerWithArtifact);

		const jobId = await createLiveJob(triggerUrls().triggerWithArtifact, 'board-meeting.wav');

		const [execution] = await newExecutions(api, WORKFLOW_IDS.triggerWithArtifact, before);
		expect(failureOf(execution)).toBeUndefined();
		const [item] = nodeItems(execution, 'Transcription Events');
		expect(item.json).toMatchObject({
			event: 'transcription.completed',
			job_id: jobId,
			status: 'completed',
		});
		expect(typeof item.json.event_id).toBe('string');
		const binary = item.binary?.data;
		expect(binary?.mimeType).toBe(ARTIFACT_MIME_TYPES.pdf);
		expect(binary?.fileName).toBe('board-meeting.pdf');
		const stored = await api.binaryData(binary!);
		expect(
			stored.equals(await serviceArtifact(context.sandboxBaseUrl, context.keys.live, jobId, 'pdf')),
		).toBe(true);
	});

	it('answers a forged event with 401 and starts no execution', async () => {
		const before = await executionIds(api, WORKFLOW_IDS.triggerWithArtifact);
		const body = JSON.stringify({
			created_at: new Date().toISOString(),
			event: 'transcription.completed',
			event_id: 'evt_forged_0001',
			job_id: 'job_forged_0001',
			links: {
				artifact: `${context.sandboxBaseUrl}/api/v1/transcriptions/job_forged_0001/artifact`,
				self: 'x',
			},
			status: 'completed',
		});
		const timestamp = String(Math.floor(Date.now() / 1000));
		const forgedSignature = createHmac('sha256', 'not-the-signing-secret')
			.update(`${timestamp}.${body}`)
			.digest('hex');

		const response = await fetch(triggerUrls().triggerWithArtifact, {
			method: 'POST',
			headers: {
				'content-type': 'application/json',
				'x-service-event': 'transcription.completed',
				'x-service-event-id': 'evt_forged_0001',
				'x-service-timestamp': timestamp,
				'x-service-signature': `v1=${forgedSignature}`,
			},
			body,
		});

		expect(response.status).toBe(401);
		// Give n8n the time an execution would take to show up, then check none did.
		await new Promise((resolve) => setTimeout(resolve, 3000));
		expect(await executionIds(api, WORKFLOW_IDS.triggerWithArtifact)).toEqual(before);
	});

	it('runs the scheduled-batch example, and the trigger example saves each finished transcript', async () => {
		const inbox = path.join(context.filesFolder, 'inbox');
		await mkdir(inbox, { recursive: true });
		// Write Files to Disk creates no folders: the README asks users to create this one too.
		await mkdir(path.join(context.filesFolder, 'transcripts'), { recursive: true });
		const media = ['standup.wav', 'שיחה.wav'];
		for (const [index, fileName] of media.entries()) {
			await writeFile(path.join(inbox, fileName), makeWav({ seconds: 1 + index }));
		}
		const before = await executionIds(api, WORKFLOW_IDS.exampleTrigger);

		const cli = await (
			await n8n()
		).cli(['execute', `--id=${WORKFLOW_IDS.exampleBatch}`, '--rawOutput']);

		// --rawOutput prints the run as indented JSON between n8n's own log lines.
		const lines = cli.stdout.split('\n');
		const first = lines.indexOf('{');
		const runJson = lines.slice(first, lines.indexOf('}', first) + 1).join('\n');
		const created = JSON.parse(runJson) as {
			data: { resultData: { runData: Record<string, unknown[]> } };
		};
		expect(Object.keys(created.data.resultData.runData)).toContain('Create Transcription');
		const executions = await newExecutions(api, WORKFLOW_IDS.exampleTrigger, before, {
			count: media.length,
		});
		for (const execution of executions) {
			expect(failureOf(execution)).toBeUndefined();
			const [saved] = nodeItems(execution, 'Save to Disk');
			const jobId = String(saved.json.job_id);
			const fileName = String(saved.binary?.data.fileName);
			const onDisk = await readFile(
				path.join(context.filesFolder, 'transcripts', `${jobId}-${fileName}`),
			);
			expect(
				onDisk.equals(
					await serviceArtifact(context.sandboxBaseUrl, context.keys.live, jobId, 'docx'),
				),
			).toBe(true);
		}
		const savedNames = executions.map(
			(execution) => nodeItems(execution, 'Save to Disk')[0].binary?.data.fileName,
		);
		expect(savedNames.sort()).toEqual(['standup.docx', 'שיחה.docx'].sort());
	});
});
