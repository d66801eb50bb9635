// Which n8n-core, n8n-workflow and @n8n/di this run of the engine tier really uses: the project's own dev
// dependencies (`npm test`) or the side install of the newest ones (`npm run test:engine:latest`). The tests, n8n-core
// and the built package that n8n's loader requires from dist/ must all share that one copy, or the `latest` run would
// silently test the old n8n.
import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';

import { actionNode, PACKAGE_DIR, runWorkflow } from '../support/engine/harness';
import { engineN8n } from '../support/engine/engine-n8n';

const SHARED_MODULES = ['n8n-core', 'n8n-workflow', '@n8n/di'] as const;
const modulesFolder = realpathSync(engineN8n.modules);

function installedVersion(name: string): string {
	const manifest = path.join(modulesFolder, name, 'package.json');
	return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

/** The package folder a require of `name` from `fromFolder` reaches, through the resolver of this jest run. */
function resolvedPackage(name: string, fromFolder: string): { folder: string; version: string } {
	let folder = path.dirname(require.resolve(name, { paths: [fromFolder] }));
	for (;;) {
		try {
			const manifest = JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8')) as {
				name?: string;
				version: string;
			};
			if (manifest.name === name)
				return { folder: realpathSync(folder), version: manifest.version };
		} catch {
			// No package.json at this level (dist/ folders): keep climbing.
		}
		const parent = path.dirname(folder);
		if (parent === folder) throw new Error(`No package.json of ${name} above ${fromFolder}`);
		folder = parent;
	}
}

describe(`engine tier on the ${engineN8n.install} n8n modules`, () => {
	const importers = {
		'the engine tests': __dirname,
		'the built action node': path.join(PACKAGE_DIR, 'dist/nodes/TranscriptionService'),
		'the built trigger node': path.join(PACKAGE_DIR, 'dist/nodes/TranscriptionServiceTrigger'),
		'the built credential': path.join(PACKAGE_DIR, 'dist/credentials'),
	};

	describe.each(SHARED_MODULES)('%s', (name) => {
		test.each(Object.entries(importers))('%s load the installed copy', (_importer, folder) => {
			const resolved = resolvedPackage(name, folder);
			expect(resolved.folder).toBe(path.join(modulesFolder, name));
			expect(resolved.version).toBe(installedVersion(name));
		});
	});

	test('n8n-core resolves the same n8n-workflow and @n8n/di', () => {
		const core = resolvedPackage('n8n-core', __dirname).folder;
		expect(resolvedPackage('n8n-workflow', core).folder).toBe(
			path.join(modulesFolder, 'n8n-workflow'),
		);
		expect(resolvedPackage('@n8n/di', core).folder).toBe(path.join(modulesFolder, '@n8n/di'));
	});

	test('the built node runs in this engine and fails with its own NodeOperationError', async () => {
		const result = await runWorkflow({
			nodes: [actionNode({ resource: 'account', operation: 'get' })],
			credentials: { apiKey: 'svc_sk_live_versionCheck00000000000001', baseUrl: 'ftp://127.0.0.1' },
		});

		// n8n-core keeps the error's fields, not its class: its name shows the node's own error was not rewrapped.
		expect(result.error?.name).toBe('NodeOperationError');
		expect(result.error?.message).toBe(
			"The credential's Base URL must start with http:// or https://",
		);
	});
});
