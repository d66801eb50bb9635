// Stops what global-setup.ts started (jest shares globalThis between the two).
export default async function globalTeardown(): Promise<void> {
	await globalThis.tssE2eEnvironment?.stop();
	globalThis.tssE2eEnvironment = undefined;
}
