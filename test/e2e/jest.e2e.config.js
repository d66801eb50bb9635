// The real-n8n suite: one n8n per jest run (E2E_N8N_VERSION), suites in band. Run it through
// `npm run test:e2e`, which installs n8n, builds the pack and runs the version matrix.
const path = require('node:path');

const rootDir = path.resolve(__dirname, '../..');
const versionId = process.env.E2E_N8N_VERSION ?? 'unknown';
const workDir = path.join(__dirname, '.work');

/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	rootDir,
	roots: ['<rootDir>/test/e2e'],
	testMatch: ['**/*.test.ts'],
	testPathIgnorePatterns: ['/node_modules/', '/test/e2e/n8n-'],
	modulePathIgnorePatterns: ['<rootDir>/test/e2e/n8n-', '<rootDir>/test/e2e/.work/'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }],
	},
	globalSetup: '<rootDir>/test/e2e/global-setup.ts',
	globalTeardown: '<rootDir>/test/e2e/global-teardown.ts',
	// What this version proved, for the README's version table (npm run versions:table).
	reporters: [
		'default',
		[
			'<rootDir>/test/support/results-reporter.js',
			{
				kind: 'e2e',
				id: versionId,
				contextFile: path.join(workDir, versionId, 'context.json'),
				output: path.join(workDir, 'results', `${versionId}.json`),
			},
		],
	],
	testTimeout: 300000,
	maxWorkers: 1,
};
