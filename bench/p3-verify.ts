// P3 (second half): raw signature verifications per second on one core for 1 KiB bodies, through
// src/webhooks' verifySignature, against a bare HMAC-SHA-256 + timingSafeEqual over the same bytes in the
// same run (the most any verifier could do in Node).

import { createHmac, timingSafeEqual } from 'node:crypto';

import { verifySignature } from '../src/webhooks';
import { ratio, round, type ResultRow } from '../test/support/bench-results';
import { buildSignedDelivery } from '../src/service';

const BODY_BYTES = 1024;
const SECRET = 'whsec_bench_5f2b8c0e4d7a41c9';
const SECONDS_PER_ROUND = 1;

export interface VerifyBenchOptions {
	rounds: number;
}

/** A real completed-event body, padded inside its links to exactly 1 KiB of canonical JSON. */
function oneKibDelivery(timestamp: number): { body: Buffer; headers: Record<string, string> } {
	const event = {
		event: 'transcription.completed',
		event_id: 'evt_0123456789abcdef01234567',
		job_id: 'job_0123456789abcdef01234567',
		status: 'completed',
		created_at: '2026-11-22T10:00:00.000Z',
		links: {
			self: 'https://api.example.test/api/v1/transcriptions/job_0123456789abcdef01234567',
			artifact:
				'https://api.example.test/api/v1/transcriptions/job_0123456789abcdef01234567/artifact',
		},
		note: '',
	};
	const unpadded = buildSignedDelivery({ secret: SECRET, timestamp, event }).body.length;
	event.note = 'x'.repeat(BODY_BYTES - unpadded);
	const delivery = buildSignedDelivery({ secret: SECRET, timestamp, event });
	const body = Buffer.from(delivery.body, 'utf8');
	if (body.length !== BODY_BYTES)
		throw new Error(`padded body is ${body.length} bytes, not ${BODY_BYTES}`);
	return { body, headers: lowerCased(delivery.headers) };
}

function lowerCased(headers: Record<string, string>): Record<string, string> {
	return Object.fromEntries(
		Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]),
	);
}

/** Calls `operation` in a tight loop for about `seconds`; returns calls per second. */
function callsPerSecond(operation: () => boolean, seconds: number): number {
	const deadline = process.hrtime.bigint() + BigInt(Math.round(seconds * 1e9));
	const started = process.hrtime.bigint();
	let calls = 0;
	let now = started;
	while (now < deadline) {
		// Check the clock every 256 calls so reading it costs nothing measurable.
		for (let batch = 0; batch < 256; batch++) {
			if (!operation()) throw new Error('a valid signature was rejected during the benchmark');
		}
		calls += 256;
		now = process.hrtime.bigint();
	}
	return calls / (Number(now - started) / 1e9);
}

function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export function runVerifyBenchmark(options: VerifyBenchOptions): ResultRow[] {
	const now = Math.floor(Date.now() / 1000);
	const { body, headers } = oneKibDelivery(now);
	const expected = Buffer.from(headers['x-service-signature'].slice('v1='.length), 'hex');
	const timestamp = headers['x-service-timestamp'];

	const ours = () => verifySignature({ rawBody: body, headers, secrets: [SECRET], now }).ok;
	const bareHmac = () => {
		const digest = createHmac('sha256', SECRET).update(`${timestamp}.`).update(body).digest();
		return timingSafeEqual(digest, expected);
	};

	// Warm both paths up before measuring, then alternate them so load changes hit both alike.
	callsPerSecond(ours, 0.3);
	callsPerSecond(bareHmac, 0.3);
	const oursRates: number[] = [];
	const bareRates: number[] = [];
	for (let roundIndex = 0; roundIndex < options.rounds; roundIndex++) {
		oursRates.push(callsPerSecond(ours, SECONDS_PER_ROUND));
		bareRates.push(callsPerSecond(bareHmac, SECONDS_PER_ROUND));
	}
	const oursMedian = Math.round(median(oursRates));
	const bareMedian = Math.round(median(bareRates));
	return [
		{
			benchmark: 'P3',
			metric: 'verifySignature, 1 KiB body, one core',
			value: oursMedian,
			unit: 'verifications/s',
			baseline: { label: 'bare HMAC-SHA-256 + timingSafeEqual', value: bareMedian },
			ratio: ratio(oursMedian, bareMedian),
			target: '≥ 50,000/s',
			meetsTarget: oursMedian >= 50_000,
			note: `median of ${options.rounds} rounds of ${SECONDS_PER_ROUND} s each (spread ${round(Math.min(...oursRates) / 1000, 0)}k–${round(Math.max(...oursRates) / 1000, 0)}k/s)`,
		},
	];
}
