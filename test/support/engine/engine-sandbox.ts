// The setup every engine test file shares: one sandbox for the whole file (optionally behind a recording proxy),
// its admin client, the credentials the nodes get, and the teardown. harness.ts adds, for every file that loads
// it, the cleanup of n8n's binary store and the engine's shutdown.
import { SandboxAdmin } from '../../../sandbox/admin-client';
import type { RunningSandbox, SandboxOptions } from '../../../sandbox/server';
import { startSandbox } from '../../../sandbox/server';
import type { ControlledClock } from '../clock/controlled-clock';
import type { PollingClock } from './polling-clock';
import { createJob, uploadMedia } from '../sandbox/client';
import { startRecordingProxy } from './harness';
import type { RecordingProxy, TestCredentials } from './harness';

export interface EngineSandboxOptions extends Omit<
	SandboxOptions,
	'port' | 'quiet' | 'realNow' | 'timers'
> {
	/**
	 * The file's clock: a controlled clock (useControlledClock) runs the sandbox's time and timers; a PollingClock, which
	 * jumps, gives it the time alone (the test drives the sandbox's due work with `clock.drives`).
	 */
	clock?: ControlledClock | PollingClock;
	/**
	 * Put a recording proxy between the nodes and the sandbox (the credentials point at it); its exchanges and
	 * concurrency peak are cleared before each test.
	 */
	recordExchanges?: boolean;
}

export interface EngineSandbox {
	readonly sandbox: RunningSandbox;
	readonly admin: SandboxAdmin;
	/** The recording proxy (only with `recordExchanges`). */
	readonly proxy: RecordingProxy;
	/** Where the nodes send their requests: the proxy when recording, else the sandbox. */
	readonly nodeBaseUrl: string;
	/**
	 * The seeded platinum account's live key, pointed where the nodes send their requests. The object is filled when
	 * the sandbox starts, so a file may take it at load time (`const { live } = env`).
	 */
	readonly live: TestCredentials;
	/** The same account's test key (jobs complete at once); filled like `live`. */
	readonly testMode: TestCredentials;
	/** A credential with this key, pointed where the nodes send their requests. */
	credentials(apiKey: string): TestCredentials;
	/** A fresh account (so tests do not see each other's jobs) and its live key, as the nodes get it. */
	newAccount(): Promise<{ accountId: string; key: string; credentials: TestCredentials }>;
	/** A live job of `key`'s account on freshly uploaded media; its job_id. */
	liveJob(key: string, fields?: Record<string, unknown>, filename?: string): Promise<string>;
}

/**
 * One sandbox on a free loopback port for the whole file (beforeAll/afterAll), faults cleared after each test so
 * one test's injected failures never reach the next.
 */
export function useEngineSandbox(options: EngineSandboxOptions = {}): EngineSandbox {
	const { recordExchanges = false, clock, ...sandboxOptions } = options;
	let running: { sandbox: RunningSandbox; admin: SandboxAdmin; proxy?: RecordingProxy } | undefined;
	const live: TestCredentials = { apiKey: '', baseUrl: '' };
	const testMode: TestCredentials = { apiKey: '', baseUrl: '' };

	beforeAll(async () => {
		const sandbox = await startSandbox({
			...sandboxOptions,
			...(clock ? { realNow: () => clock.now() } : {}),
			...(clock && 'setTimer' in clock ? { timers: clock } : {}),
			port: 0,
			quiet: true,
		});
		const proxy = recordExchanges ? await startRecordingProxy(sandbox.baseUrl) : undefined;
		running = { sandbox, admin: new SandboxAdmin(sandbox.baseUrl), proxy };
		Object.assign(live, credentials(sandbox.keys.platinum_live.key));
		Object.assign(testMode, credentials(sandbox.keys.platinum_test.key));
	});
	beforeEach(() => {
		if (!running?.proxy) return;
		running.proxy.exchanges.length = 0;
		running.proxy.concurrency.max = 0;
	});
	afterEach(async () => {
		await running?.admin.clearFaults();
	});
	afterAll(async () => {
		await running?.proxy?.close();
		await running?.sandbox.close();
		running = undefined;
	});

	const started = () => {
		if (!running) throw new Error('The sandbox is not running (use it inside tests and hooks)');
		return running;
	};
	const nodeBaseUrl = () => started().proxy?.baseUrl ?? started().sandbox.baseUrl;
	const credentials = (apiKey: string): TestCredentials => ({ apiKey, baseUrl: nodeBaseUrl() });
	return {
		get sandbox() {
			return started().sandbox;
		},
		get admin() {
			return started().admin;
		},
		get proxy() {
			const { proxy } = started();
			if (!proxy) throw new Error('No recording proxy: pass recordExchanges: true');
			return proxy;
		},
		get nodeBaseUrl() {
			return nodeBaseUrl();
		},
		live,
		testMode,
		credentials,
		async newAccount() {
			const created = await started().admin.createKey({});
			return {
				accountId: created.account_id,
				key: created.key,
				credentials: credentials(created.key),
			};
		},
		async liveJob(key, fields = {}, filename = 'meeting.wav') {
			const { baseUrl } = started().sandbox;
			const uploadId = await uploadMedia(baseUrl, key, { filename });
			return (await createJob(baseUrl, key, { upload_id: uploadId, ...fields })).job_id;
		},
	};
}
