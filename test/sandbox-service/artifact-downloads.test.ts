// Spec 2.4, 4.7 and 4.8: artifact download in four formats, the selection order path extension >
// format > Accept > output_format, media types, Content-Disposition, and the artifact errors.
// PDF and DOCX are opened with a PDF text extractor and an unzipper, not judged by magic bytes.

import contentDisposition from 'content-disposition';
import JSZip from 'jszip';
import pdfParse from 'pdf-parse';
import {
	api,
	createJob,
	expectError,
	expectRateLimitHeaders,
	GENEROUS_LIMITS,
	uploadMedia,
	useSandbox,
} from '../support/sandbox/client';

const JOB_SECONDS = 60;
const handle = useSandbox({ jobSeconds: JOB_SECONDS, rateLimits: GENEROUS_LIMITS });
const liveKey = () => handle.sandbox.keys.platinum_live.key;
const testKey = () => handle.sandbox.keys.platinum_test.key;

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/** A completed job (test key: completed at once) for the given upload name and create fields. */
async function completedJob(
	filename: string,
	fields: Record<string, unknown> = {},
): Promise<string> {
	const uploadId = await uploadMedia(handle.baseUrl, testKey(), { filename });
	return (await createJob(handle.baseUrl, testKey(), { upload_id: uploadId, ...fields })).links
		.self;
}

function download(path: string, headers: Record<string, string> = {}, key = testKey()) {
	return api(handle.baseUrl, { path, key, headers });
}

describe('getTranscriptionArtifact: formats and headers (4.7, 2.4)', () => {
	let jobPath: string;
	beforeAll(async () => {
		jobPath = await completedJob('weekly meeting.wav');
	});

	test('default: the job’s output_format (srt)', async () => {
		const response = await download(`${jobPath}/artifact`);
		expect(response.status).toBe(200);
		expectRateLimitHeaders(response);
		expect(response.headers['content-type']).toBe('application/x-subrip; charset=utf-8');
		expect(response.headers['content-disposition']).toBe(
			`attachment; filename="weekly meeting.srt"; filename*=UTF-8''weekly%20meeting.srt`,
		);
		expect(response.text).toMatch(/^1\r?\n\d\d:\d\d:\d\d,\d{3} --> \d\d:\d\d:\d\d,\d{3}\r?\n/);
	});

	test('format=txt', async () => {
		const response = await download(`${jobPath}/artifact?format=txt`);
		expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
		expect(
			contentDisposition.parse(response.headers['content-disposition']).parameters.filename,
		).toBe('weekly meeting.txt');
		expect(response.text.length).toBeGreaterThan(0);
	});

	test('format=plain_text is the txt alias', async () => {
		const response = await download(`${jobPath}/artifact?format=plain_text`);
		expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
	});

	test('format=pdf is a PDF a text extractor can read', async () => {
		const response = await download(`${jobPath}/artifact?format=pdf`);
		expect(response.headers['content-type']).toBe('application/pdf');
		expect(
			contentDisposition.parse(response.headers['content-disposition']).parameters.filename,
		).toBe('weekly meeting.pdf');
		const parsed = await pdfParse(response.bytes);
		expect(parsed.numpages).toBeGreaterThanOrEqual(1);
		expect(parsed.text.trim().length).toBeGreaterThan(0);
	});

	test('Accept: the DOCX media type gives a DOCX that unzips to a Word document', async () => {
		const response = await download(`${jobPath}/artifact`, { accept: DOCX });
		expect(response.headers['content-type']).toBe(DOCX);
		const zip = await JSZip.loadAsync(response.bytes);
		const documentXml = await zip.file('word/document.xml')?.async('string');
		expect(documentXml).toContain('<w:body>');
	});

	test('the same bytes on every download (rendered once per format)', async () => {
		const first = await download(`${jobPath}/artifact.pdf`);
		const second = await download(`${jobPath}/artifact.pdf`);
		expect(second.bytes.equals(first.bytes)).toBe(true);
	});
});

