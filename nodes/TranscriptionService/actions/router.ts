import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { ExecutionCancelledError, NodeApiError, NodeOperationError } from 'n8n-workflow';

import { apiErrorFieldsOf, TranscriptionServiceClient } from '../transport';
import * as account from './account/Account.resource';
import * as transcription from './transcription/Transcription.resource';
import type { OperationModule } from './types';
import * as upload from './upload/Upload.resource';
import * as webhook from './webhook/Webhook.resource';

const resources: Record<string, Record<string, OperationModule>> = {
	account: account.operations,
	transcription: transcription.operations,
	upload: upload.operations,
	webhook: webhook.operations,
};

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const operationModule = resources[resource]?.[operation];
	if (!operationModule) {
		throw new NodeOperationError(
			this.getNode(),
			`The operation "${operation}" of "${resource}" is not supported`,
		);
	}

	const client = new TranscriptionServiceClient(this);
	const cancelSignal = this.getExecutionCancelSignal();
	const results: INodeExecutionData[][] = new Array(items.length);
	const runItem = async (itemIndex: number) => {
		try {
			const output = await operationModule.execute.call(this, itemIndex, client);
			results[itemIndex] = output.map((item) => ({ ...item, pairedItem: { item: itemIndex } }));
		} catch (error) {
			// A cancelled execution is not an item's failure: let the cancellation through untouched.
			if (!this.continueOnFail() || cancelSignal?.aborted)
				throw toNodeError(this, error, itemIndex);
			results[itemIndex] = [{ json: failedItemJson(error), pairedItem: { item: itemIndex } }];
		}
	};

	const concurrency = Math.max(
		1,
		Math.min(items.length, operationModule.concurrency?.call(this) ?? 1),
	);
	let next = 0;
	let failure: unknown;
	// After the first failure no new item starts; the ones in flight finish before the node reports it.
	const worker = async () => {
		while (failure === undefined && next < items.length) {
			const itemIndex = next++;
			await runItem(itemIndex).catch((error: unknown) => {
				failure ??= error;
			});
		}
	};
	await Promise.all(Array.from({ length: concurrency }, worker));
	if (failure !== undefined) throw failure;

	return [results.flat()];
}

/** The fields a failed item carries under Continue On Fail: the API's error code, message and trace ids. */
function failedItemJson(error: unknown): IDataObject {
	const apiError = apiErrorFieldsOf(error);
	const context = (error as { context?: IDataObject }).context ?? {};
	const extra: IDataObject = {};
	for (const key of ['job_id', 'status', 'upload_id'] as const) {
		if (context[key] !== undefined) extra[key] = context[key];
	}
	if (apiError) {
		return {
			error: {
				code: apiError.code,
				message: apiError.message,
				request_id: apiError.request_id,
				resolution_url: apiError.resolution_url,
				http_status: apiError.http_status,
				...extra,
			},
		};
	}
	const description = (error as { description?: unknown }).description;
	return {
		error: {
			code: typeof context.code === 'string' ? context.code : 'node_error',
			message: error instanceof Error ? error.message : String(error),
			...(typeof description === 'string' ? { description } : {}),
			...extra,
		},
	};
}

function toNodeError(context: IExecuteFunctions, error: unknown, itemIndex: number) {
	if (error instanceof ExecutionCancelledError) return error;
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (error.context.itemIndex === undefined) error.context.itemIndex = itemIndex;
		return error;
	}
	return new NodeOperationError(context.getNode(), error as Error, { itemIndex });
}
