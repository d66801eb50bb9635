import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import type { TranscriptionServiceClient } from '../../shared/transport';
import type { OperationName, ResourceName } from './node.type';

/** What every `<operation>.operation.ts` exports. */
export interface OperationModule {
	description: INodeProperties[];
	/** Runs the operation for one input item; returns the output items for it (pairedItem is added by the router). */
	execute(
		this: IExecuteFunctions,
		itemIndex: number,
		client: TranscriptionServiceClient,
	): Promise<INodeExecutionData[]>;
	/** How many input items may run at once (default 1). */
	concurrency?(this: IExecuteFunctions): number;
	/** Runs all items at once instead of item by item (an operation that may pause the execution). */
	executeAll?(
		this: IExecuteFunctions,
		client: TranscriptionServiceClient,
	): Promise<INodeExecutionData[][]>;
}

/** One operation as the editor offers it: the option in the Operation list, and its module. */
export interface OperationEntry {
	module: OperationModule;
	option: Omit<INodePropertyOptions, 'value'> & { action: string };
}

export type ResourceOperations<R extends ResourceName> = Record<OperationName<R>, OperationEntry>;
