// Shorthands over the engine harness for the benchmarks and the reliability matrices: Transcribe and Download runs over
// generated WAV items.

import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { binaryItem, nodeType, runWorkflow, type RunResult, type TestCredentials } from './harness';
import { makeWav } from '../fixtures/media';

export const ACTION_NODE_NAME = 'Transcribe and Download';

/** One short WAV per item, each with its own file name so its slot and job can be told apart in the records. */
export async function wavItems(
	count: number,
	namePrefix: string,
	seconds = 1,
): Promise<INodeExecutionData[]> {
	const wav = makeWav({ seconds });
	const items: INodeExecutionData[] = [];
	for (let index = 0; index < count; index++) {
		items.push(
			await binaryItem({
				data: wav,
				fileName: `${namePrefix}-${String(index).padStart(4, '0')}.wav`,
				mimeType: 'audio/wav',
				json: { index },
			}),
		);
	}
	return items;
}

export interface TranscribeRunOptions {
	items: INodeExecutionData[];
	credentials: TestCredentials;
	concurrency?: number;
	formats?: string[];
	options?: IDataObject;
	continueOnFail?: boolean;
}

export async function runTranscribeAndDownload(run: TranscribeRunOptions): Promise<RunResult> {
	return await runWorkflow({
		nodes: [
			{
				name: ACTION_NODE_NAME,
				type: nodeType('transcriptionService'),
				parameters: {
					resource: 'transcription',
					operation: 'transcribeAndDownload',
					binaryPropertyName: 'data',
					formats: run.formats ?? ['srt'],
					options: { concurrency: run.concurrency ?? 1, ...run.options },
				},
				...(run.continueOnFail ? { onError: 'continueRegularOutput' as const } : {}),
			},
		],
		input: run.items,
		credentials: run.credentials,
	});
}

/** Transcribe and Download of SRT in Wait Mode "Pause Until Webhook", for the engine's waiting harness. */
export function pauseUntilWebhookParameters(options: {
	concurrency: number;
	maxWaitSeconds: number;
}): INodeParameters {
	return {
		resource: 'transcription',
		operation: 'transcribeAndDownload',
		binaryPropertyName: 'data',
		formats: ['srt'],
		waitMode: 'pauseUntilWebhook',
		options,
	};
}
