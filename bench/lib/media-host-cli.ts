// The test media host (test/support/media/media-host.ts) in a process of its own, for benchmark P9: what it costs to
// generate and send a 1 GiB file is not counted in the measuring process. Prints one JSON line with its origins, then
// serves until it is stopped.
import { startMediaHost } from '../../test/support/media/media-host';
import { runMain } from './run-main';

async function main(): Promise<void> {
	const host = await startMediaHost();
	process.stdout.write(
		`${JSON.stringify({ origin: host.origin, otherOrigin: host.otherOrigin })}\n`,
	);
	await new Promise<void>((resolve) => process.once('SIGTERM', () => resolve()));
	await host.close();
}

runMain(main);
