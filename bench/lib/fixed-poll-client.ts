// The baseline of P4: what a hand-built client does — upload, create the job, then GET its status every
// `intervalMs` (plain GETs, no If-None-Match) until it is terminal, then download the artifact.

import { setTimeout as delay } from 'node:timers/promises';

import { isTerminalStatus } from '../../src/api';

export interface FixedPollJob {
	jobId: string;
	polls: number;
	status: string;
}

export async function transcribeWithFixedPoll(args: {
	baseUrl: string;
	apiKey: string;
	media: Buffer;
	fileName: string;
	/** Wall-clock milliseconds between polls (already divided by any time-scale factor). */
	intervalMs: number;
}): Promise<FixedPollJob> {
	const api = `${args.baseUrl}/api/v1`;
	const auth = { authorization: `Bearer ${args.apiKey}` };
	const slot = (await expectJson(
		await fetch(`${api}/uploads`, {
			method: 'POST',
			headers: { ...auth, 'content-type': 'application/json' },
			body: JSON.stringify({
				filename: args.fileName,
				content_type: 'audio/wav',
				size_bytes: args.media.length,
			}),
		}),
	)) as { upload_id: string };
	await expectJson(
		await fetch(`${api}/uploads/${slot.upload_id}/binary`, {
			method: 'PUT',
			headers: { ...auth, 'content-type': 'application/octet-stream' },
			body: args.media,
		}),
	);
	const created = (await expectJson(
		await fetch(`${api}/transcriptions`, {
			method: 'POST',
			headers: { ...auth, 'content-type': 'application/json' },
			body: JSON.stringify({ upload_id: slot.upload_id }),
		}),
	)) as { job_id: string; status: string };

	let status = created.status;
	let polls = 0;
	while (!isTerminalStatus(status)) {
		await delay(args.intervalMs);
		const snapshot = (await expectJson(
			await fetch(`${api}/transcriptions/${created.job_id}`, { headers: auth }),
		)) as {
			status: string;
		};
		polls++;
		status = snapshot.status;
	}
	if (status === 'completed') {
		const artifact = await fetch(`${api}/transcriptions/${created.job_id}/artifact`, {
			headers: auth,
		});
		await artifact.arrayBuffer();
	}
	return { jobId: created.job_id, polls, status };
}

async function expectJson(response: Response): Promise<unknown> {
	const body: unknown = await response.json();
	if (!response.ok)
		throw new Error(`${response.url} answered ${response.status}: ${JSON.stringify(body)}`);
	return body;
}
