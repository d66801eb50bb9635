import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodePropertyOptions,
} from 'n8n-workflow';

import type { ItemContext } from '../../shared/errors';
import type { TranscriptionServiceClient } from '../../shared/transport';
import type { ItemOutcome } from '../helpers/item-loop';
import type { OperationName, ResourceName } from './node.type';

interface OperationBase {
	description: INodeProperties[];
	/** How many input items may run at once (default 1). */
	concurrency?(this: IExecuteFunctions): number;
}

/** What an `<operation>.operation.ts` exports: an operation whose items each give their own output items. */
export interface ItemOperation extends OperationBase {
	/**
	 * Runs the operation for one input item; returns the output items for it (pairedItem is added by the router).
	 * `created` is what the item has created so far (upload_id, job_id): a failure of the item names it.
	 */
	execute(
		this: IExecuteFunctions,
		itemIndex: number,
		client: TranscriptionServiceClient,
		created: ItemContext,
	): Promise<INodeExecutionData[]>;
	afterItems?: undefined;
}

/**
 * An operation that ends in a step over the whole batch (e.g. putting the execution to wait until the items' jobs
 * end): each item's value reaches `afterItems` as `execute` returned it, and afterItems returns the node's output.
 */
export interface BatchOperation<Value> extends OperationBase {
	execute(
		this: IExecuteFunctions,
		itemIndex: number,
		client: TranscriptionServiceClient,
		created: ItemContext,
	): Promise<Value>;
	afterItems(
		this: IExecuteFunctions,
		client: TranscriptionServiceClient,
		outcomes: Array<ItemOutcome<Value>>,
	): Promise<INodeExecutionData[][]>;
}

export type OperationModule = ItemOperation | BatchOperation<unknown>;

/** One operation as the editor offers it: the option in the Operation list, and its module. */
export interface OperationEntry {
	module: OperationModule;
	option: Omit<INodePropertyOptions, 'value'> & { action: string };
}

export type ResourceOperations<R extends ResourceName> = Record<OperationName<R>, OperationEntry>;
