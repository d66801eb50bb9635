import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { TranscriptionServiceClient } from '../../shared/transport';
import { runItems } from '../helpers/item-loop';
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
	const nodeData = {
		resource: this.getNodeParameter('resource', 0),
		operation: this.getNodeParameter('operation', 0),
	} as TranscriptionServiceType;
	const operation = operationEntry(nodeData)?.module;
	if (!operation) {
		throw new NodeOperationError(
			this.getNode(),
			`The operation "${nodeData.operation}" of "${nodeData.resource}" is not supported`,
		);
	}
	const client = new TranscriptionServiceClient(this);
	const concurrency = operation.concurrency?.call(this) ?? 1;
	if (operation.afterItems) {
		const outcomes = await runItems(
			this,
			concurrency,
			async (itemIndex, created) => await operation.execute.call(this, itemIndex, client, created),
		);
		return await operation.afterItems.call(this, client, outcomes);
	}
	const outcomes = await runItems(this, concurrency, async (itemIndex, created) => {
		const output = await operation.execute.call(this, itemIndex, client, created);
		return output.map((item) => ({ ...item, pairedItem: { item: itemIndex } }));
	});
	return [outcomes.flatMap((outcome) => (outcome.ok ? outcome.value : [outcome.failedItem]))];
}
