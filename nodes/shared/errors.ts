// How a failure reads in n8n: the node error's message and description, and the one typed structure a failed item
// carries under Continue On Fail (json.error). Everything that fails an item goes through here, so no field is lost
// between where it is known (the transport, an operation) and the failed item.
import type { INode, JsonObject } from 'n8n-workflow';
import { ExecutionCancelledError, NodeApiError, NodeOperationError } from 'n8n-workflow';

/** json.error of a failed item (Continue On Fail); also kept on the node error for everything else to read. */
export interface ItemError {
	/** The API's error.code, or the node's own code (job_failed, max_wait_exceeded, invalid_id, …). */
	code: string;
	message: string;
	description?: string;
	request_id?: string | null;
	resolution_url?: string | null;
	http_status?: number | null;
	upload_id?: string;
	job_id?: string;
	status?: string;
}

/** What an item had already created or seen when it failed. */
export type ItemContext = Pick<ItemError, 'upload_id' | 'job_id' | 'status'>;

/** The API error of an answer, as n8n users see it. */
export interface ApiErrorFields {
	code: string;
	message: string;
	request_id: string | null;
	resolution_url: string | null;
	http_status: number | null;
}

export type NodeError = NodeApiError | NodeOperationError;

const ITEM_ERROR = 'itemError';

export function itemErrorOf(error: unknown): ItemError | undefined {
	const context = (error as { context?: Record<string, unknown> } | undefined)?.context;
	const fields = context?.[ITEM_ERROR] as ItemError | undefined;
	return fields && typeof fields.code === 'string' ? fields : undefined;
}

function setItemError(error: NodeError, fields: ItemError): void {
	error.context[ITEM_ERROR] = fields as unknown as JsonObject;
}

/** A failure the node itself detects (bad parameter, job failed, wait exceeded), with its own code. */
export function operationError(
	node: INode,
	args: ItemContext & { code: string; message: string; description?: string; itemIndex?: number },
): NodeOperationError {
	const { itemIndex, ...fields } = args;
	const error = new NodeOperationError(node, fields.message, {
		itemIndex,
		description: fields.description,
	});
	setItemError(error, fields);
	return error;
}

/** An error envelope (or a failure standing for one: network, rate limit) as a NodeApiError. */
export function apiError(
	node: INode,
	fields: ApiErrorFields,
	itemIndex?: number,
	note = '',
): NodeApiError {
	const description = [
		`Error code: ${fields.code}`,
		fields.request_id ? `Request ID: ${fields.request_id}` : undefined,
		fields.resolution_url ? `How to fix: ${fields.resolution_url}` : undefined,
	]
		.filter(Boolean)
		.join(' · ');
	const error = new NodeApiError(node, { error: { ...fields } } as unknown as JsonObject, {
		message: `${fields.message}${note}`,
		description,
		httpCode: fields.http_status === null ? undefined : String(fields.http_status),
		itemIndex,
	});
	// The item keeps the API's own message; the retry note is for the person reading the node error.
	setItemError(error, { ...fields });
	return error;
}

/** The API fields of an error this node raised from an answer, if it was one. */
export function apiFieldsOf(error: unknown): ApiErrorFields | undefined {
	const fields = itemErrorOf(error);
	if (!fields || !('http_status' in fields)) return undefined;
	return {
		code: fields.code,
		message: fields.message,
		request_id: fields.request_id ?? null,
		resolution_url: fields.resolution_url ?? null,
		http_status: fields.http_status ?? null,
	};
}

/**
 * Any error as a node error for item `itemIndex`, with what the item had created added (never overwriting what the
 * error already says). A cancelled execution passes through untouched.
 */
export function asItemFailure(
	node: INode,
	error: unknown,
	itemIndex: number,
	context: ItemContext = {},
): Error {
	if (error instanceof ExecutionCancelledError) return error;
	const nodeError =
		error instanceof NodeApiError || error instanceof NodeOperationError
			? error
			: new NodeOperationError(node, error as Error, { itemIndex });
	if (nodeError.context.itemIndex === undefined) nodeError.context.itemIndex = itemIndex;
	return addItemContext(nodeError, context);
}

/** Adds what the item had created or seen to a node error, keeping what the error already says. */
export function addItemContext<T extends NodeError>(error: T, context: ItemContext): T {
	const fields: ItemError = itemErrorOf(error) ?? {
		code: 'node_error',
		message: error.message,
		...(typeof error.description === 'string' ? { description: error.description } : {}),
	};
	const merged: ItemError = { ...fields };
	for (const key of ['upload_id', 'job_id', 'status'] as const) {
		if (merged[key] === undefined && context[key] !== undefined) merged[key] = context[key];
	}
	setItemError(error, merged);
	return error;
}
