// R4's raw material: every output item, error message, error description and log line the reliability runs
// produce, gathered as text, and a scanner that looks for the API keys and signing secrets in it — verbatim and
// in the encodings a leak would most likely take (the key body without its prefix, base64, percent-encoding).

import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';
import type { INodeExecutionData, Logger as WorkflowLogger } from 'n8n-workflow';
import { LoggerProxy } from 'n8n-workflow';

import { API_KEY_PREFIXES } from '../../../src/api';

export interface EvidenceEntry {
	/** Where the text came from, e.g. "R1 output item 17" or "log.debug". */
	source: string;
	text: string;
}

export class Evidence {
	readonly entries: EvidenceEntry[] = [];

	add(source: string, value: unknown): void {
		for (const text of stringsIn(value)) this.entries.push({ source, text });
	}

	/** Output items of a run: JSON, binary metadata, and any error the item carries. */
	addItems(source: string, items: INodeExecutionData[]): void {
		items.forEach((item, index) => {
			this.add(`${source} item ${index} json`, item.json);
			if (item.binary) this.add(`${source} item ${index} binary metadata`, item.binary);
			if (item.error) this.addError(`${source} item ${index} error`, item.error);
		});
	}

	/** An error's message, description, context and cause: everything n8n would show or store. */
	addError(source: string, error: unknown): void {
		if (!(error instanceof Error)) {
			this.add(source, error);
			return;
		}
		const { message, stack } = error;
		const extra = error as Error & {
			description?: unknown;
			context?: unknown;
			cause?: unknown;
			httpCode?: unknown;
		};
		this.add(`${source} message`, message);
		this.add(`${source} stack`, stack);
		this.add(`${source} description`, extra.description);
		this.add(`${source} context`, extra.context);
		this.add(`${source} httpCode`, extra.httpCode);
		if (extra.cause !== undefined) this.addError(`${source} cause`, extra.cause);
	}

	get size(): number {
		return this.entries.length;
	}
}

/** Every string in a value (keys included), walking objects and arrays; cycles are visited once. */
function stringsIn(value: unknown, seen = new Set<unknown>()): string[] {
	if (value === null || value === undefined) return [];
	if (typeof value === 'string') return [value];
	if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
		return [String(value)];
	if (Buffer.isBuffer(value)) return [value.toString('utf8')];
	if (typeof value !== 'object' || seen.has(value)) return [];
	seen.add(value);
	const strings: string[] = [];
	for (const [key, nested] of Object.entries(value as Record<string, unknown>)) {
		strings.push(key, ...stringsIn(nested, seen));
	}
	if (value instanceof Error) strings.push(value.message, value.stack ?? '');
	return strings;
}

export interface SecretFinding {
	secretLabel: string;
	form: string;
	source: string;
	excerpt: string;
}

/** The forms in which a secret would show up if it leaked. */
export function secretForms(secret: string): Array<{ form: string; text: string }> {
	const forms = [
		{ form: 'verbatim', text: secret },
		{ form: 'base64', text: Buffer.from(secret).toString('base64').replace(/=+$/, '') },
		{ form: 'percent-encoded', text: encodeURIComponent(secret) },
	];
	const prefix = Object.values(API_KEY_PREFIXES).find((keyPrefix) => secret.startsWith(keyPrefix));
	if (prefix) forms.push({ form: 'key body without prefix', text: secret.slice(prefix.length) });
	// Short forms would match by chance; every real secret is far longer.
	return forms.filter(
		(candidate, index) =>
			candidate.text.length >= 12 &&
			forms.findIndex((other) => other.text === candidate.text) === index,
	);
}

export function scanForSecrets(
	evidence: Evidence,
	secrets: Record<string, string>,
): SecretFinding[] {
	const findings: SecretFinding[] = [];
	for (const [secretLabel, secret] of Object.entries(secrets)) {
		for (const { form, text } of secretForms(secret)) {
			for (const entry of evidence.entries) {
				const at = entry.text.indexOf(text);
				if (at === -1) continue;
				findings.push({
					secretLabel,
					form,
					source: entry.source,
					excerpt: entry.text.slice(Math.max(0, at - 40), at + text.length + 40),
				});
			}
		}
	}
	return findings;
}

type Level = 'error' | 'warn' | 'info' | 'debug';

/**
 * Routes n8n's logging (the Logger nodes get from the DI container, and LoggerProxy used by the engine) into
 * `evidence` at every level, debug included — a secret logged at any level is a leak.
 */
export function captureLogs(evidence: Evidence): void {
	const record = (level: Level) => (message: string, metadata?: unknown) => {
		evidence.add(`log.${level}`, message);
		if (metadata !== undefined) evidence.add(`log.${level} metadata`, metadata);
	};
	const logger = {
		error: record('error'),
		warn: record('warn'),
		info: record('info'),
		debug: record('debug'),
		scoped: () => logger,
	};
	Container.set(Logger, logger as unknown as Logger);
	LoggerProxy.init(logger as unknown as WorkflowLogger);
}
