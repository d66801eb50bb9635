const path = require('node:path');

/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	rootDir: __dirname,
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	// `npm test` runs every tier but these three, which need real n8n or run for long: each has its own config and
	// npm script (test/README.md).
	testPathIgnorePatterns: ['/node_modules/', '/test/e2e/', '/test/queue/', '/test/reliability/'],
	modulePathIgnorePatterns: [
		'<rootDir>/test/engine/n8n-core-latest/',
		'<rootDir>/test/engine/.work/',
	],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }],
	},
	setupFiles: ['<rootDir>/test/support/engine/setup-env.ts'],
	// The engine tier loads the built package: dist/ is rebuilt first when it is older than its sources.
	globalSetup: '<rootDir>/test/engine/global-setup.ts',
	// Which n8n-core / n8n-workflow the engine tier runs on (engine-versions.test.ts checks it was really that one).
	globals: { tssEngineN8n: { install: 'project', modules: path.join(__dirname, 'node_modules') } },
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
	testTimeout: 60000,
};
