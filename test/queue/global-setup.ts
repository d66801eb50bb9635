// Starts the queue-mode cluster and its services once for every file of this jest run (the n8n version
// QUEUE_N8N_VERSION names); test-environment.ts hands them to each file, global-teardown.ts stops them.
import { startQueueSuite } from '../support/queue/shared-cluster';

export default async function globalSetup(): Promise<void> {
	globalThis.tssQueueSuite = await startQueueSuite();
}
