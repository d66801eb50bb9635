import { startSandbox } from '../../sandbox/server';
import { SandboxAdmin } from '../../sandbox/admin-client';
import { startCountingProxy } from '../../bench/lib/counting-proxy';
import { startQueueCluster } from './harness/cluster';
import { transcribeWorkflow } from './harness/workflows';
import { runManyExecutions } from './harness/many-executions';

async function main() {
	const version = (process.env.V ?? '2.8') as '2.8' | '2.15';
	const windowSeconds = Number(process.env.WIN ?? 5);
	const writes = Number(process.env.WRITES ?? 40);
	const sandbox = await startSandbox({
		port: 0,
		quiet: true,
		allowLocalWebhooks: true,
		jobSeconds: Number(process.env.JOB ?? 2),
		rateLimits: { windowSeconds, perTier: { platinum: writes, premium: writes } },
	});
	const proxy = await startCountingProxy(sandbox.baseUrl, { now: () => sandbox.clock.now() });
	const cred = { id: 'tssManyCred00001', name: 'many' };
	const cluster = await startQueueCluster({
		versionId: version,
		workDir: `/tmp/qsmoke/many-${version}`,
		tarball: process.env.TARBALL,
		workers: Number(process.env.WORKERS ?? 2),
		credentials: [
			{
				...cred,
				type: 'transcriptionServiceApi',
				data: {
					apiKey: sandbox.keys.platinum_live.key,
					signingSecret: sandbox.keys.platinum_live.signing_secret,
					previousSigningSecret: '',
					baseUrl: proxy.baseUrl,
					pathPrefix: '/api/v1',
				},
			},
		],
		workflows: () => [
			transcribeWorkflow({
				id: 'manyWf000000001',
				path: 'many',
				credential: cred,
				formats: ['srt'],
				waitMode: (process.env.MODE ?? 'poll') as any,
			}),
		],
		activate: ['manyWf000000001'],
	});
	console.log('up');
	const result = await runManyExecutions({
		cluster,
		workflowId: 'manyWf000000001',
		webhookPath: 'many',
		count: Number(process.env.N ?? 200),
		proxy,
		windowSeconds,
	});
	const { finishedAtMs, ...rest } = result;
	console.log(JSON.stringify(rest, null, 1));
	await cluster.stop();
	await proxy.close();
	await sandbox.close();
}
main().then(
	() => process.exit(0),
	(e) => {
		console.error(e);
		process.exit(1);
	},
);
