// Run before every build, as `n8n-node build` does: a file renamed or removed in the sources must not live on in dist/,
// where n8n and the engine tests would still load it.
import { rm } from 'node:fs/promises';

await rm('dist', { recursive: true, force: true });
