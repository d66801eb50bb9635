// Stops what global-setup.ts started (jest shares globalThis between the two) and writes the figures every file
// measured to one results file.
import { stopQueueSuite } from '../support/queue/shared-cluster';

export default async function globalTeardown(): Promise<void> {
	const suite = globalThis.tssQueueSuite;
	globalThis.tssQueueSuite = undefined;
	if (suite) await stopQueueSuite(suite);
}
