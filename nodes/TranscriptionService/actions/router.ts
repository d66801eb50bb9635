import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { asItemFailure, itemErrorOf } from '../../shared/errors';
import { TranscriptionServiceClient } from '../../shared/transport';
import * as account from './account/Account.resource';
import type { ResourceName, TranscriptionServiceType } from './node.type';
import * as transcription from './transcription/Transcription.resource';
import type { OperationEntry, ResourceOperations } from './types';
import * as upload from './upload/Upload.resource';
import * as webhook from './webhook/Webhook.resource';

export const resources: { [R in ResourceName]: ResourceOperations<R> } = {
	account: account.operations,
	transcription: transcription.operations,
	upload: upload.operations,
	webhook: webhook.operations,
};

function operationEntry(nodeData: TranscriptionServiceType): OperationEntry | undefined {
	switch (nodeData.resource) {
		case 'account':
			return resources.account[nodeData.operation];
		case 'transcription':
			return resources.transcription[nodeData.operation];
		case 'upload':
			return resources.upload[nodeData.operation];
		case 'webhook':
			return resources.webhook[nodeData.operation];
		default:
			return undefined;
	}
}

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const nodeData = {
		resource: this.getNodeParameter('resource', 0),
		operation: this.getNodeParameter('operation', 0),
	} as TranscriptionServiceType;
	const entry = operationEntry(nodeData);
	if (!entry) {
		throw new NodeOperationError(
			this.getNode(),
			`The operation "${nodeData.operation}" of "${nodeData.resource}" is not supported`,
		);
	}
	const operation = entry.module;

	const client = new TranscriptionServiceClient(this);
	const cancelSignal = this.getExecutionCancelSignal();
	const results: INodeExecutionData[][] = new Array(items.length);
	const runItem = async (itemIndex: number) => {
		try {
			const output = await operation.execute.call(this, itemIndex, client);
			results[itemIndex] = output.map((item) => ({ ...item, pairedItem: { item: itemIndex } }));
		} catch (error) {
			const failure = asItemFailure(this.getNode(), error, itemIndex);
			// A cancelled execution is not an item's failure: let the cancellation through untouched.
			if (!this.continueOnFail() || cancelSignal?.aborted) throw failure;
			results[itemIndex] = [{ json: failedItemJson(failure), pairedItem: { item: itemIndex } }];
		}
	};

	const concurrency = Math.max(1, Math.min(items.length, operation.concurrency?.call(this) ?? 1));
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

/** json of a failed item under Continue On Fail: the item error, whole. */
export function failedItemJson(error: Error): IDataObject {
	const fields = itemErrorOf(error) ?? { code: 'node_error', message: error.message };
	return { error: { ...fields } };
}
