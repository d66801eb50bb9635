// Jest's Node environment, with the cluster global-setup.ts started on each file's globalThis (queueSuite() reads
// it). It is the same live object only when the files run in jest's own process: the config runs them in band.
import { TestEnvironment } from 'jest-environment-node';

export default class QueueEnvironment extends TestEnvironment {
	constructor(...args: ConstructorParameters<typeof TestEnvironment>) {
		super(...args);
		this.global.tssQueueSuite = globalThis.tssQueueSuite;
	}
}
