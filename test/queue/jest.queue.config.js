// The queue-mode suite: one n8n cluster (main, two workers, two webhook processors, PostgreSQL, Redis, router) per
// jest run, for the version QUEUE_N8N_VERSION names. Run it through `npm run test:queue`, which installs what is
// missing, builds the pack and runs each version. The root jest config does not list test/queue, so `npm test` never
// starts a cluster.
const path = require('node:path');

const rootDir = path.resolve(__dirname, '../..');

/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	rootDir,
	roots: ['<rootDir>/test/queue'],
	testMatch: ['**/*.test.ts'],
	modulePathIgnorePatterns: ['<rootDir>/test/e2e/n8n-', '<rootDir>/test/e2e/.work/'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }],
	},
	testTimeout: 900000,
	maxWorkers: 1,
};
