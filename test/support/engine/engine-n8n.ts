// Which n8n modules the engine tier runs on: the project's n8n-core and n8n-workflow (jest.config.js), or the newest
// the registry serves (test/engine/jest.latest.config.js, `npm run test:engine:latest`). Each config sets the global;
// engine-versions.test.ts checks that the modules loaded are that copy.

declare const tssEngineN8n: { install: 'project' | 'latest'; modules: string };

export const engineN8n = tssEngineN8n;
