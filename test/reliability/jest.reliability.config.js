// `npm run test:reliability`: the counted-outcome matrices (R1–R5, docs/reliability.md). The root jest config does not list
// test/reliability, so `npm test` never runs them.
/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	rootDir: '../..',
	roots: ['<rootDir>/test/reliability'],
	testMatch: ['**/*.test.ts'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }],
	},
	setupFiles: ['<rootDir>/test/support/engine/setup-env.ts'],
	// One file at a time: each starts its own sandbox and engine, and the machine is small.
	maxWorkers: 1,
	testTimeout: 10 * 60 * 1000,
	forceExit: true,
};
