// Which n8n modules the engine tier runs on (jest.config.js and test/engine/jest.latest.config.js set the global), and
// which scenarios a shorter pass leaves out. `npm test` runs every engine test on the project's n8n-core. The second pass
// on the newest n8n-core (npm run test:engine:latest, a CI step) and the pull-request workflow
// (TSS_ENGINE_PROFILE=short, .github/workflows/ci.yml) leave out the scenarios that spend their time in the node's own
// waiting — watcher back-off, deadline retries, large batches — since every n8n-facing step they take is also taken by
// the shorter tests of the same subject there (engine/pause-until-webhook*.test.ts). It keeps CI within its time budget
// and a pull request's checks within 10 minutes.

declare const tssEngineN8n: { install: 'project' | 'latest'; modules: string };

export const engineN8n = tssEngineN8n;

/** `it` for a long waiting scenario (see above): left out on the newest n8n-core and in the short profile. */
export const itWaitingLong: jest.It =
	tssEngineN8n.install === 'latest' || process.env.TSS_ENGINE_PROFILE === 'short' ? it.skip : it;
