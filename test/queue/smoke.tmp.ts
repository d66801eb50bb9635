import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startSandbox } from '../../sandbox/server';
import { startQueueCluster } from './harness/cluster';
import { makeWav, writeWavFile } from '../fixtures/media';

async function main() {
	const version = (process.argv[2] ?? '2.8') as '2.8' | '2.15';
	const sandbox = await startSandbox({
		port: 0,
		quiet: true,
		allowLocalWebhooks: true,
		jobSeconds: 2,
	});
	const t0 = Date.now();
	const cluster = await startQueueCluster({
		versionId: version,
		workDir: `/tmp/qsmoke/${version}`,
		credentials: [
			{
				id: 'tssSandboxCred01',
				name: 'sandbox',
				type: 'transcriptionServiceApi',
				data: {
					apiKey: sandbox.keys.platinum_live.key,
					signingSecret: sandbox.keys.platinum_live.signing_secret,
					previousSigningSecret: '',
					baseUrl: sandbox.baseUrl,
					pathPrefix: '/api/v1',
				},
			},
		],
		workflows: () => [
			{
				id: 'smokeWf00000001',
				name: 'smoke',
				active: false,
				settings: { executionOrder: 'v1' },
				pinData: {},
				nodes: [
					{
						id: 'a1',
						name: 'Webhook',
						type: 'n8n-nodes-base.webhook',
						typeVersion: 2,
						position: [0, 0],
						webhookId: 'smoke-hook-1',
						parameters: {
							httpMethod: 'POST',
							path: 'smoke',
							responseMode: 'onReceived',
							options: {},
						},
					},
					{
						id: 'a2',
						name: 'Transcribe and Download',
						type: 'n8n-nodes-transcription-service.transcriptionService',
						typeVersion: 1,
						position: [240, 0],
						credentials: { transcriptionServiceApi: { id: 'tssSandboxCred01', name: 'sandbox' } },
						parameters: {
							resource: 'transcription',
							operation: 'transcribeAndDownload',
							binaryPropertyName: 'data',
							formats: ['srt', 'txt', 'pdf', 'docx'],
							waitMode: process.argv[3] ?? 'poll',
							additionalFields: {},
							options: { pollIntervalSeconds: 1, maxPollIntervalSeconds: 2 },
						},
					},
				],
				connections: {
					Webhook: { main: [[{ node: 'Transcribe and Download', type: 'main', index: 0 }]] },
				},
			} as any,
		],
		activate: ['smokeWf00000001'],
	});
	console.log(
		'cluster up in',
		(Date.now() - t0) / 1000,
		's; router',
		cluster.router.baseUrl,
		'main',
		cluster.main.baseUrl,
	);
	if (process.env.BIG) {
		const file = '/tmp/qsmoke/big.wav';
		const size = await writeWavFile(file, { bytes: Number(process.env.BIG) });
		const { createReadStream } = await import('node:fs');
		const w = cluster.workers.map(async (p) => [p.name, await p.rssBytes()]);
		console.log('rss before', await Promise.all(w));
		await Promise.all(
			[...cluster.workers, ...cluster.webhookProcessors].map((p) => p.resetPeakRss()),
		);
		const t = Date.now();
		const r = await fetch(`${cluster.router.baseUrl}/webhook/smoke`, {
			method: 'POST',
			headers: {
				'content-type': 'audio/wav',
				'content-length': String(size),
				'content-disposition': 'attachment; filename="big.wav"',
			},
			body: createReadStream(file) as any,
			duplex: 'half',
		} as any);
		console.log('BIG POST', r.status, await r.text(), (Date.now() - t) / 1000);
	}
	for (let i = 0; i < Number(process.env.SMALL ?? 3); i++) {
		const r = await fetch(`${cluster.router.baseUrl}/webhook/smoke`, {
			method: 'POST',
			headers: {
				'content-type': 'audio/wav',
				'content-disposition': `attachment; filename="smoke-${i}.wav"`,
			},
			body: makeWav({ seconds: 1 }),
		});
		console.log('POST', r.status, await r.text());
	}
	await new Promise((r) => setTimeout(r, Number(process.env.WAIT ?? 15000)));
	const execs = await cluster.api.executions('smokeWf00000001');
	console.log(execs.map((e) => `${e.id}:${e.status}`).join(' '));
	for (const e of execs) {
		const full = await cluster.api.execution(e.id);
		console.log(
			e.id,
			JSON.stringify(full.data.resultData.error ?? null).slice(0, 300),
			Object.keys(full.data.resultData.runData),
		);
	}
	console.log(await cluster.workerRuns());
	console.log(
		'peak',
		await Promise.all(
			[...cluster.workers, ...cluster.webhookProcessors].map(async (p) => [
				p.name,
				Math.round((await p.peakRssBytes()) / 1048576),
				Math.round((await p.rssBytes()) / 1048576),
			]),
		),
	);
	console.log(
		cluster.router.records
			.map((r) => `${r.method} ${r.url.slice(0, 60)} -> ${r.target} ${r.status}`)
			.join('\n'),
	);
	if (process.env.HOLD) await new Promise((r) => setTimeout(r, Number(process.env.HOLD)));
	await cluster.stop();
	await sandbox.close();
}
main().then(
	() => process.exit(0),
	(e) => {
		console.error(e);
		process.exit(1);
	},
);