describe('format selection order (4.7, 4.8)', () => {
	let jobPath: string;
	beforeAll(async () => {
		jobPath = await completedJob('order.wav', { output_format: 'plain_text' });
	});

	test.each([
		['output_format alone', '/artifact', {}, 'text/plain; charset=utf-8'],
		['Accept over output_format', '/artifact', { accept: 'application/pdf' }, 'application/pdf'],
		[
			'format over Accept',
			'/artifact?format=srt',
			{ accept: 'application/pdf' },
			'application/x-subrip; charset=utf-8',
		],
		[
			'path extension over format and Accept',
			'/artifact.docx?format=srt',
			{ accept: 'application/pdf' },
			DOCX,
		],
		['path extension srt', '/artifact.srt', {}, 'application/x-subrip; charset=utf-8'],
		['path extension txt', '/artifact.txt', {}, 'text/plain; charset=utf-8'],
		[
			'Accept */* leaves output_format',
			'/artifact',
			{ accept: '*/*' },
			'text/plain; charset=utf-8',
		],
	])('%s', async (_name, suffix, headers, contentType) => {
		const response = await download(`${jobPath}${suffix}`, headers);
		expect(response.status).toBe(200);
		expect(response.headers['content-type']).toBe(contentType);
	});
});

describe('Content-Disposition with a UTF-8 name (4.7)', () => {
	test('a Hebrew upload name is percent-encoded in filename*', async () => {
		const jobPath = await completedJob('ישיבת צוות.wav');
		const response = await download(`${jobPath}/artifact.txt`);
		const header = response.headers['content-disposition'];
		expect(header).toContain(`filename*=UTF-8''${encodeURIComponent('ישיבת צוות.txt')}`);
		expect(contentDisposition.parse(header).parameters.filename).toBe('ישיבת צוות.txt');
	});
});

describe('artifact errors (4.7, 7)', () => {
	test('format=xml is 400 unsupported_artifact_format', async () => {
		const jobPath = await completedJob('bad.wav');
		const error = expectError(
			await download(`${jobPath}/artifact?format=xml`),
			400,
			'unsupported_artifact_format',
		);
		expect(error.details).toMatchObject({ source: 'query', value: 'xml' });
	});

	test('artifact.xml is 400 unsupported_artifact_format', async () => {
		const jobPath = await completedJob('bad-path.wav');
		const error = expectError(
			await download(`${jobPath}/artifact.xml`),
			400,
			'unsupported_artifact_format',
		);
		expect(error.details).toMatchObject({ source: 'path', value: 'xml' });
	});

	test('before completion: 409 artifact_not_ready with the current status', async () => {
		const uploadId = await uploadMedia(handle.baseUrl, liveKey());
		const job = await createJob(handle.baseUrl, liveKey(), { upload_id: uploadId });
		const error = expectError(
			await download(`${job.links.self}/artifact`, {}, liveKey()),
			409,
			'artifact_not_ready',
		);
		expect(error.details).toMatchObject({ status: 'queued' });
		await handle.admin.advanceClock(JOB_SECONDS);
		expect((await download(`${job.links.self}/artifact`, {}, liveKey())).status).toBe(200);
	});

	test('a failed job: 409 artifact_not_ready with status failed', async () => {
		const uploadId = await uploadMedia(handle.baseUrl, liveKey());
		const job = await createJob(handle.baseUrl, liveKey(), { upload_id: uploadId });
		await handle.admin.failJob(job.job_id);
		const error = expectError(
			await download(`${job.links.self}/artifact.pdf`, {}, liveKey()),
			409,
			'artifact_not_ready',
		);
		expect(error.details).toMatchObject({ status: 'failed' });
	});

	test('a completed job whose artifact is gone: 404 artifact_not_found', async () => {
		const jobPath = await completedJob('gone.wav');
		expect((await download(`${jobPath}/artifact`)).status).toBe(200);
		await handle.admin.deleteArtifact(jobPath.split('/').pop() ?? '');
		expectError(await download(`${jobPath}/artifact`), 404, 'artifact_not_found');
		expectError(await download(`${jobPath}/artifact.docx`), 404, 'artifact_not_found');
	});

	test('an unknown job: 404 job_not_found', async () => {
		expectError(await download('/api/v1/transcriptions/job_nope/artifact'), 404, 'job_not_found');
		expectError(
			await download('/api/v1/transcriptions/job_nope/artifact.srt'),
			404,
			'job_not_found',
		);
	});
});
