import type {
	IExecuteFunctions,
	IHookFunctions,
	ILoadOptionsFunctions,
	IPollFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';

/**
 * The n8n contexts that call the API: the action node, webhooks (trigger and resume), activation hooks, polls, and
 * the editor's list searches.
 */
export type RequestContext =
	IExecuteFunctions | IWebhookFunctions | IHookFunctions | IPollFunctions | ILoadOptionsFunctions;

export type BinaryStream = Awaited<ReturnType<IExecuteFunctions['helpers']['getBinaryStream']>>;

/** The execution's cancel signal, where the context has one (action node runs). */
export function cancelSignalOf(context: RequestContext): AbortSignal | undefined {
	return 'getExecutionCancelSignal' in context ? context.getExecutionCancelSignal() : undefined;
}
