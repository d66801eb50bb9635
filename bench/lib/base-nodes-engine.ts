// Runs workflows made of n8n's own nodes (HTTP Request, Wait, IF, Merge, Loop Over Items) in n8n-core's
// WorkflowExecute, for the baselines a user would build without this pack. The nodes come from the
// n8n-nodes-base package of the e2e suite's n8n 2.8 install (or the install BENCH_N8N names, whose n8n-core then runs
// them: bench/lib/n8n-modules-of-install.cjs), loaded by n8n's own package loader; binary data lives in the same
// filesystem store the engine harness sets up.

import { existsSync, realpathSync } from 'node:fs';
import Module from 'node:module';
import path from 'node:path';
import { LazyPackageDirectoryLoader } from 'n8n-core';
import type { IConnections, INode, INodeExecutionData, IRun } from 'n8n-workflow';

import { executeInEngine, PackageNodeTypes } from '../../test/support/engine/harness';
import { isN8nVersionId, n8nInstall, type N8nVersionId } from '../../test/support/n8n/versions';

const PACKAGE_NAME = 'n8n-nodes-base';

/** The e2e install whose n8n-nodes-base runs the baselines: BENCH_N8N's, else n8n 2.8 (this repository's n8n-core). */
export function benchN8nVersion(): N8nVersionId {
	const requested = process.env.BENCH_N8N ?? '2.8';
	if (!isN8nVersionId(requested)) throw new Error(`BENCH_N8N names no e2e install: "${requested}"`);
	return requested;
}

/** n8n-nodes-base beside the e2e install's n8n (…/node_modules/n8n/bin/n8n), or null when n8n is not installed. */
function baseNodesDir(): string | null {
	try {
		const modules = path.resolve(path.dirname(n8nInstall(benchN8nVersion()).n8nBin), '../..');
		const directory = path.join(modules, 'n8n-nodes-base');
		return existsSync(path.join(directory, 'dist/types/nodes.json')) ? directory : null;
	} catch {
		return null;
	}
}

export function baseNodesAvailable(): boolean {
	return baseNodesDir() !== null;
}

type ResolveFilename = (
	request: string,
	parent: { filename?: string | null } | undefined,
	...rest: unknown[]
) => string;

/**
 * The engine checks `nodeType instanceof Node` (n8n-workflow's class) to decide how to call a node, so the nodes
 * must extend the engine's own n8n-workflow — as in n8n, where the install holds one copy. The e2e install has the
 * same versions (n8n-workflow 2.8.0, n8n-core 2.8.1) as this repository's; its nodes are pointed at ours.
 */
function shareEnginePackages(modulesDir: string): void {
	const shared = new Map(['n8n-workflow', 'n8n-core'].map((name) => [name, require.resolve(name)]));
	const internals = Module as unknown as { _resolveFilename: ResolveFilename };
	const resolve = internals._resolveFilename;
	internals._resolveFilename = function (this: unknown, request, parent, ...rest) {
		const ours = shared.get(request);
		if (ours && parent?.filename?.startsWith(modulesDir)) return ours;
		return resolve.call(this, request, parent, ...rest);
	};
}

let loaderPromise: Promise<LazyPackageDirectoryLoader> | undefined;

function loadBaseNodes(): Promise<LazyPackageDirectoryLoader> {
	loaderPromise ??= (async () => {
		const directory = baseNodesDir();
		if (!directory)
			throw new Error(
				`n8n-nodes-base is not installed: run scripts/e2e/install.sh ${benchN8nVersion()}`,
			);
		// Node names modules by their real path; the install is reached through a symlink.
		shareEnginePackages(realpathSync(path.dirname(directory)));
		const loader = new LazyPackageDirectoryLoader(directory);
		await loader.loadAll();
		return loader;
	})();
	return loaderPromise;
}

/** n8n-nodes-base's node types, for a workflow that mixes them with this package's (P9's two-node flow). */
export async function loadBaseNodeTypes(): Promise<PackageNodeTypes> {
	return new PackageNodeTypes(await loadBaseNodes(), PACKAGE_NAME);
}

export interface BaseWorkflow {
	nodes: Array<Omit<INode, 'id' | 'position'>>;
	connections: IConnections;
	/** The node the input items are handed to. */
	startNode: string;
	input: INodeExecutionData[];
	/** Stops the execution after this long, so a looping flow always ends. */
	cancelAfterMs: number;
}

let executionCounter = 0;

export async function runBaseWorkflow(definition: BaseWorkflow): Promise<IRun> {
	const loader = await loadBaseNodes();
	const nodes: INode[] = definition.nodes.map((node, index) => ({
		...node,
		id: `base-${index}`,
		position: [index * 200, 0],
	}));
	const startNode = nodes.find((node) => node.name === definition.startNode);
	if (!startNode) throw new Error(`no start node "${definition.startNode}"`);
	return await executeInEngine({
		workflowId: 'bench-base-workflow',
		executionId: `bench-base-${process.pid}-${++executionCounter}`,
		nodes,
		connections: definition.connections,
		nodeTypes: new PackageNodeTypes(loader, PACKAGE_NAME),
		startNode,
		input: definition.input,
		cancelAfterMs: definition.cancelAfterMs,
	});
}

/** Every item a node emitted on its first output, over all its runs (a node inside a loop runs many times). */
export function allRunItems(run: IRun, nodeName: string): INodeExecutionData[] {
	return (run.data.resultData.runData[nodeName] ?? []).flatMap(
		(taskData) => taskData.data?.main?.[0] ?? [],
	);
}
