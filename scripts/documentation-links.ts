// The documentation links the n8n editor shows — the credential dialog's docs link (the credential's
// `documentationUrl`) and each node's "Docs" link (its description's `documentationUrl`; its codex `.node.json` holds
// the same as `primaryDocumentation`, beside `credentialDocumentation`) — are built from one place, package.json's
// `repository.url`: a page and heading of this repository's docs/, on its default branch. The editor opens a node
// description's `documentationUrl` as it is, but appends `?utm_source=…` to a codex link, after its `#heading`, which
// then names no heading: so every node description carries one. Shipped code cannot read package.json when n8n runs it, so the links are
// written into those source files as plain strings, as n8n's lint and `n8n-node build` expect them: `npm run build`
// rewrites any that differ, `tsx scripts/documentation-links.ts --check` (and `npm run release:check`) fails on a
// stale one, and every page and heading named here must exist, or the build stops.
//
//   tsx scripts/documentation-links.ts [--check] [--root DIR]
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');

/** Where each credential's and node's documentation starts: a page of this repository and one of its headings. */
export const DOCUMENTATION_PAGES: Readonly<Record<string, string>> = {
	transcriptionServiceApi: 'docs/nodes.md#credentials',
	transcriptionServiceMediaLinkApi: 'docs/nodes.md#media-link-credential',
	transcriptionService: 'docs/nodes.md#operations',
	transcriptionServiceTrigger: 'docs/nodes.md#trigger',
	transcriptionServicePollingTrigger: 'docs/polling-trigger.md#using-it',
};

