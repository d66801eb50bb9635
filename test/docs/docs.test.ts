// Every statement of README.md, docs/*.md, examples/README.md and test/README.md that the code can check: links and
// anchors resolve, every picture under docs/ is shown somewhere, repository paths exist, `npm run` scripts exist, node
// fields and options are named as the built nodes name them (n8n's own UI names are listed below), a default stated
// beside a field name is the node's, field tables give the nodes' defaults and name every field, the node reference
// names every error code the nodes can emit, and README → Install's commands agree with each other and with
// `npm run pack:n8n`. A UI name is written in italics (*Wait Mode*, *Options* → *Max Wait (Seconds)*), so a renamed
// field or a page that uses italics for anything else fails here; bold names are checked where they can only be field
// names (**Options → X**) or are a field name cut short (**Max Wait** for *Max Wait (Seconds)*).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

import semver from 'semver';

import { markdownAnchors as anchors } from '../../scripts/documentation-links';
import { installSteps, tarballName } from '../../scripts/install-steps';
import { ERROR_CODES } from '../../src/service/error-catalogue';

const ROOT = path.resolve(__dirname, '../..');
const README = 'README.md';
const PAGES = [
	README,
	...readdirSync(path.join(ROOT, 'docs'))
		.filter((file) => file.endsWith('.md'))
		.map((file) => `docs/${file}`),
	'examples/README.md',
	'test/README.md',
];
const MAX_README_LINES = 250;

/** Labels of n8n's own editor that the pages name: n8n shows them, the pack's descriptions do not. */
const N8N_UI_NAMES = new Set([
	'Authentication',
	'Community Nodes',
	'Continue (using error output)',
	'Docs',
	'Every Minute',
	'Execute workflow',
	'Feed URL',
	'Fetch Test Event',
	'If',
	'Import from File',
	'Install',
	'Listen for test event',
	'On Error',
	'On Webhook Call',
	'Poll Times',
	'Production URL',
	'Read/Write Files from Disk',
	'Remove Duplicates',
	'Retry On Fail',
	'RSS Feed Trigger',
	'Settings',
	'Stop Workflow',
	'Test URL',
	'Wait',
	'Webhook URLs',
	'Workflows',
	'Write Files to Disk',
]);

interface Property {
	displayName: string;
	name: string;
	type: string;
	default?: unknown;
	options?: Array<
		{
			name?: string;
			value?: unknown;
			displayName?: string;
			values?: Property[];
		} & Partial<Property>
	>;
	modes?: Array<{ displayName: string }>;
	displayOptions?: { show?: Record<string, unknown[]> };
}

interface Described {
	description: { name: string; displayName: string; properties: Property[] };
}

/** The built package's nodes and credentials, as n8n loads them (package.json → n8n), every node version. */
function builtDescriptions(): Described['description'][] {
	const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
		n8n: { nodes: string[]; credentials: string[] };
	};
	const descriptions: Described['description'][] = [];
	const load = createRequire(__filename);
	for (const file of [...manifest.n8n.credentials, ...manifest.n8n.nodes]) {
		const built = path.join(ROOT, file);
		if (!existsSync(built)) throw new Error(`${file} is missing: run \`npm run build\` first`);
		for (const exported of Object.values(load(built) as Record<string, new () => unknown>)) {
			const instance = new exported() as Partial<Described> & {
				nodeVersions?: Record<string, Described>;
			} & Described['description'];
			if (instance.nodeVersions) {
				descriptions.push(...Object.values(instance.nodeVersions).map((node) => node.description));
			} else {
				descriptions.push(instance.description ?? instance);
			}
		}
	}
	return descriptions;
}

/** Every property of a description, collections' and fixed collections' entries included. */
function* allProperties(properties: Property[]): Generator<Property> {
	for (const property of properties) {
		yield property;
		for (const option of property.options ?? []) {
			if (option.values) yield* allProperties(option.values);
			else if (option.type) yield* allProperties([option as Property]);
		}
	}
}

