// `npm run test:engine:latest`: the engine tier (test/engine) a second time, against the newest n8n-core /
// n8n-workflow / @n8n/di the registry here serves (test/engine/n8n-core-latest/), resolved for every importer by
// latest-resolver.js. Run on Node 24 by scripts/engine/run-latest.sh; engine-versions.test.ts proves which copy loaded.
const path = require('node:path');
const root = require('../../jest.config.js');
const { sideInstall } = require('./latest-resolver.js');

const modules = path.join(sideInstall(), 'node_modules');
const engine = root.projects.find((project) => project.displayName === 'engine');

/** @type {import('jest').Config} */
module.exports = {
	...engine,
	maxWorkers: root.maxWorkers,
	testTimeout: root.testTimeout,
	resolver: '<rootDir>/test/engine/latest-resolver.js',
	globals: { tssEngineN8n: { install: 'latest', modules } },
	reporters: [
		'default',
		[
			'<rootDir>/test/support/results-reporter.js',
			{
				kind: 'engine',
				id: 'latest',
				modules,
				output: path.join(__dirname, '.work/results/latest.json'),
			},
		],
	],
};
