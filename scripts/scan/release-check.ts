// `npm run release:check -- --tag vX.Y.Z --repository OWNER/REPO`: what must hold before a version is
// published, beside the scanner — the release workflow runs it first, and it can be run by hand before tagging.
//   - the tag is `v` + package.json's version, a SemVer version;
//   - CHANGELOG.md has a dated `## [X.Y.Z] - YYYY-MM-DD` section for it, with entries and no `TBD` left;
//   - package.json's author/repository/homepage/bugs hold no placeholder (`….invalid`), and repository.url
//     names the GitHub repository the workflow runs in: npm refuses provenance when it does not match, and
//     n8n's verification fetches the attested source from there;
//   - the documentation links the editor shows (credential, node codex) are the ones package.json's repository
//     makes (scripts/documentation-links.ts; `npm run build` writes them).
// Writes `name`, `version` and `dist-tag` (latest, or next for a prerelease) to $GITHUB_OUTPUT when set.
import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { staleLinks } from '../documentation-links';

export interface Manifest {
	name: string;
	version: string;
	author?: string | { name?: string; email?: string; url?: string };
	repository?: string | { type?: string; url?: string; directory?: string };
	homepage?: string;
	bugs?: string | { url?: string; email?: string };
}

/**
 * A value a publisher replaces before the first release (docs/releasing.md): an address in the reserved
 * `.invalid` top-level domain (RFC 2606), which never resolves. n8n's lint refuses `<placeholder>` values
 * and an author without an email, so this is the one form a placeholder can take in package.json.
 */
export const PLACEHOLDER = /\.invalid(?![\w-])/;

/** SemVer 2.0.0, the expression semver.org gives. */
const SEMVER =
	/^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

