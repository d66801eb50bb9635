// Transcripts as timed data, in every place a format is chosen: WebVTT as a fifth format (made from the service's SRT,
// which one download serves for both) and Include Cues ({start, end, text} in seconds on the item). The real nodes run
// in n8n-core against the sandbox; its SRT (Hebrew, multi-line cues, and a user prompt that puts `<`, `&` and `-->` into
// the first cue) is read with `subtitle`, and every WebVTT the nodes write is validated by the W3C's parser, which must
// read back the SRT's times and text. Test keys finish their jobs at once; the paused run's jobs are completed by the
// sandbox's admin API, and its waits (the watcher, the service's deliveries) run on the controlled clock.
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import type { PublicTranscriptionWebhookEvent } from '../../src/api';

import {
	ACTION_NODE,
	actionNode,
	binaryBytes,
	nodeError,
	runWorkflow,
	type TestCredentials,
} from '../support/engine/harness';
import { useControlledClock } from '../support/clock/controlled-clock';
import { useEngineSandbox } from '../support/engine/engine-sandbox';
import { credentialsFor, download, useHostileServers } from '../support/engine/hostile-server';
import {
	mediaItems,
	PAUSED_RUNS_SANDBOX,
	transcribe,
	usePausedRuns,
	within,
} from '../support/engine/paused-runs';
import { PollingTriggerUnderTest } from '../support/engine/polling-harness';
import { TriggerUnderTest } from '../support/engine/webhook-harness';
import { subtitleCues, webVttCues, type ReadCue } from '../support/fixtures/timed-text';

const clock = useControlledClock();
const env = useEngineSandbox({ ...PAUSED_RUNS_SANDBOX, clock });
const { freshAccount, pause, artifactRequests, completeJobs, holdJobsOf } = usePausedRuns(env);
const serve = useHostileServers();

/** Hebrew out, and a user prompt the sandbox puts into the first cue: markup-like text a WebVTT must escape. */
const HEBREW_WITH_MARKUP = { translate_to_hebrew: true, user_prompt: 'R&D <team>, a --> b' };

/** GET …/artifact.<ext> (or …/artifact for Job Default) as the recording proxy saw them: the extension or 'default'. */
const downloads = () =>
	artifactRequests().map(
		(exchange) => /\/artifact(?:\.(\w+))?/.exec(exchange.url)?.[1] ?? 'default',
	);

const seconds = (cues: ReadCue[]) =>
	cues.map((cue) => ({ start: cue.startMs / 1000, end: cue.endMs / 1000, text: cue.text }));

/**
 * The SRT as `subtitle` reads it is the truth: the WebVTT (if any) is valid for the W3C parser and shows exactly its
 * times and text; the cues (if any) are its cues in seconds. Returns the SRT's cues.
 */
function expectTimedData(srt: string, timed: { vtt?: string; cues?: unknown }): ReadCue[] {
	const srtCues = subtitleCues(srt);
	expect(srtCues.length).toBeGreaterThan(0);
	if (timed.vtt !== undefined) {
		expect(timed.vtt.startsWith('WEBVTT\n\n')).toBe(true);
		const read = webVttCues(timed.vtt);
		expect(read.errors).toEqual([]);
		expect(read.cues).toEqual(srtCues);
	}
	if ('cues' in timed) expect(timed.cues).toEqual(seconds(srtCues));
	return srtCues;
}

/** The service's SRT of a job, fetched with the API key as any client would (not through the proxy). */
async function servedSrt(credentials: TestCredentials, jobId: string): Promise<string> {
	const answer = await fetch(`${env.sandbox.baseUrl}/api/v1/transcriptions/${jobId}/artifact.srt`, {
		headers: { Authorization: `Bearer ${credentials.apiKey}` },
	});
	expect(answer.status).toBe(200);
	return await answer.text();
}

const transcribeAndDownload = (parameters: IDataObject, continueOnFail = false) =>
	actionNode(
		{
			...transcribe('poll'),
			...parameters,
			options: { ...transcribe('poll').options, ...(parameters.options as IDataObject) },
		},
		{ continueOnFail },
	);