/** The names the editor shows for a node: its own, its fields', their options' and locator modes'. */
function uiNames(description: Described['description']): Set<string> {
	const names = new Set([description.displayName]);
	for (const property of allProperties(description.properties)) {
		names.add(property.displayName);
		for (const option of property.options ?? []) {
			if (option.displayName) names.add(option.displayName);
			else if (option.name && !option.type) names.add(option.name);
		}
		for (const mode of property.modes ?? []) names.add(mode.displayName);
	}
	return names;
}

const descriptions = builtDescriptions();
const namesOf = new Map(descriptions.map((description) => [description.name, new Set<string>()]));
for (const description of descriptions) {
	for (const name of uiNames(description)) namesOf.get(description.name)?.add(name);
}
/** Node names of the example workflows, which the pages name in italics too. */
const exampleNodeNames = new Set(
	readdirSync(path.join(ROOT, 'examples'))
		.filter((file) => file.endsWith('.json'))
		.flatMap((file) =>
			(
				JSON.parse(readFileSync(path.join(ROOT, 'examples', file), 'utf8')) as {
					nodes: Array<{ name: string }>;
				}
			).nodes.map((node) => node.name),
		),
);
const everyName = new Set([
	...N8N_UI_NAMES,
	...exampleNodeNames,
	...[...namesOf.values()].flatMap((names) => [...names]),
]);

const read = (page: string) => readFileSync(path.join(ROOT, page), 'utf8');
const withoutFences = (text: string) => text.replace(/^```[\s\S]*?^```/gm, '');
const withoutCode = (text: string) => withoutFences(text).replace(/`[^`\n]*`/g, '');
const codeSpans = (text: string) =>
	[...withoutFences(text).matchAll(/`([^`\n]+)`/g)].map((match) => match[1]);

/** Markdown links and images: [text](target) and ![alt](target), outside code. */
function links(markdown: string): string[] {
	return [...withoutCode(markdown).matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)].map((match) => match[1]);
}

/** Italic spans (UI names), outside code and link targets; bold markers are not italics. */
function italics(markdown: string): string[] {
	const text = withoutCode(markdown)
		.replace(/\]\([^)]*\)/g, ']')
		.replace(/\*\*/g, '');
	return [
		...text.matchAll(/(?<![\w*])\*(?![\s*])([^*\n]+?)(?<!\s)\*(?![\w*])/g),
		...text.matchAll(/(?<![\w])_(?![\s_])([^_\n]+?)(?<!\s)_(?!\w)/g),
	].map((match) => match[1]);
}

/** Bold spans, outside code and link targets. */
function bolds(markdown: string): string[] {
	const text = withoutCode(markdown).replace(/\]\([^)]*\)/g, ']');
	return [...text.matchAll(/\*\*(?!\s)([^*\n]+?)(?<!\s)\*\*/g)].map((match) => match[1]);
}

/** Field names with a unit, "Max Wait (Seconds)", by the name without it, "Max Wait" (several words only). */
const SHORTENED = new Map(
	[...everyName]
		.map((name) => [/^(\S+ [^()]+?) \([^()]+\)$/.exec(name)?.[1], name] as const)
		.filter(
			(entry): entry is readonly [string, string] =>
				entry[0] !== undefined && !everyName.has(entry[0]),
		),
);

/** Every property of every node and the credential, by the name the editor shows. */
const propertiesByName = new Map<string, Property[]>();
for (const description of descriptions) {
	for (const property of allProperties(description.properties)) {
		if (property.type === 'notice') continue;
		propertiesByName.set(property.displayName, [
			...(propertiesByName.get(property.displayName) ?? []),
			property,
		]);
	}
}

/** A repository path in a code span: `<x>` and `*` match any name, `{a,b}` either. */
const REPO_PATH =
	/^(?:(?:credentials|nodes|src|sandbox|openapi|examples|test|bench|scripts|docs|icons|dist|\.ci|\.github)\/\S*|package\.json|package-lock\.json|CHANGELOG\.md|README\.md|LICENSE|tsconfig\.json|eslint\.config\.mjs|\.npmrc)$/;
/** Folders runs create and git ignores: named in the pages, absent from a clone. */
const GENERATED = /(^|\/)\.work(\/|$)/;

