// Running an operation over the input items with n8n's failure rules (Continue On Fail, first failure stops).
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { asItemFailure, itemErrorOf, type ItemContext } from '../../shared/errors';

export type ItemOutcome<T> = { ok: true; value: T } | { ok: false; failedItem: INodeExecutionData };

/**
 * Runs `work` for every input item, `concurrency` at a time, results in input order. Under Continue On Fail a
 * failed item becomes its error item; otherwise, after the first failure no new item starts, the ones in flight
 * finish, and the failure is thrown. A cancelled execution is never an item's failure. `work` notes in `created`
 * what the item has created (upload_id, job_id): its failure becomes the item's error here, once, naming them.
 */
export async function runItems<T>(
	context: IExecuteFunctions,
	concurrency: number,
	work: (itemIndex: number, created: ItemContext) => Promise<T>,
): Promise<Array<ItemOutcome<T>>> {
	const count = context.getInputData().length;
	const cancelSignal = context.getExecutionCancelSignal();
	const outcomes: Array<ItemOutcome<T>> = new Array(count);
	let failure: unknown;
	await forEachConcurrently(
		count,
		concurrency,
		async (itemIndex) => {
			const created: ItemContext = {};
			try {
				outcomes[itemIndex] = { ok: true, value: await work(itemIndex, created) };
			} catch (error) {
				const itemFailure = asItemFailure(context.getNode(), error, itemIndex, created);
				if (!context.continueOnFail() || cancelSignal?.aborted) failure ??= itemFailure;
				else outcomes[itemIndex] = { ok: false, failedItem: failedItem(itemFailure, itemIndex) };
			}
		},
		() => failure !== undefined,
	);
	if (failure !== undefined) throw failure;
	return outcomes;
}

/**
 * The one worker pool: `work(index)` for every index below `count`, at most `concurrency` at a time, each index once.
 * Once `stop()` says so no new index starts; the ones in flight finish.
 */
export async function forEachConcurrently(
	count: number,
	concurrency: number,
	work: (index: number) => Promise<void>,
	stop: () => boolean = () => false,
): Promise<void> {
	let next = 0;
	const worker = async () => {
		while (!stop() && next < count) await work(next++);
	};
	const workers = Math.max(1, Math.min(count, concurrency));
	await Promise.all(Array.from({ length: workers }, worker));
}

/** The item a failure becomes under Continue On Fail: json.error is the item error, whole. */
export function failedItem(error: Error, itemIndex: number): INodeExecutionData {
	return { json: failedItemJson(error), pairedItem: { item: itemIndex } };
}

export function failedItemJson(error: Error): IDataObject {
	const fields = itemErrorOf(error) ?? { code: 'node_error', message: error.message };
	return { error: { ...fields } };
}
