// Jobs created straight through the service's API (no n8n involved), shared by the e2e and queue suites; the
// upload and create steps are the sandbox tests' own (test/support/sandbox/client.ts).
import { createJob as createTranscription, uploadMedia } from '../sandbox/client';

/** A live job created straight through the API (no n8n involved) from a 1-second WAV; its job_id. */
export async function createJob(
	serviceBaseUrl: string,
	apiKey: string,
	webhookUrl: string | undefined,
	fileName: string,
): Promise<string> {
	const uploadId = await uploadMedia(serviceBaseUrl, apiKey, { filename: fileName, seconds: 1 });
	const fields = webhookUrl === undefined ? {} : { webhook_url: webhookUrl };
	const job = await createTranscription(serviceBaseUrl, apiKey, { upload_id: uploadId, ...fields });
	return job.job_id;
}