function pathExists(pattern: string): boolean {
	const alternatives = /\{([^}]*)\}/.exec(pattern);
	if (alternatives) {
		return alternatives[1]
			.split(',')
			.every((choice) => pathExists(pattern.replace(alternatives[0], choice)));
	}
	let folders = [ROOT];
	const segments = pattern.replace(/\/$/, '').split('/');
	for (const segment of segments) {
		const wild = /[*<]/.test(segment);
		const matcher = new RegExp(
			`^${segment
				.replace(/<[^>]*>/g, '\ue000')
				.replace(/[.+?^$()|[\]\\]/g, '\\$&')
				.replace(/\*/g, '\ue000')
				.replace(/\ue000/g, '.*')}$`,
		);
		folders = folders.flatMap((folder) => {
			if (!wild) return existsSync(path.join(folder, segment)) ? [path.join(folder, segment)] : [];
			if (!existsSync(folder) || !statSync(folder).isDirectory()) return [];
			return readdirSync(folder)
				.filter((entry) => matcher.test(entry))
				.map((entry) => path.join(folder, entry));
		});
	}
	return folders.length > 0;
}

/** The default a field table states, as the editor shows the property's default. */
function shownDefault(property: Property): string {
	const value = property.default;
	const optionName = (option: unknown) =>
		property.options?.find((entry) => entry.value === option)?.name ?? String(option);
	if (typeof value === 'boolean') return value ? 'on' : 'off';
	if (Array.isArray(value)) return value.map(optionName).join(', ');
	if (property.type === 'options') return optionName(value);
	return String(value ?? '');
}
const plain = (cell: string) => cell.replace(/[*`]/g, '').trim();

/** Whether a stated default is the property's: as the editor shows it, an option's name without its note ("SRT" for
 * "SRT (Subtitles)"), or an expression without its leading "=". */
function statesDefault(property: Property, stated: string): boolean {
	const shown = plain(shownDefault(property));
	const short = (name: string) => name.replace(/ \([^()]*\)$/, '');
	return [
		shown,
		short(shown),
		shown.replace(/^=/, ''),
		shown.split(', ').map(short).join(', '),
	].includes(stated);
}

/** "Name (default X)", "Name 1–10 (default X)", "**Name** (on)", "Name (default X, …)" after a field name. */
function statedDefaults(markdown: string): Array<{ name: string; stated: string }> {
	const text = withoutFences(markdown).replace(/\]\([^)]*\)/g, ']');
	const names = [...propertiesByName.keys()].sort((a, b) => b.length - a.length);
	const found: Array<{ name: string; stated: string }> = [];
	for (const name of names) {
		const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
		const pattern = new RegExp(
			`(?<!\\w ?)(?:\\*{1,2})?${escaped}(?:\\*{1,2})?\\s*(?:\\d[\\d,]*–\\d[\\d,]*\\s*)?\\(([^()]*(?:\\([^()]*\\)[^()]*)*)\\)`,
			'g',
		);
		for (const [, inside] of text.matchAll(pattern)) {
			const value =
				/(?:^|[;,] )default ([^;,]+)$/.exec(inside)?.[1] ??
				/^default ([^;,]+)[;,]/.exec(inside)?.[1] ??
				(/^(on|off|\d[\d,]*)$/.test(inside) ? inside : undefined);
			if (value !== undefined) found.push({ name, stated: plain(value) });
		}
	}
	return found;
}

describe.each(PAGES)('%s', (page) => {
	const markdown = read(page);
	const folder = path.dirname(path.join(ROOT, page));

	it('links only to files and headings that exist', () => {
		const broken: string[] = [];
		for (const target of links(markdown)) {
			if (/^(https?|mailto):/.test(target)) continue;
			const [file, anchor] = target.split('#');
			const resolved = file
				? path.resolve(folder, decodeURIComponent(file))
				: path.join(ROOT, page);
			if (!existsSync(resolved)) {
				broken.push(`${target}: no such file`);
			} else if (anchor !== undefined) {
				if (!resolved.endsWith('.md'))
					broken.push(`${target}: an anchor into a file that is not Markdown`);
				else if (!anchors(readFileSync(resolved, 'utf8')).has(anchor))
					broken.push(`${target}: no heading with that anchor`);
			}
		}
		expect(broken).toEqual([]);
	});

	it('names only repository paths that exist', () => {
		const missing = codeSpans(markdown)
			.map((span) => span.replace(/^\.\//, ''))
			.filter((span) => REPO_PATH.test(span) && !GENERATED.test(span))
			.filter((span) => !pathExists(span));
		expect(missing).toEqual([]);
	});

	it('runs only npm scripts that package.json has', () => {
		const { scripts } = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
		const unknown = [...markdown.matchAll(/npm run ([\w:.-]+)/g)]
			.map((match) => match[1])
			.filter((script) => !(script in scripts));
		expect(unknown).toEqual([]);
	});

	it('writes in italics only names the editor shows (the nodes, n8n itself, the examples)', () => {
		const unknown = italics(markdown)
			.flatMap((span) => span.split(/\s+→\s+/))
			.filter((name) => !everyName.has(name));
		expect(unknown).toEqual([]);
	});

	it('writes bold only field names the nodes have, and no field name cut short', () => {
		const collections = new Set(
			[...propertiesByName.values()]
				.flat()
				.filter((property) => property.type === 'collection' || property.type === 'fixedCollection')
				.map((property) => property.displayName),
		);
		const problems: string[] = [];
		for (const span of bolds(markdown)) {
			const parts = span.split(/\s+→\s+/);
			if (parts.length > 1 && collections.has(parts[0])) {
				for (const part of parts.filter((name) => !everyName.has(name)))
					problems.push(`**${span}**: no field or option "${part}"`);
			}
			const full = SHORTENED.get(span);
			if (full) problems.push(`**${span}**: the field is "${full}"`);
		}
		// "Max Wait (s, …)": a shortened name with a parenthesis other than its unit. Longer names first, so "Poll
		// Interval" inside "Max Poll Interval (…)" is not looked at twice.
		const prose = withoutCode(markdown);
		const seen = new Set<number>();
		for (const [short, full] of [...SHORTENED].sort(([a], [b]) => b.length - a.length)) {
			const unit = full.slice(short.length);
			const escaped = short.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
			for (const match of prose.matchAll(new RegExp(`(?<!\\w)${escaped}(?: \\([^()]*\\))?`, 'g'))) {
				const end = match.index + match[0].length;
				if (seen.has(end)) continue;
				seen.add(end);
				if (match[0] !== short && match[0] !== `${short}${unit}`)
					problems.push(`"${match[0]}": the field is "${full}"`);
			}
		}
		expect(problems).toEqual([]);
	});

	it('states beside a field name only the default the node has', () => {
		const wrong = statedDefaults(markdown)
			.filter(
				({ name, stated }) =>
					!(propertiesByName.get(name) ?? []).some((property) => statesDefault(property, stated)),
			)
			.map(
				({ name, stated }) =>
					`${name}: default "${stated}", the node has ${[...new Set((propertiesByName.get(name) ?? []).map((property) => `"${shownDefault(property)}"`))].join(' or ')}`,
			);
		expect(wrong).toEqual([]);
	});

	it("gives each field table's node only its own fields, with the node's defaults", () => {
		const problems: string[] = [];
		for (const [, node, table] of markdown.matchAll(
			/<!-- fields: (\w+) -->\s*\n((?:\|.*\|\n?)+)/g,
		)) {
			const description = descriptions.find((candidate) => candidate.name === node);
			if (!description) {
				problems.push(`fields: ${node} is no node or credential of the package`);
				continue;
			}
			const own = new Set([...N8N_UI_NAMES, ...(namesOf.get(node) ?? [])]);
			for (const name of italics(table).flatMap((span) => span.split(/\s+→\s+/))) {
				if (!own.has(name)) problems.push(`${node}: no field or option "${name}"`);
			}
			const [header, , ...rows] = table.trim().split('\n');
			const defaultColumn = header
				.split('|')
				.map((cell) => cell.trim())
				.indexOf('Default');
			if (defaultColumn < 0) continue;
			for (const row of rows) {
				const cells = row.split('|').map((cell) => cell.trim());
				// "*Field*", or an option of a collection: "*Options* → *Field*".
				const field = /^(?:\*[^*]+\* → )*\*([^*]+)\*$/.exec(cells[1])?.[1];
				if (!field) continue;
				const matches = [...allProperties(description.properties)].filter(
					(property) => property.displayName === field,
				);
				const stated = plain(cells[defaultColumn]);
				if (!matches.some((property) => statesDefault(property, stated))) {
					problems.push(
						`${node} → ${field}: default "${stated}", the node has ${matches.map((property) => `"${shownDefault(property)}"`).join(' or ') || 'no such field'}`,
					);
				}
			}
		}
		expect(problems).toEqual([]);
	});

	it('names every field of the node in its field table (notices aside)', () => {
		const missing: string[] = [];
		for (const [, node, table] of markdown.matchAll(
			/<!-- fields: (\w+) -->\s*\n((?:\|.*\|\n?)+)/g,
		)) {
			const description = descriptions.find((candidate) => candidate.name === node);
			const named = new Set(italics(table).flatMap((span) => span.split(/\s+→\s+/)));
			for (const property of allProperties(description?.properties ?? [])) {
				if (property.type === 'notice') continue;
				if (['Resource', 'Operation'].includes(property.displayName)) continue;
				if (!named.has(property.displayName)) missing.push(`${node}: ${property.displayName}`);
			}
		}
		expect([...new Set(missing)]).toEqual([]);
	});
});

describe('README.md', () => {
	const readme = read(README);

	it(`is a user's guide of at most ${MAX_README_LINES} lines`, () => {
		expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(MAX_README_LINES);
	});

	it('links every page under docs/', () => {
		const linked = new Set(links(readme).map((target) => target.split('#')[0]));
		const unlinked = PAGES.filter((page) => page.startsWith('docs/')).filter(
			(page) => !linked.has(page),
		);
		expect(unlinked).toEqual([]);
	});
});

