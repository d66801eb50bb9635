// What `n8n-node build` does after tsc: copy icons and schema JSON next to the compiled nodes.
import { cp, mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';

const roots = ['nodes', 'credentials', 'icons'];
const isStatic = (file) => /\.(png|svg)$/.test(file) || /__schema__[\\/].*\.json$/.test(file);

async function* walk(dir) {
	for (const entry of await readdir(dir, { withFileTypes: true })) {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) yield* walk(full);
		else yield full;
	}
}

for (const root of roots) {
	for await (const file of walk(root)) {
		if (!isStatic(file)) continue;
		const dest = path.join('dist', file);
		await mkdir(path.dirname(dest), { recursive: true });
		await cp(file, dest);
	}
}
