import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import type { TranscriptionServiceClient } from '../transport';

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
}