describe('README → Troubleshooting', () => {
	/** The messages the table quotes (“…”) in its first column, in the row that names `code`; “…” ends a shortened one. */
	function quotedIn(code: string): string[] {
		const section = read(README).split(/^## Troubleshooting$/m)[1] ?? '';
		const row = section
			.split('\n')
			.find((line) => line.startsWith('|') && line.includes(`\`${code}\``));
		return [...(row?.split('|')[1] ?? '').matchAll(/“([^”]+)”/g)].map((match) => match[1]);
	}

	async function rejection(promise: Promise<unknown>): Promise<string> {
		return await promise.then(
			() => 'no error',
			(error: Error) => error.message,
		);
	}

	it("quotes what the credential's test and a node show for a key without a known prefix", async () => {
		const load = createRequire(__filename);
		const credentials = {
			apiKey: 'sk_live_pasted_without_prefix',
			baseUrl: 'https://service.example',
		};
		const { TranscriptionServiceApi } = load(
			path.join(ROOT, 'dist/credentials/TranscriptionServiceApi.credentials.js'),
		) as {
			TranscriptionServiceApi: new () => {
				authenticate: (c: object, r: object) => Promise<unknown>;
			};
		};
		const inTest = await rejection(
			new TranscriptionServiceApi().authenticate(credentials, { url: '/api/v1/account' }),
		);
		const { readServiceSettings } = load(
			path.join(ROOT, 'dist/nodes/shared/transport/settings.js'),
		) as { readServiceSettings: (context: object) => Promise<unknown> };
		const inNode = await rejection(
			readServiceSettings({
				getCredentials: async () => credentials,
				getNode: () => ({
					name: 'Transcription Service',
					type: 'transcriptionService',
					typeVersion: 1,
				}),
			}),
		);
		const quoted = quotedIn('invalid_api_key_mode');
		const shown = (message: string) =>
			quoted.some((quote) =>
				quote.endsWith('…') ? message.startsWith(quote.slice(0, -1)) : message === quote,
			);
		expect({ inTest: shown(inTest), inNode: shown(inNode), quotes: quoted.length }).toEqual({
			inTest: true,
			inNode: true,
			quotes: 2,
		});
	});
});

describe('docs/ pictures', () => {
	it('are each shown or linked by a page (the editor e2e refreshes them; an unlinked one is stale)', () => {
		const linked = new Set(
			PAGES.flatMap((page) =>
				links(read(page))
					.filter((target) => !/^(https?|mailto):/.test(target))
					.map((target) =>
						path.relative(ROOT, path.resolve(ROOT, path.dirname(page), target.split('#')[0])),
					),
			),
		);
		const unlinked = readdirSync(path.join(ROOT, 'docs'))
			.filter((file) => /\.(png|jpe?g|gif|svg)$/.test(file))
			.map((file) => `docs/${file}`)
			.filter((file) => !linked.has(file));
		expect(unlinked).toEqual([]);
	});
});

describe('docs/nodes.md → Errors', () => {
	/** Every code a failed item, a node error or an artifact_error can carry: the service's codes, which the nodes
	 * pass on, and each `code: '…'` the nodes' source sets (a conditional one gives both of its codes). */
	function emittedCodes(): Set<string> {
		const codes = new Set<string>(Object.keys(ERROR_CODES));
		const sources = (folder: string): string[] =>
			readdirSync(path.join(ROOT, folder), { withFileTypes: true, recursive: true })
				.filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
				.map((entry) => path.join(entry.parentPath, entry.name));
		for (const file of [...sources('nodes'), ...sources('credentials')]) {
			for (const [, expression] of readFileSync(file, 'utf8').matchAll(/\bcode:\s*([^,\n}]+)/g)) {
				for (const [, code] of expression.matchAll(/'([a-z][a-z0-9]*(?:_[a-z0-9]+)+)'/g))
					codes.add(code);
			}
		}
		return codes;
	}

	it('lists every code the nodes can emit', () => {
		const section = read('docs/nodes.md').split(/^## Errors$/m)[1] ?? '';
		const listed = new Set(
			section
				.split('\n')
				.filter((line) => line.startsWith('| `'))
				.flatMap((line) => [...line.split('|')[1].matchAll(/`([^`]+)`/g)].map((match) => match[1])),
		);
		const codes = emittedCodes();
		expect(codes.size).toBeGreaterThan(30);
		expect([...codes].filter((code) => !listed.has(code)).sort()).toEqual([]);
	});
});

describe('README → Install', () => {
	const steps = installSteps();
	const [installLine] = steps['by-hand'];
	const readme = read(README);

	it('packs with npm run pack:n8n, which names the tarball the install lines name', () => {
		expect(steps.pack).toEqual(['npm run pack:n8n']);
		expect(read('scripts/pack-n8n.sh')).toContain("require('./package.json').name\").tgz");
		for (const step of ['by-hand', 'docker-exec', 'dockerfile'] as const) {
			expect(steps[step].join('\n')).toContain(tarballName());
		}
	});

	it("installs by hand in one line that creates n8n's nodes folder first", () => {
		expect(steps['by-hand']).toEqual([installLine]);
		expect(installLine).toMatch(
			/^mkdir -p ~\/\.n8n\/nodes && npm install --prefix ~\/\.n8n\/nodes --legacy-peer-deps /,
		);
		expect(installLine).toContain(`./${tarballName()}`);
	});

	it('installs the published package with --legacy-peer-deps too, so n8n keeps its own n8n-workflow', () => {
		const { name } = JSON.parse(read('package.json')) as { name: string };
		const installs = [
			...readme.matchAll(new RegExp(`npm install [^\`\\n]*${name}(?![\\w.-])`, 'g')),
		];
		expect(installs.length).toBeGreaterThan(0);
		for (const [command] of installs) expect(command).toContain('--legacy-peer-deps');
	});

	// CI has no Docker daemon: the Docker blocks are held to the tarball, the by-hand line and each other, not run.
	it('runs the same install line in a running container and in the Dockerfile', () => {
		expect(steps['docker-exec']).toEqual([
			`docker cp ${tarballName()} n8n:/tmp/`,
			`docker exec -w /tmp n8n sh -c '${installLine}'`,
			'docker restart n8n',
		]);
		expect(steps.dockerfile).toEqual([
			expect.stringMatching(/^FROM docker\.n8n\.io\/n8nio\/n8n:\S+$/),
			`COPY ${tarballName()} ./`,
			`RUN ${installLine}`,
		]);
	});

	it('builds the Dockerfile on an n8n the e2e suite proves, and says so', () => {
		const tag = /:(\S+)$/.exec(steps.dockerfile[0])?.[1];
		const proven = readdirSync(path.join(ROOT, 'test/e2e'))
			.filter((folder) => folder.startsWith('n8n-'))
			.map(
				(folder) =>
					(
						JSON.parse(read(`test/e2e/${folder}/package.json`)) as {
							dependencies: { n8n: string };
						}
					).dependencies.n8n,
			);
		expect(proven).toContain(tag);
		expect(readme.replace(/\s+/g, ' ')).toContain(`n8n ${tag}, the newest n8n the suites prove`);
		expect(proven.every((version) => semver.lte(version, tag!))).toBe(true);
	});

	it("runs the image it builds, with a volume at n8n's folder, as the container the other block installs into", () => {
		const [build, run] = steps['docker-run'];
		const image = /^docker build -t (\S+) \.$/.exec(build)?.[1];
		expect(image).toBeDefined();
		expect(run).toMatch(
			new RegExp(`^docker run .*--name n8n .*-v \\S+:/home/node/\\.n8n ${image}$`),
		);
		expect(steps['docker-run']).toHaveLength(2);
	});

	it('says that CI does not run the Docker blocks', () => {
		expect(readme.replace(/\s+/g, ' ')).toContain('CI has no Docker');
	});
});

describe("docs/releasing.md → Ready for n8n's verification", () => {
	const section =
		read('docs/releasing.md')
			.split(/^## Ready for n8n's verification$/m)[1]
			?.split(/^## /m)[0] ?? '';

	it("names every rule of n8n's community-nodes recommended set, with the version and count installed", () => {
		// An ES module: read in a child process (jest here loads CommonJS).
		const { version, rules } = JSON.parse(
			execFileSync(
				process.execPath,
				[
					'-e',
					"import('@n8n/eslint-plugin-community-nodes').then(({ n8nCommunityNodesPlugin: plugin }) => console.log(JSON.stringify({ version: plugin.meta.version, rules: Object.keys(plugin.configs.recommended.rules) })))",
				],
				{ cwd: ROOT, encoding: 'utf8' },
			),
		) as { version: string; rules: string[] };
		const names = rules.map((rule) => rule.slice(rule.lastIndexOf('/') + 1));
		expect(section).toContain(
			`all ${names.length} rules of \`@n8n/eslint-plugin-community-nodes\` ${version} \`recommended\``,
		);
		expect(names.filter((name) => !section.includes(`\`${name}\``))).toEqual([]);
	});

	it('gives the size of each n8n-nodes-base rule set n8n-node lint applies, and the rules it turns off', () => {
		const plugin = createRequire(__filename)('eslint-plugin-n8n-nodes-base') as {
			configs: Record<string, { rules: Record<string, unknown> }>;
		};
		const { version } = JSON.parse(
			read('node_modules/eslint-plugin-n8n-nodes-base/package.json'),
		) as { version: string };
		const text = section.replace(/\s+/g, ' ');
		expect(text).toContain(`\`eslint-plugin-n8n-nodes-base\` ${version}`);
		const config = read('eslint.config.mjs');
		const counted = (set: string) => Object.keys(plugin.configs[set].rules).length;
		expect(text).toMatch(
			new RegExp(`\`community\` set on package.json \\(${counted('community')} rules\\)`),
		);
		for (const [set, folder] of [
			['credentials', 'credentials'],
			['nodes', 'nodes'],
		]) {
			const off = (
				config
					.split(`files: ['./${folder}/**/*.ts']`)[1]
					?.split('},\n\t},')[0]
					.match(/: 'off'/g) ?? []
			).length;
			expect(text).toContain(
				`\`${set}\` on ${folder}/ (${counted(set)}, ${['none', 'one', 'two', 'three', 'four'][off]} turned off`,
			);
		}
	});
});
