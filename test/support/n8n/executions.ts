// Reading what n8n did: finished executions through the public API, node outputs, artifact bytes.
import type { ArtifactFormat } from '../../../src/artifacts';
import { makeWav } from '../fixtures/media';
import { waitFor } from './processes';
import type { ExecutionItem, ExecutionSummary, ExecutionWithData, N8nApi } from './rest';

export async function executionIds(api: N8nApi, workflowId: string): Promise<Set<string>> {
	return new Set((await api.executions(workflowId)).map((execution) => execution.id));
}

function isFinished(execution: ExecutionSummary): boolean {
	return execution.stoppedAt !== null && !['running', 'new', 'waiting'].includes(execution.status);
}

/** Waits until `count` executions of the workflow that are not in `before` have finished; oldest first. */
export async function newExecutions(
	api: N8nApi,
	workflowId: string,
	before: Set<string>,
	{ count = 1, timeoutMs = 120_000 } = {},
): Promise<ExecutionWithData[]> {
	const finished = await waitFor(
		`${count} new execution(s) of workflow ${workflowId}`,
		async () => {
			const fresh = (await api.executions(workflowId)).filter(
				(execution) => !before.has(execution.id),
			);
			const done = fresh.filter(isFinished);
			return done.length >= count && done.length === fresh.length ? done : undefined;
		},
		{ timeoutMs, intervalMs: 500 },
	);
	const sorted = [...finished].sort((a, b) => Number(a.id) - Number(b.id));
	return await Promise.all(sorted.map((execution) => api.execution(execution.id)));
}

/** Why an execution did not succeed ("<node>: <message>"), or undefined when it did: assertions show the reason. */
export function failureOf(execution: ExecutionWithData): string | undefined {
	if (execution.status === 'success') return undefined;
	const { error, lastNodeExecuted } = execution.data.resultData;
	return `${execution.status} at "${lastNodeExecuted ?? '?'}": ${error?.message ?? 'no error message'}`;
}

/** The items a node emitted on its first output in its first run. */
export function nodeItems(execution: ExecutionWithData, nodeName: string): ExecutionItem[] {
	const runs = execution.data.resultData.runData[nodeName];
	if (!runs?.length) {
		const error = execution.data.resultData.error?.message;
		throw new Error(
			`Node "${nodeName}" did not run in execution ${execution.id}${error ? `: ${error}` : ''}`,
		);
	}
	const [firstRun] = runs;
	if (firstRun.error)
		throw new Error(`Node "${nodeName}" failed: ${firstRun.error.message ?? 'unknown error'}`);
	return firstRun.data?.main?.[0] ?? [];
}

/** The artifact straight from the service, to compare n8n's copy with byte for byte. */
export async function serviceArtifact(
	sandboxBaseUrl: string,
	apiKey: string,
	jobId: string,
	format: ArtifactFormat,
): Promise<Buffer> {
	const response = await fetch(
		`${sandboxBaseUrl}/api/v1/transcriptions/${jobId}/artifact.${format}`,
		{
			headers: { authorization: `Bearer ${apiKey}` },
		},
	);
	if (!response.ok)
		throw new Error(`artifact ${jobId}.${format} → ${response.status}: ${await response.text()}`);
	return Buffer.from(await response.arrayBuffer());
}

export async function postJson(
	url: string,
	body: unknown,
): Promise<{ status: number; body: unknown }> {
	const response = await fetch(url, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
	const text = await response.text();
	let parsed: unknown = text;
	try {
		parsed = JSON.parse(text);
	} catch {
		// Not JSON: keep the text.
	}
	return { status: response.status, body: parsed };
}

/** What the form example answers (examples/form-transcribe-and-respond.json), as its page shows it. */
export interface FormAnswerPage {
	header: string;
	text: string;
	jobId: string;
}

/**
 * Reads the page the form example answers with: the form's own card markup, which its script puts in place of the form,
 * with the job's id on the card, the title in #submitted-header and the text, HTML-escaped, in #submitted-content.
 */
export function formAnswerPage(html: string): FormAnswerPage {
	const unescape = (text: string) =>
		text
			.replaceAll('&lt;', '<')
			.replaceAll('&gt;', '>')
			.replaceAll('&quot;', '"')
			.replaceAll('&amp;', '&');
	const match =
		/<div class="card" id="submitted-form" data-job-id="([^"]*)"><div class="form-header"><h1 id="submitted-header">([^<]*)<\/h1><p id="submitted-content"[^>]*>([^<]*)<\/p>/.exec(
			html,
		);
	if (!match) throw new Error(`not the form example's answer page: ${html.slice(0, 300)}`);
	return { jobId: unescape(match[1]), header: unescape(match[2]), text: unescape(match[3]) };
}

/** A recording uploaded through the form example (`/form/transcribe`), as a person submits the form. */
export async function submitFormRecording(
	n8nBaseUrl: string,
	fileName: string,
	seconds: number,
): Promise<Response> {
	const form = new FormData();
	form.append('field-0', new Blob([makeWav({ seconds })], { type: 'audio/wav' }), fileName);
	return await fetch(`${n8nBaseUrl}/form/transcribe`, { method: 'POST', body: form });
}
