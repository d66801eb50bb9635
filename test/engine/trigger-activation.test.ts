// The trigger's webhookMethods (checkExists, create, delete) in n8n-core's HookContext, as n8n runs them when a
// workflow is activated or deactivated, with Verify on Activation going to the sandbox's POST /webhooks/test.
import { startSandbox } from '../../sandbox/server';
import { useControlledClock } from '../support/clock/controlled-clock';
import { useEngineSandbox } from '../support/engine/engine-sandbox';
import { TriggerUnderTest, type TriggerSetup } from '../support/engine/webhook-harness';

const clock = useControlledClock();
const env = useEngineSandbox({ clock, allowLocalWebhooks: true });
let trigger: TriggerUnderTest;

afterEach(async () => await trigger.close());

function setup(
	options: { verifyOnActivation?: boolean; signingSecret?: string; baseUrl?: string } = {},
): TriggerSetup {
	const account = env.sandbox.keys.platinum_live;
	return {
		parameters: options.verifyOnActivation ? { options: { verifyOnActivation: true } } : {},
		credentials: {
			apiKey: account.key,
			baseUrl: options.baseUrl ?? env.sandbox.baseUrl,
			signingSecret: options.signingSecret ?? account.signing_secret,
		},
	};
}

async function testDeliveriesTo(url: string) {
	return (await env.admin.webhookDeliveries({ waitIdle: true })).filter(
		(record) => record.kind === 'test' && record.url === url,
	);
}

describe('activating the trigger', () => {
	it('records its Production URL and, with Verify on Activation off, calls nothing', async () => {
		trigger = await TriggerUnderTest.start(setup());
		await trigger.activate();

		expect(trigger.nodeStaticData.webhookUrl).toBe(trigger.productionUrl);
		expect(await testDeliveriesTo(trigger.productionUrl)).toHaveLength(0);
	});

	it('fails with a clear error when the credential has no Signing Secret, recording nothing', async () => {
		trigger = await TriggerUnderTest.start(setup({ signingSecret: '' }));

		await expect(trigger.activate()).rejects.toThrow('The credential has no Signing Secret');
		expect(trigger.storedStaticData).toEqual({});
	});

	it('with Verify on Activation, has the service deliver a signed test event to its own URL', async () => {
		trigger = await TriggerUnderTest.start(setup({ verifyOnActivation: true }));
		const received = trigger.nextCalls(1);
		await trigger.activate();
		const [call] = await received;

		expect(trigger.nodeStaticData.webhookUrl).toBe(trigger.productionUrl);
		// Webhook Test is not among the selected events: acknowledged, nothing started.
		expect(call.response).toEqual({ received: true, ignored: 'event not selected' });
		expect(call.workflowData).toBeUndefined();
		const deliveries = await testDeliveriesTo(trigger.productionUrl);
		expect(deliveries.map((record) => record.status_code)).toEqual([200]);
	});

	it('does not verify again when n8n re-activates a workflow whose URL is already recorded (restart)', async () => {
		trigger = await TriggerUnderTest.start(setup({ verifyOnActivation: true }));
		const received = trigger.nextCalls(1);
		await trigger.activate();
		await received;
		await trigger.activate();

		expect(await testDeliveriesTo(trigger.productionUrl)).toHaveLength(1);
	});

	it("with Verify on Activation, fails with the service's reason when its own check refuses the test event", async () => {
		trigger = await TriggerUnderTest.start(
			setup({
				verifyOnActivation: true,
				signingSecret: env.sandbox.keys.premium_live.signing_secret,
			}),
		);

		const activation = trigger.activate();
		await expect(activation).rejects.toThrow(
			`The service could not deliver a test event to ${trigger.productionUrl}`,
		);
		await expect(activation).rejects.toMatchObject({
			description: expect.stringContaining('Signing Secret'),
		});
		expect(trigger.storedStaticData).toEqual({});
		const deliveries = await testDeliveriesTo(trigger.productionUrl);
		expect(deliveries.map((record) => record.status_code)).toEqual([401]);
	});

	it("with Verify on Activation, fails with the service's error when the URL is not public HTTPS", async () => {
		const strictSandbox = await startSandbox({ port: 0, quiet: true });
		try {
			trigger = await TriggerUnderTest.start(
				setup({ verifyOnActivation: true, baseUrl: strictSandbox.baseUrl }),
			);

			const activation = trigger.activate();
			await expect(activation).rejects.toThrow('webhook_url must be an https:// URL');
			await expect(activation).rejects.toMatchObject({
				context: { itemError: { code: 'invalid_webhook_url', http_status: 400 } },
			});
			expect(trigger.storedStaticData).toEqual({});
		} finally {
			await strictSandbox.close();
		}
	});

	it('does not verify for a test listener ("Listen for test event"), whose URL is not live yet', async () => {
		trigger = await TriggerUnderTest.start(setup({ verifyOnActivation: true }));
		await trigger.activate('manual');

		expect(await testDeliveriesTo(trigger.productionUrl)).toHaveLength(0);
		expect(trigger.storedStaticData).toEqual({});
	});
});

describe('deactivating the trigger', () => {
	it('forgets the URL but keeps the dedupe window, so a redelivery after reactivation is still a duplicate', async () => {
		trigger = await TriggerUnderTest.start(setup());
		await trigger.activate();
		const nodeKey = 'node:Transcription Service Trigger';
		trigger.storedStaticData = {
			[nodeKey]: { ...trigger.nodeStaticData, seenEvents: [['evt_before', Date.now()]] },
		};
		await trigger.deactivate();

		expect(trigger.nodeStaticData).toEqual({ seenEvents: [['evt_before', expect.any(Number)]] });
		await trigger.activate();
		expect(trigger.nodeStaticData.webhookUrl).toBe(trigger.productionUrl);
	});
});