const GITHUB_URL =
	/^(?:git\+)?(?:https?|git|ssh):\/\/(?:git@)?github\.com\/([\w.-]+)\/([\w.-]+?)(?:\.git)?(?:[/#?].*)?$/i;
const GITHUB_SHORTHAND = /^(?:github:)?([\w.-]+)\/([\w.-]+?)(?:\.git)?$/;

export const isSemVer = (version: string): boolean => SEMVER.test(version);

/** `latest` for a release, `next` for a prerelease (so `npm install` never picks a release candidate). */
export const distTagFor = (version: string): 'latest' | 'next' =>
	version.split('+')[0].includes('-') ? 'next' : 'latest';

/** `owner/repo` of a GitHub URL in any form npm accepts in package.json, or null for anything else. */
export function githubRepositoryOf(url: string): string | null {
	const match = GITHUB_URL.exec(url) ?? GITHUB_SHORTHAND.exec(url);
	return match ? `${match[1]}/${match[2]}` : null;
}

const urlOf = (field: string | { url?: string } | undefined): string | undefined =>
	typeof field === 'string' ? field : field?.url;

/** The placeholders left in the fields a publisher fills in, e.g. `author.email: x@example.invalid`. */
export function placeholdersIn(manifest: Manifest): string[] {
	const found: string[] = [];
	const visit = (where: string, value: unknown) => {
		if (typeof value === 'string') {
			if (PLACEHOLDER.test(value)) found.push(`${where}: ${value}`);
		} else if (value && typeof value === 'object') {
			for (const [key, inner] of Object.entries(value)) visit(`${where}.${key}`, inner);
		}
	};
	for (const field of ['author', 'repository', 'homepage', 'bugs'] as const) {
		visit(field, manifest[field]);
	}
	return found;
}

/**
 * What stops npm provenance or n8n's package-source verification: placeholders left, a repository that is
 * not on GitHub, homepage/bugs on another GitHub repository (a docs site elsewhere is fine), or (given the
 * repository the workflow runs in) a repository.url that names a different one.
 */
export function packageSourceProblems(manifest: Manifest, runningIn?: string): string[] {
	const problems: string[] = [];
	const placeholders = placeholdersIn(manifest);
	if (placeholders.length > 0) {
		problems.push(
			`package.json still holds placeholders (docs/releasing.md): ${placeholders.join(', ')}`,
		);
	}
	const repositoryUrl = urlOf(manifest.repository);
	// A placeholder is named above; what it stands for cannot be checked yet.
	if (repositoryUrl && PLACEHOLDER.test(repositoryUrl)) return problems;
	if (!repositoryUrl) {
		problems.push(
			'package.json has no repository.url (docs/releasing.md): npm provenance and n8n verification need the public GitHub repository',
		);
		return problems;
	}
	const repository = githubRepositoryOf(repositoryUrl);
	if (!repository) {
		problems.push(
			`repository.url ${repositoryUrl} is not a GitHub repository (provenance is read from GitHub)`,
		);
		return problems;
	}
	for (const [field, url] of [
		['homepage', manifest.homepage],
		['bugs.url', urlOf(manifest.bugs)],
	] as const) {
		const other = url && !PLACEHOLDER.test(url) ? githubRepositoryOf(url) : null;
		if (other && other.toLowerCase() !== repository.toLowerCase()) {
			problems.push(`${field} ${url} is on ${other}, not on ${repository} (repository.url)`);
		}
	}
	if (runningIn && runningIn.toLowerCase() !== repository.toLowerCase()) {
		problems.push(
			`repository.url names ${repository} but this runs in ${runningIn}: npm refuses provenance that does not match`,
		);
	}
	return problems;
}

/** The body of CHANGELOG.md's `## [version] - date` section, or null when there is none. */
export function changelogSection(
	changelog: string,
	version: string,
): { date: string | null; body: string } | null {
	const lines = changelog.split('\n');
	const heading = /^## \[([^\]]+)\](?: - (\S+))?\s*$/;
	const start = lines.findIndex((line) => heading.exec(line)?.[1] === version);
	if (start < 0) return null;
	const rest = lines.slice(start + 1);
	const end = rest.findIndex((line) => line.startsWith('## ') || /^\[[^\]]+\]: /.test(line));
	return {
		date: heading.exec(lines[start])?.[2] ?? null,
		body: (end < 0 ? rest : rest.slice(0, end)).join('\n').trim(),
	};
}

export function releaseProblems(input: {
	manifest: Manifest;
	changelog: string;
	tag: string;
	runningIn?: string;
	/** Documentation links that differ from what package.json makes them (scripts/documentation-links.ts). */
	staleLinks?: string[];
}): string[] {
	const { manifest, changelog, tag, runningIn } = input;
	const problems: string[] = [];
	if (!isSemVer(manifest.version)) {
		problems.push(`package.json version ${manifest.version} is not a SemVer version`);
	}
	if (tag !== `v${manifest.version}`) {
		problems.push(`tag ${tag} is not v${manifest.version}, the version in package.json`);
	}
	const section = changelogSection(changelog, manifest.version);
	if (!section) {
		problems.push(`CHANGELOG.md has no "## [${manifest.version}] - YYYY-MM-DD" section`);
	} else {
		if (!section.date || !/^\d{4}-\d{2}-\d{2}$/.test(section.date)) {
			problems.push(`CHANGELOG.md's [${manifest.version}] section has no YYYY-MM-DD release date`);
		}
		if (!/^- /m.test(section.body)) {
			problems.push(`CHANGELOG.md's [${manifest.version}] section lists no changes`);
		}
		if (/\bTBD\b/.test(section.body)) {
			problems.push(`CHANGELOG.md's [${manifest.version}] section still has TBD entries`);
		}
	}
	for (const link of input.staleLinks ?? []) {
		problems.push(`documentation link not built from package.json (run npm run build): ${link}`);
	}
	return [...problems, ...packageSourceProblems(manifest, runningIn)];
}

/** The `key=value` lines the release workflow reads as this step's outputs. */
export function githubOutputs(manifest: Manifest): string {
	return `name=${manifest.name}\nversion=${manifest.version}\ndist-tag=${distTagFor(manifest.version)}\n`;
}

function main(argv: string[]): number {
	const option = (name: string) => {
		const at = argv.indexOf(name);
		return at >= 0 ? argv[at + 1] : undefined;
	};
	const tag = option('--tag');
	const runningIn = option('--repository');
	if (!tag || !runningIn) {
		process.stderr.write('usage: release-check --tag vX.Y.Z --repository OWNER/REPO\n');
		return 2;
	}
	const root = path.resolve(__dirname, '..', '..');
	const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as Manifest;
	const changelog = readFileSync(path.join(root, 'CHANGELOG.md'), 'utf8');
	const problems = releaseProblems({
		manifest,
		changelog,
		tag,
		runningIn,
		staleLinks: staleLinks(root),
	});
	if (problems.length > 0) {
		for (const problem of problems) process.stdout.write(`release check: ${problem}\n`);
		return 1;
	}
	process.stdout.write(
		`release check: ${manifest.name}@${manifest.version} from ${runningIn},` +
			` npm dist-tag ${distTagFor(manifest.version)}\n`,
	);
	if (process.env.GITHUB_OUTPUT) appendFileSync(process.env.GITHUB_OUTPUT, githubOutputs(manifest));
	return 0;
}

if (require.main === module) process.exit(main(process.argv.slice(2)));