async function hebrewJob(credentials: TestCredentials, outputFormat = 'srt'): Promise<string> {
	return await env.liveJob(credentials.apiKey, {
		...HEBREW_WITH_MARKUP,
		output_format: outputFormat,
	});
}

describe('Transcribe and Download: WebVTT and Include Cues', () => {
	test('SRT and WebVTT with cues: one SRT download serves all three; Hebrew, multi-line and escaped cues', async () => {
		const { credentials } = await freshAccount('test');
		const result = await runWorkflow({
			nodes: [
				transcribeAndDownload({
					formats: ['srt', 'vtt'],
					additionalFields: HEBREW_WITH_MARKUP,
					options: { includeCues: true },
				}),
			],
			input: await mediaItems(['ראיון.wav']),
			credentials,
		});
		expect(result.error).toBeUndefined();
		const [item] = result.output(ACTION_NODE);
		expect(downloads()).toEqual(['srt']);
		expect(Object.keys(item.binary ?? {})).toEqual(['srt', 'vtt']);
		expect(item.binary?.vtt).toMatchObject({
			fileName: 'ראיון.vtt',
			mimeType: 'text/vtt',
			fileExtension: 'vtt',
		});
		const srt = (await binaryBytes(item.binary!.srt)).toString('utf8');
		const vtt = (await binaryBytes(item.binary!.vtt)).toString('utf8');
		const cues = expectTimedData(srt, { vtt, cues: item.json.cues });
		expect(item.json.text).toBe(srt);
		// What the case is about: right-to-left text, a cue of two lines, and markup-like text shown as written.
		expect(cues.some((cue) => /[\u0590-\u05FF]/.test(cue.text) && cue.text.includes('\n'))).toBe(
			true,
		);
		// The service wrapped the first cue so that a line starts with "-->", which a WebVTT cue must not contain.
		expect(cues[0].text).toMatch(/R&D <team>, a\n--> b\.$/);
		expect(vtt).toContain('R&amp;D &lt;team&gt;, a\n--&gt; b.\n');
	});

	test('WebVTT alone: fetched as SRT, no SRT file on the item, its text the WebVTT', async () => {
		const { credentials } = await freshAccount('test');
		const result = await runWorkflow({
			nodes: [transcribeAndDownload({ formats: ['vtt'] })],
			input: await mediaItems(['meeting notes.wav']),
			credentials,
		});
		expect(result.error).toBeUndefined();
		const [item] = result.output(ACTION_NODE);
		expect(downloads()).toEqual(['srt']);
		expect(Object.keys(item.binary ?? {})).toEqual(['vtt']);
		expect(item.binary?.vtt.fileName).toBe('meeting notes.vtt');
		const vtt = (await binaryBytes(item.binary!.vtt)).toString('utf8');
		expect(item.json.text).toBe(vtt);
		expect(item.json.cues).toBeUndefined();
		expectTimedData(await servedSrt(credentials, String(item.json.job_id)), { vtt });
	});

	test('Include Cues beside DOCX and TXT: one more download, of the SRT, and no SRT file', async () => {
		const { credentials } = await freshAccount('test');
		const result = await runWorkflow({
			nodes: [transcribeAndDownload({ formats: ['docx', 'txt'], options: { includeCues: true } })],
			input: await mediaItems(['interview.wav']),
			credentials,
		});
		expect(result.error).toBeUndefined();
		const [item] = result.output(ACTION_NODE);
		expect(downloads().sort()).toEqual(['docx', 'srt', 'txt']);
		expect(Object.keys(item.binary ?? {})).toEqual(['docx', 'txt']);
		expectTimedData(await servedSrt(credentials, String(item.json.job_id)), {
			cues: item.json.cues,
		});
	});

	test('a format that is none of the five (from an expression): refused, naming the field, before any upload', async () => {
		const { accountId, credentials } = await freshAccount('test');
		const result = await runWorkflow({
			nodes: [transcribeAndDownload({ formats: '={{ ["srt", "html"] }}' }, true)],
			input: await mediaItems(['interview.wav']),
			credentials,
		});
		const [item] = result.output(ACTION_NODE);
		expect(item.json.error).toMatchObject({
			message: '"Download Formats" has "html", which is no download format',
			description: 'Use srt, vtt, txt, pdf or docx. No job was started.',
		});
		expect((await env.admin.records(accountId)).uploads).toHaveLength(0);
	});

	test('Pause Until Webhook keeps Include Cues across the pause: the resumed item has the cues and the WebVTT', async () => {
		const { accountId, credentials } = await freshAccount('live');
		const holding = holdJobsOf(accountId);
		const run = await pause({
			parameters: transcribe('pauseUntilWebhook', {
				formats: ['vtt', 'txt'],
				additionalFields: HEBREW_WITH_MARKUP,
				options: { ...transcribe('pauseUntilWebhook').options, includeCues: true },
			}),
			input: await mediaItems(['ראיון.wav']),
			credentials,
		});
		expect(run.status).toBe('waiting');
		const [record] = run
			.storedItems()
			.map((stored) => (stored.json.error as { pause: IDataObject }).pause);
		expect(record).toMatchObject({ formats: ['vtt', 'txt'], include_cues: true });
		const jobIds = await holding.stop();
		await completeJobs(jobIds);
		await within(run.finished());

		const [item] = run.output();
		expect(item.json.status).toBe('completed');
		expect(downloads().sort()).toEqual(['srt', 'txt']);
		expect(Object.keys(item.binary ?? {})).toEqual(['vtt', 'txt']);
		const vtt = (await binaryBytes(item.binary!.vtt)).toString('utf8');
		const cues = expectTimedData(await servedSrt(credentials, jobIds[0]), {
			vtt,
			cues: item.json.cues,
		});
		expect(cues[0].text.replace(/\n/g, ' ')).toContain('R&D <team>, a --> b');
	}, 60_000);
});

