// P3 trigger overhead: signed events at a steady rate into a real n8n, each sent both to our trigger and to n8n's
// plain Webhook node (same bytes, same headers, half a period apart), timing each request until its 2xx answer.
// Reports median and p99 of both and their ratio. Open loop: requests go out on schedule whatever the answers do.

import { setTimeout as delay } from 'node:timers/promises';
import { request, Agent } from 'undici';

import {
	plainWebhookWorkflow,
	realN8nUnavailable,
	startRealN8n,
	triggerWorkflow,
} from '../test/support/n8n/trigger-workflows';
import { ratio, round, type ResultRow } from '../test/support/bench-results';
import { buildSignedDelivery } from '../src/service';

export interface TriggerBenchOptions {
	events: number;
	ratePerSecond: number;
}

const WARMUP_EVENTS = 20;
const TARGET_RATIO = 1.2;

interface Timing {
	ms: number;
	status: number;
}

function percentile(sorted: number[], fraction: number): number {
	return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)];
}

export async function runTriggerBenchmark(
	options: TriggerBenchOptions,
): Promise<ResultRow[] | { skipped: string }> {
	const unavailable = realN8nUnavailable();
	if (unavailable) return { skipped: `real n8n not installed (${unavailable})` };

	const trigger = triggerWorkflow('benchP3Trigger01');
	const plain = plainWebhookWorkflow('benchP3Plain001');
	const n8n = await startRealN8n([trigger, plain]);
	const agent = new Agent({ connections: 32 });
	try {
		const secret = n8n.environment.sandbox.keys.platinum_live.signing_secret;
		const triggerUrl = n8n.triggerUrl(trigger);
		const send = async (
			url: string,
			body: string,
			headers: Record<string, string>,
		): Promise<Timing> => {
			const started = process.hrtime.bigint();
			const response = await request(url, {
				method: 'POST',
				body,
				headers: { ...headers, 'content-type': 'application/json' },
				dispatcher: agent,
			});
			const ms = Number(process.hrtime.bigint() - started) / 1e6;
			await response.body.dump();
			return { ms, status: response.statusCode };
		};

		const periodMs = 1000 / options.ratePerSecond;
		const total = WARMUP_EVENTS + options.events;
		const triggerTimings: Array<Promise<Timing>> = [];
		const plainTimings: Array<Promise<Timing>> = [];
		const started = Date.now();
		for (let index = 0; index < total; index++) {
			const event = {
				event: 'transcription.completed',
				event_id: `evt_bench_p3_${started}_${index}`,
				job_id: `job_bench_p3_${index}`,
				status: 'completed',
				created_at: new Date().toISOString(),
				links: {
					self: `${n8n.environment.sandbox.baseUrl}/api/v1/transcriptions/job_bench_p3_${index}`,
					artifact: `${n8n.environment.sandbox.baseUrl}/api/v1/transcriptions/job_bench_p3_${index}/artifact`,
				},
			};
			const delivery = buildSignedDelivery({
				secret,
				timestamp: Math.floor(Date.now() / 1000),
				event,
			});
			await delay(Math.max(0, started + index * periodMs - Date.now()));
			triggerTimings.push(send(triggerUrl, delivery.body, delivery.headers));
			await delay(Math.max(0, started + (index + 0.5) * periodMs - Date.now()));
			plainTimings.push(send(n8n.plainWebhookUrl, delivery.body, delivery.headers));
		}
		const measured = async (timings: Array<Promise<Timing>>) => {
			const all = (await Promise.all(timings)).slice(WARMUP_EVENTS);
			const failures = all.filter((timing) => timing.status < 200 || timing.status >= 300).length;
			const sorted = all.map((timing) => timing.ms).sort((a, b) => a - b);
			return {
				median: round(percentile(sorted, 0.5), 2),
				p99: round(percentile(sorted, 0.99), 2),
				failures,
			};
		};
		const ours = await measured(triggerTimings);
		const webhook = await measured(plainTimings);
		// Answers alone could hide a trigger that acknowledges without running: both must have run every event.
		await delay(3000);
		const executions = {
			trigger: await n8n.executionCount(trigger.id),
			webhook: await n8n.executionCount(plain.id),
		};
		const medianRatio = ratio(ours.median, webhook.median);
		const p99Ratio = ratio(ours.p99, webhook.p99);
		const context = `${options.events} events at ${options.ratePerSecond}/s to each, n8n ${n8n.environment.n8n.install.n8nVersion}; non-2xx: ${ours.failures} (trigger), ${webhook.failures} (Webhook node); executions ${executions.trigger} (trigger), ${executions.webhook} (Webhook node) of ${total} events each`;
		return [
			{
				benchmark: 'P3',
				metric: 'trigger time-to-2xx, median',
				value: ours.median,
				unit: 'ms',
				baseline: { label: 'plain Webhook node', value: webhook.median },
				ratio: medianRatio,
				target: `≤ ${TARGET_RATIO}×`,
				meetsTarget:
					medianRatio !== null &&
					medianRatio <= TARGET_RATIO &&
					ours.failures === 0 &&
					executions.trigger === total,
				note: context,
			},
			{
				benchmark: 'P3',
				metric: 'trigger time-to-2xx, p99',
				value: ours.p99,
				unit: 'ms',
				baseline: { label: 'plain Webhook node', value: webhook.p99 },
				ratio: p99Ratio,
				target: `≤ ${TARGET_RATIO}×`,
				meetsTarget:
					p99Ratio !== null &&
					p99Ratio <= TARGET_RATIO &&
					ours.failures === 0 &&
					executions.trigger === total,
			},
		];
	} finally {
		await agent.close();
		await n8n.stop();
	}
}
