const path = require('node:path');

/** What every tier of `npm test` shares; `name` is the tier's folder under test/. */
function tier(name, own = {}) {
	return {
		displayName: name,
		testEnvironment: 'node',
		rootDir: __dirname,
		roots: [`<rootDir>/test/${name}`],
		testMatch: ['**/*.test.ts'],
		modulePathIgnorePatterns: [
			'<rootDir>/test/engine/n8n-core-latest/',
			'<rootDir>/test/engine/.work/',
		],
		transform: {
			'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }],
		},
		setupFiles: ['<rootDir>/test/support/engine/setup-env.ts'],
		...own,
	};
}

/**
 * The tiers that read the built package: dist/ is rebuilt first when it is older than its sources. Jest runs a
 * project's global setup only when one of its tests is selected, so `jest test/unit` builds nothing.
 */
const readsDist = { globalSetup: '<rootDir>/test/support/build/global-setup.ts' };

/** @type {import('jest').Config} */
module.exports = {
	rootDir: __dirname,
	// `npm test` runs these tiers; e2e, queue and reliability need real n8n or run for long: each has its own config
	// and npm script (test/README.md).
	projects: [
		tier('unit'),
		tier('sandbox-service'),
		tier('engine', {
			...readsDist,
			// Which n8n-core / n8n-workflow the engine tier runs on (engine-versions.test.ts checks it was really that one).
			globals: {
				tssEngineN8n: { install: 'project', modules: path.join(__dirname, 'node_modules') },
			},
		}),
		tier('docs', readsDist),
		tier('release', readsDist),
	],
	// What the engine tier proved, for the README's version table (npm run versions:table).
	reporters: [
		'default',
		[
			'<rootDir>/test/support/results-reporter.js',
			{
				kind: 'engine',
				id: 'project',
				only: `${path.sep}test${path.sep}engine${path.sep}`,
				modules: path.join(__dirname, 'node_modules'),
				output: path.join(__dirname, 'test/engine/.work/results/project.json'),
			},
		],
	],
	// Two files at a time on two cores (jest's default is cores − 1: one, in band): most engine and sandbox files spend
	// their time in I/O on loopback; every file starts its sandboxes and servers on port 0, and what tiers share on disk
	// (the scanner's install, npm's cache) takes a lock. test/README.md gives the figures.
	maxWorkers: '100%',
	testSequencer: '<rootDir>/test/support/test-order.js',
	testTimeout: 60000,
};
