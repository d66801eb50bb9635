// n8n's HTTP surfaces as the e2e suite uses them: owner setup and login (internal REST API, cookie),
// an API key, then the public API (workflows, executions) and the binary-data endpoint.
import { waitFor } from './processes';

export const OWNER = {
	email: 'owner@example.com',
	firstName: 'Transcription',
	lastName: 'Tester',
	password: 'E2e-Owner-Passw0rd',
};

// n8n ties the auth cookie to a browser id on some endpoints; one fixed id keeps every call consistent.
const BROWSER_ID = 'tss-e2e-harness';

/** GET /rest/workflows/<id>/publication-status (n8n 2.41): whether the activated version's triggers are live. */
interface PublicationStatus {
	status: string;
	triggers: Array<{ nodeId: string; status: string; errorMessage: string | null }>;
}

export interface ExecutionSummary {
	id: string;
	workflowId: string;
	status: string;
	mode: string;
	finished: boolean;
	startedAt: string;
	stoppedAt: string | null;
}

export interface BinaryReference {
	id?: string;
	data?: string;
	fileName?: string;
	mimeType: string;
	fileSize?: string;
	fileExtension?: string;
}

export interface ExecutionItem {
	json: Record<string, unknown>;
	binary?: Record<string, BinaryReference>;
}

export interface NodeRun {
	error?: { message?: string; description?: string };
	data?: { main?: Array<ExecutionItem[] | null> };
}

export interface ExecutionWithData extends ExecutionSummary {
	data: {
		resultData: {
			runData: Record<string, NodeRun[]>;
			error?: { message?: string };
			lastNodeExecuted?: string;
		};
	};
}

export class N8nApi {
	private cookie = '';
	private apiKey = '';

	constructor(readonly baseUrl: string) {}

	/** A client for a session another process signed in. */
	static fromSession(baseUrl: string, session: { cookie: string; apiKey: string }): N8nApi {
		const api = new N8nApi(baseUrl);
		api.cookie = session.cookie;
		api.apiKey = session.apiKey;
		return api;
	}

	get session(): { cookie: string; apiKey: string } {
		return { cookie: this.cookie, apiKey: this.apiKey };
	}

	private async request(
		method: string,
		path: string,
		options: { body?: unknown; auth?: 'cookie' | 'apiKey' | 'none' } = {},
	): Promise<Response> {
		const headers: Record<string, string> = { 'browser-id': BROWSER_ID };
		if (options.body !== undefined) headers['content-type'] = 'application/json';
		if (options.auth === 'cookie' || options.auth === undefined) headers.cookie = this.cookie;
		if (options.auth === 'apiKey') headers['x-n8n-api-key'] = this.apiKey;
		return await fetch(`${this.baseUrl}${path}`, {
			method,
			headers,
			body: options.body === undefined ? undefined : JSON.stringify(options.body),
		});
	}

	private async json<T>(
		method: string,
		path: string,
		options: Parameters<N8nApi['request']>[2] = {},
	): Promise<T> {
		const response = await this.request(method, path, options);
		const text = await response.text();
		if (!response.ok)
			throw new Error(`${method} ${path} → ${response.status}: ${text.slice(0, 1000)}`);
		return JSON.parse(text) as T;
	}

	/** Owner setup, login and an API key with every scope the owner may grant. */
	async signIn(): Promise<void> {
		const settings = await this.json<{
			data: { userManagement?: { showSetupOnFirstLoad?: boolean } };
		}>('GET', '/rest/settings', { auth: 'none' });
		if (settings.data.userManagement?.showSetupOnFirstLoad !== false) {
			await this.json('POST', '/rest/owner/setup', { body: OWNER, auth: 'none' });
		}
		const login = await this.request('POST', '/rest/login', {
			body: { emailOrLdapLoginId: OWNER.email, password: OWNER.password },
			auth: 'none',
		});
		if (!login.ok) throw new Error(`login → ${login.status}: ${await login.text()}`);
		const authCookie = login.headers
			.getSetCookie()
			.find((cookie) => cookie.startsWith('n8n-auth='));
		if (!authCookie) throw new Error('login set no n8n-auth cookie');
		this.cookie = authCookie.split(';')[0];

		const scopes = await this.json<{ data: string[] }>('GET', '/rest/api-keys/scopes');
		const created = await this.json<{ data: { rawApiKey: string } }>('POST', '/rest/api-keys', {
			body: { label: `e2e ${Date.now()}`, scopes: scopes.data, expiresAt: null },
		});
		this.apiKey = created.data.rawApiKey;
	}

	/** Creates a workflow through the public API; resolves with its id. */
	async createWorkflow(workflow: {
		name: string;
		nodes: unknown[];
		connections: unknown;
		settings: Record<string, unknown>;
	}): Promise<string> {
		const created = await this.json<{ id: string }>('POST', '/api/v1/workflows', {
			body: workflow,
			auth: 'apiKey',
		});
		return created.id;
	}

