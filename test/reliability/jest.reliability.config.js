// `npm run test:reliability`: the counted-outcome matrices of issue 7. Its files end in `.reliability.ts`
// so the main `npm test` (which matches `*.test.ts`) never picks them up.
/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	rootDir: '../..',
	roots: ['<rootDir>/test/reliability'],
	testMatch: ['**/*.reliability.ts'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }],
	},
	setupFiles: ['<rootDir>/test/setup-env.ts'],
	// One file at a time: each starts its own sandbox and engine, and the machine is small.
	maxWorkers: 1,
	testTimeout: 10 * 60 * 1000,
	forceExit: true,
};
