// The engine, docs and release tiers (and the demo and benchmarks that share the engine harness) read the built
// package in dist/, not the TypeScript sources: a dist/ older than its sources would test stale code. This says which
// outputs are stale.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** The folders `npm run build` copies (scripts/copy-static.mjs) into dist/. */
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

/**
 * The sources tsc compiles: tsconfig.json's own files and everything they import (src/ only as far as the nodes
 * reach it), as TypeScript itself resolves the program. Packages are left unread (no lib, no types, node_modules
 * hidden from the host): they are not sources, and reading n8n-workflow's declarations took five times as long.
 */
function compiledSources(root: string): string[] {
	const configFile = path.join(root, 'tsconfig.json');
	const { config } = ts.readConfigFile(configFile, ts.sys.readFile);
	const parsed = ts.parseJsonConfigFileContent(config, ts.sys, root);
	const options: ts.CompilerOptions = { ...parsed.options, noLib: true, types: [] };
	const host = ts.createCompilerHost(options);
	const fileExists = host.fileExists.bind(host);
	// Relative to the root: a clone that itself lies under some node_modules/ still has sources.
	host.fileExists = (file) =>
		!path.relative(root, file).split(/[\\/]/).includes('node_modules') && fileExists(file);
	const program = ts.createProgram({ rootNames: parsed.fileNames, options, host });
	return program
		.getSourceFiles()
		.map((file) => path.relative(root, file.fileName))
		.filter((file) => !file.startsWith('..') && !file.includes('node_modules'))
		.filter((file) => /\.(ts|json)$/.test(file) && !/\.d\.ts$/.test(file));
}

/** Each source → the dist/ file built from it. */
function buildOutputs(root: string): Array<{ source: string; output: string }> {
	const outputs = compiledSources(root).map((source) => ({
		source,
		output: path.join('dist', source.replace(/\.ts$/, '.js')),
	}));
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

/**
 * Set by the tiers' global setup (global-setup.ts) to the package root once its dist/ matched the sources, so the
 * engine harness need not check again in every test file.
 */
export const DIST_VERIFIED = 'TSS_DIST_VERIFIED';

/** One line for an error message: the first few reasons and how many more. */
export function describeStaleBuild(reasons: string[]): string {
	const shown = reasons.slice(0, 3).join('; ');
	return reasons.length > 3 ? `${shown}; and ${reasons.length - 3} more` : shown;
}