const CREDENTIAL = 'transcriptionServiceApi';
/** Each credential type and the file that declares it. */
const CREDENTIAL_FILES: Readonly<Record<string, string>> = {
	[CREDENTIAL]: 'credentials/TranscriptionServiceApi.credentials.ts',
	transcriptionServiceMediaLinkApi: 'credentials/TranscriptionServiceMediaLinkApi.credentials.ts',
};
/** `documentationUrl = '…'` in the credential class (prettier may break the line after `=`). */
const CREDENTIAL_LINK = /(\bdocumentationUrl =\s*')([^']*)(')/;
/** `documentationUrl: '…'` in a node's description. */
const NODE_LINK = /(\bdocumentationUrl:\s*')([^']*)(')/;

export interface Manifest {
	name: string;
	repository?: string | { url?: string };
}

/**
 * The web address of package.json's repository: `https://github.com/OWNER/REPO` for any form of GitHub URL npm
 * accepts, or the same on a host in the reserved `.invalid` domain, the placeholder a publisher replaces
 * (docs/releasing.md). Links are GitHub's (`/blob/HEAD/…`), so another host is refused.
 */
export function repositoryWebUrl(manifest: Manifest): string {
	const url =
		typeof manifest.repository === 'string' ? manifest.repository : manifest.repository?.url;
	if (!url) throw new Error('package.json has no repository.url: documentation links start there');
	const match =
		/^(?:git\+)?(?:https?|git|ssh):\/\/(?:git@)?(github\.com|[\w.-]+\.invalid)\/([\w.-]+)\/([\w.-]+?)(?:\.git)?\/?$/i.exec(
			url,
		) ?? /^(?:github:)?()([\w.-]+)\/([\w.-]+?)(?:\.git)?$/.exec(url);
	if (!match) {
		throw new Error(
			`repository.url ${url} is not a GitHub repository (or a .invalid placeholder): documentation links are GitHub pages`,
		);
	}
	return `https://${match[1] || 'github.com'}/${match[2]}/${match[3]}`;
}

/** A page of this repository as the repository's web address shows it, on the default branch. */
export const pageUrl = (manifest: Manifest, page: string): string =>
	`${repositoryWebUrl(manifest)}/blob/HEAD/${page}`;

/** The repository page (`docs/nodes.md#credentials`) a documentation URL points at, or null for any other address. */
export function pageOf(manifest: Manifest, url: string): string | null {
	const prefix = `${repositoryWebUrl(manifest)}/blob/HEAD/`;
	return url.startsWith(prefix) ? url.slice(prefix.length) : null;
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
export function markdownAnchors(markdown: string): Set<string> {
	const seen = new Map<string, number>();
	const result = new Set<string>();
	const outsideFences = markdown.replace(/^```[\s\S]*?^```/gm, '');
	for (const [, heading] of outsideFences.matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
		const text = heading
			.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
			.replace(/[`*]/g, '')
			.replace(/(^|\W)_|_(\W|$)/g, '$1$2');
		const base = text
			.toLowerCase()
			.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
			.replace(/ /g, '-');
		const count = seen.get(base) ?? 0;
		seen.set(base, count + 1);
		result.add(count === 0 ? base : `${base}-${count}`);
	}
	return result;
}

/** Why `page#anchor` does not resolve in this repository, or null when the file and the heading exist. */
export function unresolved(root: string, target: string): string | null {
	const [file, anchor] = target.split('#');
	const full = path.join(root, file);
	if (!existsSync(full)) return `${target}: no such file`;
	if (anchor !== undefined && !markdownAnchors(readFileSync(full, 'utf8')).has(anchor))
		return `${target}: no heading with that anchor`;
	return null;
}

export interface Link {
	file: string;
	/** What the link is: `documentationUrl`, or a codex resource such as `primaryDocumentation`. */
	field: string;
	/** The credential or node name it documents. */
	documents: string;
	current: string;
	expected: string;
}

interface Codex {
	node: string;
	resources?: Record<string, Array<{ url: string }>>;
}

/** Each node's folder under nodes/ (the ones holding `<Folder>.node.ts`). */
const nodeFolders = (root: string): string[] =>
	readdirSync(path.join(root, 'nodes'), { withFileTypes: true })
		.filter((entry) => entry.isDirectory())
		.map((entry) => `nodes/${entry.name}/${entry.name}`)
		.filter((stem) => existsSync(path.join(root, `${stem}.node.ts`)));

/** Every documentation link in the sources: what it is now and what package.json makes it. */
export function documentationLinks(root: string = ROOT): Link[] {
	const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as Manifest;
	const expectedFor = (name: string) => {
		const page = DOCUMENTATION_PAGES[name];
		if (!page) throw new Error(`no documentation page is named for ${name} (DOCUMENTATION_PAGES)`);
		return pageUrl(manifest, page);
	};
	const links: Link[] = Object.entries(CREDENTIAL_FILES).map(([credential, file]) => {
		const credentialLink = CREDENTIAL_LINK.exec(readFileSync(path.join(root, file), 'utf8'));
		if (!credentialLink) throw new Error(`${file} has no documentationUrl = '…'`);
		return {
			file,
			field: 'documentationUrl',
			documents: credential,
			current: credentialLink[2],
			expected: expectedFor(credential),
		};
	});
	for (const stem of nodeFolders(root)) {
		const file = `${stem}.node.json`;
		if (!existsSync(path.join(root, file)))
			throw new Error(`${file} is missing: every node has a codex`);
		const codex = JSON.parse(readFileSync(path.join(root, file), 'utf8')) as Codex;
		const [packageName, node] = codex.node.split('.');
		if (packageName !== manifest.name)
			throw new Error(`${file}: "node" is ${codex.node}, not ${manifest.name}.<node>`);
		const source = `${stem}.node.ts`;
		const nodeLink = NODE_LINK.exec(readFileSync(path.join(root, source), 'utf8'));
		if (!nodeLink) throw new Error(`${source} has no documentationUrl: '…' in its description`);
		links.push({
			file: source,
			field: 'documentationUrl',
			documents: node,
			current: nodeLink[2],
			expected: expectedFor(node),
		});
		for (const [field, documents] of [
			['primaryDocumentation', node],
			['credentialDocumentation', CREDENTIAL],
		] as const) {
			const entries = codex.resources?.[field] ?? [];
			if (entries.length !== 1) throw new Error(`${file}: resources.${field} needs one entry`);
			links.push({
				file,
				field,
				documents,
				current: entries[0].url,
				expected: expectedFor(documents),
			});
		}
	}
	return links;
}

/** The links that differ from what package.json makes them, one line each. */
export function staleLinks(root: string = ROOT): string[] {
	return documentationLinks(root)
		.filter((link) => link.current !== link.expected)
		.map(
			(link) =>
				`${link.file} ${link.field}: ${link.current}, package.json makes it ${link.expected}`,
		);
}

async function formatted(root: string, file: string, text: string): Promise<string> {
	const full = path.join(root, file);
	const { format, resolveConfig } = await import('prettier');
	return await format(text, { ...(await resolveConfig(full)), filepath: full });
}

/** Rewrites the stale links; returns the files it changed. */
export async function writeLinks(root: string = ROOT): Promise<string[]> {
	const stale = documentationLinks(root).filter((link) => link.current !== link.expected);
	const changed = [...new Set(stale.map((link) => link.file))];
	for (const file of changed) {
		const full = path.join(root, file);
		const source = readFileSync(full, 'utf8');
		let text: string;
		if (file.endsWith('.ts')) {
			const [link] = stale.filter((candidate) => candidate.file === file);
			text = source.replace(
				Object.values(CREDENTIAL_FILES).includes(file) ? CREDENTIAL_LINK : NODE_LINK,
				(_, before, _url, after) => `${before}${link.expected}${after}`,
			);
		} else {
			const codex = JSON.parse(source) as Codex;
			for (const link of stale.filter((candidate) => candidate.file === file))
				codex.resources![link.field] = [{ url: link.expected }];
			text = JSON.stringify(codex, null, '\t');
		}
		writeFileSync(full, await formatted(root, file, text));
	}
	return changed;
}

async function main(argv: string[]): Promise<number> {
	const at = argv.indexOf('--root');
	const root = at >= 0 ? path.resolve(argv[at + 1]) : ROOT;
	const broken = Object.values(DOCUMENTATION_PAGES)
		.map((target) => unresolved(root, target))
		.filter((problem): problem is string => problem !== null);
	for (const problem of broken) process.stderr.write(`documentation links: ${problem}\n`);
	if (broken.length > 0) return 1;
	if (argv.includes('--check')) {
		const stale = staleLinks(root);
		for (const line of stale) process.stderr.write(`documentation links: stale: ${line}\n`);
		return stale.length > 0 ? 1 : 0;
	}
	for (const file of await writeLinks(root))
		process.stderr.write(`documentation links: rewrote ${file} from package.json\n`);
	return 0;
}

if (require.main === module) {
	main(process.argv.slice(2)).then(
		(code) => process.exit(code),
		(error: unknown) => {
			process.stderr.write(
				`documentation links: ${error instanceof Error ? error.message : String(error)}\n`,
			);
			process.exit(1);
		},
	);
}
