// The credential's Test button, run the way n8n runs it: n8n's CredentialsTester (packages/cli, not published as a
// library) builds a one-node workflow whose only property routes the credential's `test.request`, runs it with
// n8n-core's RoutingNode through an ExecuteContext (so the request goes through httpRequestWithAuthentication and the
// credential's `authenticate`), and turns the outcome into the message the editor shows, applying the test's `rules`.
// This file repeats those steps of CredentialsTester.testCredentials (n8n 1.123 to 2.41 alike); the e2e suite
// checks the same against a real n8n's POST /rest/credentials/test (test/e2e/credential-test.test.ts).
import { ExecuteContext, RoutingNode } from 'n8n-core';
import type {
	ICredentialTestRequest,
	ICredentialsDecrypted,
	IExecuteData,
	INode,
	INodeCredentialTestResult,
	INodeExecutionData,
	INodeType,
	INodeTypes,
	IRunExecutionData,
} from 'n8n-workflow';
import { NodeHelpers, Workflow } from 'n8n-workflow';

import {
	CREDENTIAL_TYPE,
	engineAdditionalData,
	FixtureCredentialsHelper,
	fixtureCredentials,
	loadPackage,
	type TestCredentials,
} from './harness';

interface ErrorWithCause {
	message: string;
	cause?: { response?: { status: number; statusText?: string }; code?: string };
}

/** Walks `path` (a.b.c) through objects, as lodash's get does for the rules' keys. */
function valueAt(data: unknown, path: string): unknown {
	let current: unknown = data;
	for (const key of path.split('.')) {
		if (typeof current !== 'object' || current === null) return undefined;
		current = (current as Record<string, unknown>)[key];
	}
	return current;
}

export async function runCredentialTest(
	credentials: TestCredentials,
): Promise<INodeCredentialTestResult> {
	const loader = await loadPackage();
	const credentialType = loader.getCredential(CREDENTIAL_TYPE).type;
	const test = credentialType.test as ICredentialTestRequest;
	const decrypted: ICredentialsDecrypted = {
		id: 'cred-1',
		name: 'Transcription Service account',
		type: CREDENTIAL_TYPE,
		data: fixtureCredentials(credentials)[CREDENTIAL_TYPE],
	};

	// CredentialsTester: n8n-nodes-base.noOp's description, with the credential and one property routing the request.
	const nodeType: INodeType = {
		description: {
			displayName: 'No Operation, do nothing',
			name: 'n8n-nodes-base.noOp',
			group: ['organization'],
			version: 1,
			description: 'No Operation',
			defaults: { name: 'No Operation, do nothing' },
			inputs: ['main'],
			outputs: ['main'],
			credentials: [{ name: CREDENTIAL_TYPE, required: true }],
			properties: [
				{
					displayName: 'Temp',
					name: 'temp',
					type: 'string',
					routing: { request: test.request },
					default: '',
				},
			],
		},
	};
	const nodeTypes: INodeTypes = {
		getKnownTypes: () => ({}),
		getByName: () => nodeType,
		getByNameAndVersion: (_type, version) => NodeHelpers.getVersionedNodeType(nodeType, version),
	};
	const node: INode = {
		id: 'temp',
		parameters: {},
		name: 'Temp-Node',
		type: nodeType.description.name,
		typeVersion: 1,
		position: [0, 0],
		credentials: { [CREDENTIAL_TYPE]: { id: decrypted.id, name: decrypted.name } },
	};
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	const runExecutionData: IRunExecutionData = { resultData: { runData: {} } } as IRunExecutionData;
	const additionalData = engineAdditionalData({
		executionId: 'credential-test',
		credentialsHelper: new FixtureCredentialsHelper(loader, fixtureCredentials(credentials)),
	});
	const executeData: IExecuteData = { node, data: {}, source: null };
	const context = new ExecuteContext(
		workflow,
		node,
		additionalData,
		'internal',
		runExecutionData,
		0,
		[],
		{ main: [[{ json: {} }]] },
		executeData,
		[],
	);
	const routingNode = new RoutingNode(context, nodeType, decrypted);

	let response: INodeExecutionData[][] | null | undefined;
	try {
		response = await routingNode.runNode();
	} catch (caught) {
		const error = caught as ErrorWithCause;
		if (error.cause?.response) {
			const { status, statusText } = error.cause.response;
			for (const rule of test.rules ?? []) {
				if (rule.type === 'responseCode' && status === rule.properties.value)
					return { status: 'Error', message: rule.properties.message };
			}
			if (status < 199 || status > 299)
				return { status: 'Error', message: statusText || `Received HTTP status code: ${status}` };
		} else if (error.cause?.code) {
			return { status: 'Error', message: error.cause.code };
		}
		return { status: 'Error', message: error.message.toString() };
	}
	for (const rule of test.rules ?? []) {
		if (rule.type !== 'responseSuccessBody') continue;
		if (valueAt(response?.[0][0].json, rule.properties.key) === rule.properties.value)
			return { status: 'Error', message: rule.properties.message };
	}
	return { status: 'OK', message: 'Connection successful!' };
}
