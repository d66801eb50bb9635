// Fault injection for reliability tests (POST /_sandbox/faults). Rules are tried in order with one
// seeded PRNG, so a seed replays the same sequence of faults for the same sequence of requests.

import type { OperationId } from '../src/api';
import { mulberry32 } from './random';
import type { WebhookFaults } from './webhooks';

export const FAULT_KINDS = [
	'500',
	'502',
	'503',
	'429',
	'reset',
	'drop_after_commit',
	'latency',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultRule {
	route: OperationId | '*';
	kind: FaultKind;
	/** Chance per matching request (default 1). */
	probability?: number;
	/** How many times the rule may fire before it is spent (default: unlimited). */
	count?: number;
	latency_ms?: number;
}

export interface FaultConfig {
	seed?: number;
	rules?: FaultRule[];
	webhooks?: WebhookFaults;
}

/** What the server must do for one request: wait, then maybe break. */
export interface FaultDecision {
	latencyMs: number;
	kind: Exclude<FaultKind, 'latency'> | null;
}

interface ActiveRule extends FaultRule {
	fired: number;
}

export class FaultInjector {
	private rules: ActiveRule[] = [];
	private random: () => number;

	constructor(seed: number) {
		this.random = mulberry32(seed);
	}

	reseed(seed: number): void {
		this.random = mulberry32(seed);
	}

	/** Replaces the rules (already validated by the admin route). */
	configure(config: FaultConfig): void {
		this.rules = (config.rules ?? []).map((rule) => ({ ...rule, fired: 0 }));
	}

	clear(): void {
		this.rules = [];
	}

	decide(operationId: OperationId): FaultDecision {
		const decision: FaultDecision = { latencyMs: 0, kind: null };
		for (const rule of this.rules) {
			if (rule.route !== '*' && rule.route !== operationId) continue;
			if (rule.count !== undefined && rule.fired >= rule.count) continue;
			if (this.random() >= (rule.probability ?? 1)) continue;
			rule.fired += 1;
			if (rule.kind === 'latency') {
				decision.latencyMs += rule.latency_ms ?? 0;
				continue;
			}
			decision.kind = rule.kind;
			break;
		}
		return decision;
	}
}