describe('Download Artifact: Format WebVTT, Include Cues', () => {
	const downloadArtifact = (jobId: string, format: string, options: INodeParameters = {}) =>
		actionNode({
			resource: 'transcription',
			operation: 'downloadArtifact',
			jobId,
			format,
			binaryPropertyName: 'data',
			options,
		});

	test('WebVTT with its text and cues: one SRT download, a text/vtt file named after the upload', async () => {
		const { credentials } = await freshAccount('test');
		const jobId = await hebrewJob(credentials);
		const result = await runWorkflow({
			nodes: [downloadArtifact(jobId, 'vtt', { includeText: true, includeCues: true })],
			credentials,
		});
		expect(result.error).toBeUndefined();
		const [item] = result.output(ACTION_NODE);
		expect(downloads()).toEqual(['srt']);
		const vtt = (await binaryBytes(item.binary!.data)).toString('utf8');
		expect(item.json).toEqual({
			job_id: jobId,
			format: 'vtt',
			file_name: 'meeting.vtt',
			mime_type: 'text/vtt',
			size_bytes: Buffer.byteLength(vtt),
			text: vtt,
			cues: expect.any(Array),
		});
		expect(item.binary?.data).toMatchObject({ fileName: 'meeting.vtt', mimeType: 'text/vtt' });
		expectTimedData(await servedSrt(credentials, jobId), { vtt, cues: item.json.cues });
	});

	test.each([
		['srt', ['default'], 'srt'],
		['plain_text', ['default', 'srt'], 'txt'],
	])(
		'Job Default of a job whose output_format is %s, with cues: downloads %j',
		async (outputFormat, expected, format) => {
			const { credentials } = await freshAccount('test');
			const jobId = await hebrewJob(credentials, outputFormat);
			const result = await runWorkflow({
				nodes: [downloadArtifact(jobId, 'job_default', { includeCues: true })],
				credentials,
			});
			expect(result.error).toBeUndefined();
			const [item] = result.output(ACTION_NODE);
			expect(downloads()).toEqual(expected);
			expect(item.json.format).toBe(format);
			expectTimedData(await servedSrt(credentials, jobId), { cues: item.json.cues });
		},
	);

	test('an SRT that cannot be read: invalid_srt naming the job and the line, nothing saved', async () => {
		const server = await serve((response) => {
			response.writeHead(200, { 'content-type': 'application/x-subrip' });
			response.end(
				'1\n00:00:01,000 --> 00:00:02,000\nfirst\n2\n00:00:03,000 --> 00:00:04,000\nsecond\n',
			);
		});
		const error = nodeError(
			await runWorkflow({ nodes: [download('vtt')], credentials: credentialsFor(server) }),
		);
		expect(error).toMatchObject({
			code: 'invalid_srt',
			message:
				'The SRT transcript of job job_hostile cannot be read as subtitles: line 5: a timing line inside the text of the cue before it: cues must be separated by a blank line',
		});
		expect(error.context.job_id).toBe('job_hostile');
		expect(server.requests.map((request) => request.url)).toEqual([
			'/api/v1/transcriptions/job_hostile/artifact.srt',
		]);
	});
});

