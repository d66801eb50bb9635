// `npm run sandbox`: starts the sandbox, prints one JSON ready line on stdout, then help.

import { parseArgs } from 'node:util';
import { CLI_USAGE, helpText } from './help';
import { LIST_ORDERS, type ListOrder } from './list-order';
import { DEFAULT_HOST, DEFAULT_PORT, startSandbox } from './server';

function numberOption(name: string, value: string | undefined): number | undefined {
	if (value === undefined) return undefined;
	const parsed = Number(value);
	if (value.trim() === '' || !Number.isFinite(parsed) || parsed < 0) {
		throw new Error(`--${name} needs a number >= 0, got "${value}"`);
	}
	return parsed;
}

async function main(): Promise<void> {
	const { values } = parseArgs({
		options: {
			port: { type: 'string' },
			host: { type: 'string' },
			'allowed-host': { type: 'string', multiple: true },
			'allow-local-webhooks': { type: 'boolean' },
			'job-seconds': { type: 'string' },
			'time-scale': { type: 'string' },
			seed: { type: 'string' },
			'rate-window-seconds': { type: 'string' },
			'list-order': { type: 'string' },
			quiet: { type: 'boolean' },
			help: { type: 'boolean' },
		},
	});
	if (values.help) {
		process.stdout.write(`${CLI_USAGE}\n`);
		return;
	}
	const listOrder = values['list-order'];
	if (listOrder !== undefined && !(LIST_ORDERS as readonly string[]).includes(listOrder)) {
		throw new Error(`--list-order must be one of ${LIST_ORDERS.join(', ')}, got "${listOrder}"`);
	}
	const rateWindow = numberOption('rate-window-seconds', values['rate-window-seconds']);
	const sandbox = await startSandbox({
		port: numberOption('port', values.port ?? process.env.SANDBOX_PORT) ?? DEFAULT_PORT,
		host: values.host ?? process.env.SANDBOX_HOST ?? DEFAULT_HOST,
		allowedHosts:
			values['allowed-host'] ?? process.env.SANDBOX_ALLOWED_HOSTS?.split(',').filter(Boolean),
		allowLocalWebhooks:
			values['allow-local-webhooks'] ?? process.env.SANDBOX_ALLOW_LOCAL_WEBHOOKS === '1',
		jobSeconds: numberOption('job-seconds', values['job-seconds']),
		timeScale: numberOption('time-scale', values['time-scale']),
		seed: numberOption('seed', values.seed),
		rateLimits: rateWindow === undefined ? undefined : { windowSeconds: rateWindow },
		listOrder: listOrder as ListOrder | undefined,
		quiet: values.quiet ?? false,
	});

	const keys = Object.fromEntries(
		Object.entries(sandbox.keys).map(([name, key]) => [
			name,
			{
				key: key.key,
				account_id: key.account_id,
				mode: key.mode,
				scope: key.scope,
				tier: key.tier,
				signing_secret: key.signing_secret,
			},
		]),
	);
	process.stdout.write(`${JSON.stringify({ ready: true, base_url: sandbox.baseUrl, keys })}\n`);
	process.stdout.write(helpText(sandbox.baseUrl, sandbox.keys));

	const stop = () => {
		void sandbox.close().then(() => process.exit(0));
	};
	process.once('SIGINT', stop);
	process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
	process.stderr.write(`sandbox: ${error instanceof Error ? error.message : String(error)}\n`);
	process.exit(1);
});
