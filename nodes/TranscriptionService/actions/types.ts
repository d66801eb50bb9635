import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import type { TranscriptionServiceClient } from '../../shared/transport';
import type { ItemOutcome } from '../helpers/item-loop';
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
	/**
	 * A step over the whole batch once every item ran (e.g. putting the execution to wait until the items' jobs end):
	 * returns the node's output, or undefined to output the items as they are.
	 */
	afterItems?(
		this: IExecuteFunctions,
		client: TranscriptionServiceClient,
		outcomes: Array<ItemOutcome<INodeExecutionData[]>>,
	): Promise<INodeExecutionData[][] | undefined>;
}

/** One operation as the editor offers it: the option in the Operation list, and its module. */
export interface OperationEntry {
	module: OperationModule;
	option: Omit<INodePropertyOptions, 'value'> & { action: string };
}

export type ResourceOperations<R extends ResourceName> = Record<OperationName<R>, OperationEntry>;