describe('the triggers: Artifact Format WebVTT, Include Cues', () => {
	const timedArtifact = {
		downloadArtifact: true,
		artifactFormat: 'vtt',
		binaryPropertyName: 'transcript',
		includeCues: true,
	};

	const completedEvent = (jobId: string, baseUrl: string): PublicTranscriptionWebhookEvent => ({
		event: 'transcription.completed',
		event_id: `evt_timed_${jobId}`,
		job_id: jobId,
		status: 'completed',
		created_at: new Date().toISOString(),
		links: {
			self: `${baseUrl}/api/v1/transcriptions/${jobId}`,
			artifact: `${baseUrl}/api/v1/transcriptions/${jobId}/artifact`,
		},
	});

	async function expectTimedItem(item: INodeExecutionData, credentials: TestCredentials) {
		expect(item.json.artifact_error).toBeUndefined();
		expect(item.binary?.transcript).toMatchObject({
			fileName: 'meeting.vtt',
			mimeType: 'text/vtt',
		});
		const vtt = (await binaryBytes(item.binary!.transcript)).toString('utf8');
		expectTimedData(await servedSrt(credentials, String(item.json.job_id)), {
			vtt,
			cues: item.json.cues,
		});
	}

	test('the webhook trigger: a completed event gets the WebVTT file and the cues', async () => {
		const { credentials, signingSecret } = await freshAccount('test');
		const jobId = await hebrewJob(credentials);
		const trigger = await TriggerUnderTest.start({ parameters: timedArtifact, credentials });
		try {
			const call = await trigger.postSignedEvent(
				completedEvent(jobId, credentials.baseUrl),
				signingSecret,
			);
			expect(call.status).toBe(200);
			const [[item]] = call.workflowData!;
			expect(downloads()).toEqual(['srt']);
			await expectTimedItem(item, credentials);
		} finally {
			await trigger.close();
		}
	});

	test('the webhook trigger: an SRT it cannot read still starts the workflow, with artifact_error invalid_srt', async () => {
		const server = await serve((response) => {
			response.writeHead(200, { 'content-type': 'application/x-subrip' });
			response.end('1\n00:00:05,000 --> 00:00:04,000\nbackwards\n');
		});
		const credentials = { ...credentialsFor(server), signingSecret: 'whsec_timed_0001' };
		const trigger = await TriggerUnderTest.start({ parameters: timedArtifact, credentials });
		try {
			const call = await trigger.postSignedEvent(
				completedEvent('job_hostile', server.baseUrl),
				credentials.signingSecret,
			);
			expect(call.status).toBe(200);
			const [[item]] = call.workflowData!;
			expect(item.binary).toBeUndefined();
			expect(item.json.cues).toBeUndefined();
			expect(item.json.artifact_error).toMatchObject({
				code: 'invalid_srt',
				message:
					'The SRT transcript of job job_hostile cannot be read as subtitles: line 2: the cue ends before it starts',
				job_id: 'job_hostile',
			});
		} finally {
			await trigger.close();
		}
	});

	test('the Polling Trigger: a job completed after activation comes with the WebVTT file and the cues', async () => {
		const { credentials } = await freshAccount('test');
		const trigger = await PollingTriggerUnderTest.start({ parameters: timedArtifact, credentials });
		await trigger.activate();
		await env.admin.advanceClock(5);
		const jobId = await hebrewJob(credentials);

		const items = (await trigger.poll()) ?? [];
		expect(items.map((item) => item.json.job_id)).toEqual([jobId]);
		expect(downloads()).toEqual(['srt']);
		await expectTimedItem(items[0], credentials);
	});
});
