// The example examples/podcast-feed-transcribe.json in a real n8n, as a user imports it: n8n's RSS Feed Trigger reads a
// podcast feed served on loopback (test/support/media), each new episode's enclosure link goes to Transcribe and
// Download by URL, and its SRT and TXT are written to disk. The only changes are the feed's address and the poll
// interval (every minute, the shortest n8n offers).
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';

import { makeWav } from '../support/fixtures/media';
import { startMediaHost, type MediaHost } from '../support/media/media-host';
import {
	executionIds,
	failureOf,
	newExecutions,
	nodeItems,
	serviceArtifact,
} from '../support/n8n/executions';
import { suiteHandles } from '../support/n8n/suite';
import { EXAMPLES, findNode, loadExample, relocate } from '../support/n8n/workflows';

const { context, api } = suiteHandles();
const TRIGGER = 'New Episode';
const TRANSCRIBE = 'Transcribe Episode';

describe(`The podcast example in n8n ${context.n8nVersion}: ${EXAMPLES.podcast}`, () => {
	let host: MediaHost;

	beforeAll(async () => {
		host = await startMediaHost();
		// Write Files to Disk creates no folders: the example's README asks users to create this one.
		await mkdir(path.join(context.filesFolder, 'podcast'), { recursive: true });
	});

	afterAll(async () => {
		await host?.close();
	});

	it('transcribes the episode published after it was activated and saves its SRT and TXT', async () => {
		host.add('episode-41.wav', {
			bytes: makeWav({ seconds: 2 }),
			contentType: 'audio/wav',
			episode: { title: 'Episode 41', guid: 'ep-41', pubDate: new Date(Date.now() - 86_400_000) },
		});
		const example = relocate(loadExample(EXAMPLES.podcast), context.filesFolder);
		const trigger = findNode(example, TRIGGER);
		trigger.parameters = {
			...trigger.parameters,
			feedUrl: host.url('/feed.xml'),
			pollTimes: { item: [{ mode: 'everyMinute' }] },
		};
		// A new workflow through the public API, as importing the file makes one (the example's id is n8n's to give).
		const workflowId = await api.createWorkflow({
			name: example.name,
			nodes: example.nodes,
			connections: example.connections,
			settings: example.settings ?? {},
		});
		const before = await executionIds(api, workflowId);
		// Dated after the activation, as an episode published while the trigger waits for its next look (some n8n
		// releases poll once at activation, others at the next minute: both take it, and no earlier episode).
		host.add('episode-42.wav', {
			bytes: makeWav({ seconds: 3 }),
			contentType: 'audio/wav',
			episode: { title: 'Episode 42', guid: 'ep-42', pubDate: new Date(Date.now() + 600_000) },
		});
		await api.activateWorkflow(workflowId);

		const [execution] = await newExecutions(api, workflowId, before, { timeoutMs: 150_000 });
		expect(failureOf(execution)).toBeUndefined();
		expect(nodeItems(execution, TRIGGER).map((item) => item.json.title)).toEqual(['Episode 42']);
		const [transcribed] = nodeItems(execution, TRANSCRIBE);
		expect(transcribed.json.status).toBe('completed');
		const jobId = String(transcribed.json.job_id);
		for (const format of ['srt', 'txt'] as const) {
			const saved = await readFile(
				path.join(context.filesFolder, 'podcast', `episode-42.${format}`),
			);
			const served = await serviceArtifact(
				context.sandboxBaseUrl,
				context.keys.live,
				jobId,
				format,
			);
			expect([format, saved.equals(served)]).toEqual([format, true]);
		}
		// The episode went from the host into the upload: one GET of its enclosure, and no other episode fetched.
		const fetched = host.requests.filter((request) => request.url.startsWith('/file/'));
		expect(fetched.map((request) => request.url)).toEqual(['/file/episode-42.wav']);
		await api.deactivateWorkflow(workflowId);
	});
});
