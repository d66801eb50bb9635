// Jobs created straight through the service's API (no n8n involved), shared by the e2e and queue suites.
import { makeWav } from '../../fixtures/media';

/** A live job created straight through the API (no n8n involved), reporting to `webhookUrl`; its job_id. */
export async function createJob(
	serviceBaseUrl: string,
	apiKey: string,
	webhookUrl: string,
	fileName: string,
): Promise<string> {
	const call = async (method: string, apiPath: string, body: Buffer | object) => {
		const raw = Buffer.isBuffer(body);
		const response = await fetch(`${serviceBaseUrl}/api/v1${apiPath}`, {
			method,
			headers: {
				authorization: `Bearer ${apiKey}`,
				'content-type': raw ? 'application/octet-stream' : 'application/json',
			},
			body: raw ? body : JSON.stringify(body),
		});
		if (!response.ok)
			throw new Error(`${method} ${apiPath} → ${response.status}: ${await response.text()}`);
		return (await response.json()) as Record<string, string>;
	};
	const media = makeWav({ seconds: 1 });
	const slot = await call('POST', '/uploads', {
		filename: fileName,
		content_type: 'audio/wav',
		size_bytes: media.length,
	});
	await call('PUT', `/uploads/${slot.upload_id}/binary`, media);
	const job = await call('POST', '/transcriptions', {
		upload_id: slot.upload_id,
		webhook_url: webhookUrl,
	});
	return job.job_id;
}
