// Which n8n modules the engine tier runs on (jest.config.js and test/engine/jest.latest.config.js set the global), and
// the one test that depends on it: `npm test` runs every engine test on the project's n8n-core; the second pass on the
// newest n8n-core (npm run test:engine:latest, a CI step) leaves out the scenarios that spend their time in the node's
// own waiting — watcher back-off, deadline retries, large batches — since every n8n-facing step they take is also taken
// by the shorter tests of the same subject there (engine/pause-until-webhook*.test.ts). It keeps CI within its time
// budget.

declare const tssEngineN8n: { install: 'project' | 'latest'; modules: string };

export const engineN8n = tssEngineN8n;

/** `it`, but only on the project's n8n-core: for long waiting scenarios (see above). */
export const itOnProjectN8nOnly: jest.It = tssEngineN8n.install === 'latest' ? it.skip : it;