	/** A workflow as n8n saved it (public API). */
	async workflow(
		workflowId: string,
	): Promise<{ nodes: Array<{ name: string; parameters: Record<string, unknown> }> }> {
		return await this.json('GET', `/api/v1/workflows/${workflowId}`, { auth: 'apiKey' });
	}

	/** Creates a credential as the editor does (its REST API; the public API's schema differs between versions). */
	async createCredential(credential: {
		name: string;
		type: string;
		data: Record<string, unknown>;
	}): Promise<string> {
		const created = await this.json<{ data: { id: string } }>('POST', '/rest/credentials', {
			body: credential,
		});
		return created.data.id;
	}

	/**
	 * What the editor asks when a resource locator's list opens, is searched or scrolled
	 * (POST /rest/dynamic-node-parameters/resource-locator-results); the answer as n8n sends it, errors included.
	 */
	async resourceLocatorResults(request: {
		nodeTypeAndVersion: { name: string; version: number };
		path: string;
		methodName: string;
		currentNodeParameters: Record<string, unknown>;
		credentials: Record<string, { id: string; name: string }>;
		filter?: string;
		paginationToken?: string;
	}): Promise<{ status: number; body: Record<string, unknown> }> {
		const response = await this.request(
			'POST',
			'/rest/dynamic-node-parameters/resource-locator-results',
			{
				body: request,
			},
		);
		return { status: response.status, body: (await response.json()) as Record<string, unknown> };
	}

	async activateWorkflow(workflowId: string): Promise<void> {
		await this.json('POST', `/api/v1/workflows/${workflowId}/activate`, { auth: 'apiKey' });
		await this.publicationSettled(workflowId);
	}

	async deactivateWorkflow(workflowId: string): Promise<void> {
		await this.json('POST', `/api/v1/workflows/${workflowId}/deactivate`, { auth: 'apiKey' });
	}

	/**
	 * n8n 2.41 publishes an activated workflow through an outbox a moment after the API answers: its webhooks and
	 * triggers go live then (a webhook called at once answers 404 "not registered"). Waits as the editor does, on the
	 * workflow's publication status, and fails if a trigger did not activate. Older n8n have no such route (404): their
	 * activation was complete when the API answered.
	 */
	private async publicationSettled(workflowId: string): Promise<void> {
		const settled = await waitFor(
			`workflow ${workflowId} to be published`,
			async () => {
				const response = await this.request(
					'GET',
					`/rest/workflows/${workflowId}/publication-status`,
				);
				if (response.status === 404) return { status: 'activated with the API call', triggers: [] };
				if (!response.ok) throw new Error(`publication-status → ${response.status}`);
				const { data } = (await response.json()) as { data: PublicationStatus };
				return data.status === 'in_progress' ? undefined : data;
			},
			{ timeoutMs: 120_000, intervalMs: 200 },
		);
		if (settled.status === 'partial' || settled.status === 'failed') {
			throw new Error(
				`n8n did not publish workflow ${workflowId} (${settled.status}): ${JSON.stringify(settled.triggers)}`,
			);
		}
	}

	async executions(workflowId: string): Promise<ExecutionSummary[]> {
		const page = await this.json<{ data: ExecutionSummary[] }>(
			'GET',
			`/api/v1/executions?workflowId=${encodeURIComponent(workflowId)}&limit=250`,
			{ auth: 'apiKey' },
		);
		return page.data;
	}

	async execution(executionId: string): Promise<ExecutionWithData> {
		return await this.json<ExecutionWithData>(
			'GET',
			`/api/v1/executions/${executionId}?includeData=true`,
			{
				auth: 'apiKey',
			},
		);
	}

	/** Bytes of a binary an execution stored (filesystem mode), through the editor's own download endpoint. */
	async binaryData(binary: BinaryReference): Promise<Buffer> {
		if (!binary.id) return Buffer.from(binary.data ?? '', 'base64');
		const query = new URLSearchParams({ id: binary.id, action: 'download' });
		const response = await this.request('GET', `/rest/binary-data?${query.toString()}`);
		if (!response.ok)
			throw new Error(`binary-data ${binary.id} → ${response.status}: ${await response.text()}`);
		return Buffer.from(await response.arrayBuffer());
	}

	/** The node types the editor loads (community packages and their `…Tool` variants included). */
	async nodeTypeNames(): Promise<string[]> {
		const response = await this.request('GET', '/types/nodes.json');
		if (!response.ok) throw new Error(`/types/nodes.json → ${response.status}`);
		const types = (await response.json()) as Array<{ name: string }>;
		return types.map((type) => type.name);
	}
}
