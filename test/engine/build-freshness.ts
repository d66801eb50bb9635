// The engine tier (and the demo and benchmarks that share its harness) runs the built package in dist/, not the
// TypeScript sources: a dist/ older than its sources would test stale code. This says which outputs are stale.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** The folders `npm run build` compiles (tsconfig.json) or copies (scripts/copy-static.mjs) into dist/. */
const COMPILED_ROOTS = ['credentials', 'nodes', 'src'];
const STATIC_ROOTS = ['credentials', 'nodes', 'icons'];
const isStatic = (file: string) =>
	/\.(png|svg)$/.test(file) || /__schema__[\\/].*\.json$/.test(file);
/** Inputs every compiled file depends on. */
const BUILD_CONFIG = ['tsconfig.json'];

function* filesUnder(dir: string): Generator<string> {
	if (!existsSync(dir)) return;
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) yield* filesUnder(full);
		else yield full;
	}
}

/** Each source → the dist/ file built from it. */
function buildOutputs(root: string): Array<{ source: string; output: string }> {
	const outputs: Array<{ source: string; output: string }> = [];
	for (const folder of COMPILED_ROOTS) {
		for (const file of filesUnder(path.join(root, folder))) {
			const relative = path.relative(root, file);
			if (/\.ts$/.test(file) && !/\.d\.ts$/.test(file))
				outputs.push({
					source: relative,
					output: path.join('dist', relative.replace(/\.ts$/, '.js')),
				});
			else if (folder === 'nodes' && /\.json$/.test(file))
				outputs.push({ source: relative, output: path.join('dist', relative) });
		}
	}
	for (const folder of STATIC_ROOTS) {
		for (const file of filesUnder(path.join(root, folder))) {
			const relative = path.relative(root, file);
			if (isStatic(relative))
				outputs.push({ source: relative, output: path.join('dist', relative) });
		}
	}
	return outputs;
}

/** Why dist/ cannot be trusted (missing or older outputs), empty when every output is newer than its inputs. */
export function staleBuildReasons(root: string): string[] {
	const reasons: string[] = [];
	const modified = (file: string) => statSync(path.join(root, file)).mtimeMs;
	const configModified = Math.max(...BUILD_CONFIG.map(modified));
	for (const { source, output } of buildOutputs(root)) {
		if (!existsSync(path.join(root, output))) {
			reasons.push(`${output} is missing`);
			continue;
		}
		const outputModified = modified(output);
		if (outputModified < modified(source)) reasons.push(`${output} is older than ${source}`);
		else if (output.endsWith('.js') && outputModified < configModified)
			reasons.push(`${output} is older than tsconfig.json`);
	}
	return reasons;
}

/** One line for an error message: the first few reasons and how many more. */
export function describeStaleBuild(reasons: string[]): string {
	const shown = reasons.slice(0, 3).join('; ');
	return reasons.length > 3 ? `${shown}; and ${reasons.length - 3} more` : shown;
}
