// The queue-mode suite: one n8n cluster (main, two workers, two webhook processors, PostgreSQL, Redis, router) per
// jest run, for the version QUEUE_N8N_VERSION names, started by the global setup and shared by every file through the
// environment (in band: the files reach the objects the setup made). Run it through `npm run test:queue`, which
// installs what is missing, builds the pack and runs each version. The root jest config does not list test/queue, so
// `npm test` never starts a cluster.
const path = require('node:path');

const rootDir = path.resolve(__dirname, '../..');

/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: '<rootDir>/test/queue/test-environment.ts',
	rootDir,
	roots: ['<rootDir>/test/queue'],
	testMatch: ['**/*.test.ts'],
	modulePathIgnorePatterns: ['<rootDir>/test/e2e/n8n-', '<rootDir>/test/e2e/.work/'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }],
	},
	globalSetup: '<rootDir>/test/queue/global-setup.ts',
	globalTeardown: '<rootDir>/test/queue/global-teardown.ts',
	testTimeout: 900000,
	maxWorkers: 1,
};
