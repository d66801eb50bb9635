// The release gate's own checks (scripts/scan/release-check.ts) rule by rule, then this repository as
// committed: CHANGELOG.md in Keep a Changelog form, and package.json's publisher fields either filled in
// consistently or left as docs/releasing.md says, never an invented address presented as real.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

import {
	changelogSection,
	distTagFor,
	githubOutputs,
	githubRepositoryOf,
	isSemVer,
	packageSourceProblems,
	PLACEHOLDER,
	placeholdersIn,
	releaseProblems,
} from '../../scripts/scan/release-check';
import type { Manifest } from '../../scripts/scan/release-check';

const ROOT = path.resolve(__dirname, '..', '..');
const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Manifest;
const changelog = readFileSync(path.join(ROOT, 'CHANGELOG.md'), 'utf8');
const releasingSection = readFileSync(path.join(ROOT, 'docs/releasing.md'), 'utf8');

const REPOSITORY = 'example-org/n8n-nodes-transcription-service';
const filled: Manifest = {
	name: 'n8n-nodes-transcription-service',
	version: '1.2.0',
	author: { name: 'Example Org', email: 'maintainers@example.org' },
	repository: { type: 'git', url: `git+https://github.com/${REPOSITORY}.git` },
	homepage: `https://github.com/${REPOSITORY}#readme`,
	bugs: { url: `https://github.com/${REPOSITORY}/issues` },
};
const releasedChangelog = [
	'# Changelog',
	'',
	'## [Unreleased]',
	'',
	'## [1.2.0] - 2026-12-01',
	'',
	'### Added',
	'',
	'- Polling trigger.',
	'',
	'## [1.1.0] - 2026-11-30',
	'',
	'### Fixed',
	'',
	'- Something.',
	'',
].join('\n');

describe('tag and version', () => {
	it('accepts the tag v + package.json version', () => {
		expect(
			releaseProblems({
				manifest: filled,
				changelog: releasedChangelog,
				tag: 'v1.2.0',
				runningIn: REPOSITORY,
			}),
		).toEqual([]);
	});

	it.each([
		['v1.2.1', 'tag v1.2.1 is not v1.2.0, the version in package.json'],
		['1.2.0', 'tag 1.2.0 is not v1.2.0, the version in package.json'],
		['v1.2', 'tag v1.2 is not v1.2.0, the version in package.json'],
	])('refuses the tag %s', (tag, problem) => {
		expect(
			releaseProblems({
				manifest: filled,
				changelog: releasedChangelog,
				tag,
				runningIn: REPOSITORY,
			}),
		).toEqual([problem]);
	});

	it.each(['1.2.0', '0.1.0', '1.0.0-rc.1', '1.0.0-alpha.beta.1', '1.0.0+build.7'])(
		'%s is SemVer',
		(version) => expect(isSemVer(version)).toBe(true),
	);

	it.each(['1.2', '01.2.0', '1.2.0-', 'v1.2.0', '1.2.0-01'])('%s is not SemVer', (version) =>
		expect(isSemVer(version)).toBe(false),
	);

	it.each([
		['1.2.0', 'latest'],
		['1.0.0+build.7', 'latest'],
		['1.3.0-rc.1', 'next'],
		['2.0.0-beta.2+build.1', 'next'],
	])('publishes %s under the dist-tag %s', (version, tag) => {
		expect(distTagFor(version)).toBe(tag);
	});

	it('hands the workflow the name, version and dist-tag', () => {
		expect(githubOutputs({ name: 'n8n-nodes-x', version: '2.0.0-rc.1' })).toBe(
			'name=n8n-nodes-x\nversion=2.0.0-rc.1\ndist-tag=next\n',
		);
	});
});

describe('CHANGELOG section', () => {
	const problemsWith = (text: string) =>
		releaseProblems({ manifest: filled, changelog: text, tag: 'v1.2.0', runningIn: REPOSITORY });

	it('reads the section of one version up to the next heading', () => {
		expect(changelogSection(releasedChangelog, '1.2.0')).toEqual({
			date: '2026-12-01',
			body: '### Added\n\n- Polling trigger.',
		});
		expect(changelogSection(releasedChangelog, '1.3.0')).toBeNull();
	});

	it('requires a section for the version', () => {
		expect(
			problemsWith(releasedChangelog.replace('## [1.2.0] - 2026-12-01', '## [1.2.1] - 2026-12-01')),
		).toEqual(['CHANGELOG.md has no "## [1.2.0] - YYYY-MM-DD" section']);
	});

	it('requires a release date', () => {
		expect(
			problemsWith(releasedChangelog.replace('## [1.2.0] - 2026-12-01', '## [1.2.0]')),
		).toEqual(["CHANGELOG.md's [1.2.0] section has no YYYY-MM-DD release date"]);
	});

	it('requires entries', () => {
		expect(problemsWith(releasedChangelog.replace('- Polling trigger.', ''))).toEqual([
			"CHANGELOG.md's [1.2.0] section lists no changes",
		]);
	});

	it('refuses TBD entries', () => {
		expect(
			problemsWith(releasedChangelog.replace('- Polling trigger.', '- Polling trigger: TBD.')),
		).toEqual(["CHANGELOG.md's [1.2.0] section still has TBD entries"]);
	});
});

describe('package source fields', () => {
	it.each([
		['git+https://github.com/Owner/Repo.git', 'Owner/Repo'],
		['https://github.com/owner/repo', 'owner/repo'],
		['https://github.com/owner/repo#readme', 'owner/repo'],
		['https://github.com/owner/repo/issues', 'owner/repo'],
		['git+ssh://git@github.com/owner/repo.git', 'owner/repo'],
		['git://github.com/owner/repo.git', 'owner/repo'],
		['github:owner/repo', 'owner/repo'],
		['owner/repo', 'owner/repo'],
		['https://gitlab.com/owner/repo.git', null],
		['https://www.npmjs.com/package/n8n-nodes-x', null],
	])('reads %s as the GitHub repository %s', (url, repository) => {
		expect(githubRepositoryOf(url)).toBe(repository);
	});

	it('accepts filled-in fields that name the repository the workflow runs in (case aside)', () => {
		expect(packageSourceProblems(filled, REPOSITORY.toUpperCase())).toEqual([]);
	});

	it('accepts a homepage off GitHub, such as the npm page or a docs site', () => {
		const withNpmPage = {
			...filled,
			homepage: 'https://www.npmjs.com/package/n8n-nodes-transcription-service',
		};
		expect(packageSourceProblems(withNpmPage, REPOSITORY)).toEqual([]);
	});

	it('refuses a repository.url that is not the repository the workflow runs in', () => {
		expect(packageSourceProblems(filled, 'someone-else/fork')).toEqual([
			`repository.url names ${REPOSITORY} but this runs in someone-else/fork: npm refuses provenance that does not match`,
		]);
	});

	it('refuses homepage or bugs on another GitHub repository', () => {
		const mixed = { ...filled, bugs: { url: 'https://github.com/other/repo/issues' } };
		expect(packageSourceProblems(mixed, REPOSITORY)).toEqual([
			`bugs.url https://github.com/other/repo/issues is on other/repo, not on ${REPOSITORY} (repository.url)`,
		]);
	});

	it('refuses a repository off GitHub, and a missing one', () => {
		expect(
			packageSourceProblems(
				{ ...filled, repository: 'https://gitlab.com/owner/repo.git' },
				REPOSITORY,
			),
		).toEqual([
			'repository.url https://gitlab.com/owner/repo.git is not a GitHub repository (provenance is read from GitHub)',
		]);
		expect(packageSourceProblems({ ...filled, repository: undefined }, REPOSITORY)).toEqual([
			'package.json has no repository.url (docs/releasing.md): npm provenance and n8n verification need the public GitHub repository',
		]);
	});

	it('names every placeholder left, wherever it sits', () => {
		const unfilled: Manifest = {
			...filled,
			author: { name: 'Someone', email: 'set-before-publishing@example.invalid' },
			bugs: 'https://issues.example.invalid/tracker',
		};
		expect(placeholdersIn(unfilled)).toEqual([
			'author.email: set-before-publishing@example.invalid',
			'bugs: https://issues.example.invalid/tracker',
		]);
		expect(packageSourceProblems(unfilled, REPOSITORY)).toEqual([
			'package.json still holds placeholders (docs/releasing.md): author.email: set-before-publishing@example.invalid, bugs: https://issues.example.invalid/tracker',
		]);
	});

	it.each([
		[
			'repository',
			{ repository: { type: 'git', url: 'git+https://github.com.invalid/OWNER/REPO.git' } },
		],
		['homepage', { homepage: 'https://github.com.invalid/OWNER/REPO#readme' }],
		['author', { author: { name: 'Example Org', email: 'set-before-publishing@example.invalid' } }],
	])(
		'refuses to release while %s is still a placeholder, naming it and nothing it cannot check yet',
		(field, change) => {
			const problems = releaseProblems({
				manifest: { ...filled, ...change },
				changelog: releasedChangelog,
				tag: 'v1.2.0',
				runningIn: REPOSITORY,
			});
			expect(problems).toHaveLength(1);
			expect(problems[0]).toMatch(
				new RegExp(
					`^package\\.json still holds placeholders \\(docs/releasing\\.md\\): ${field}[.:]`,
				),
			);
		},
	);

	it('does not take .invalid inside a longer name for a placeholder', () => {
		expect(
			placeholdersIn({ ...filled, homepage: 'https://docs.example.org/x.invalidation' }),
		).toEqual([]);
	});
});

describe('documentation links', () => {
	it('refuses to release while a link the editor shows is not the one package.json makes', () => {
		const stale =
			'credentials/X.credentials.ts documentationUrl: https://old.example/docs, package.json makes it https://github.com/x/y/blob/HEAD/docs/nodes.md#credentials';
		expect(
			releaseProblems({
				manifest: filled,
				changelog: releasedChangelog,
				tag: 'v1.2.0',
				runningIn: REPOSITORY,
				staleLinks: [stale],
			}),
		).toEqual([`documentation link not built from package.json (run npm run build): ${stale}`]);
	});
});

describe('the CLI', () => {
	const runCli = (...args: string[]) =>
		spawnSync(
			path.join(ROOT, 'node_modules', '.bin', 'tsx'),
			[path.join(ROOT, 'scripts', 'scan', 'release-check.ts'), ...args],
			{ encoding: 'utf8', env: { ...process.env, GITHUB_OUTPUT: '' } },
		);

	it('exits 2 with its usage when --tag or --repository is missing', () => {
		const result = runCli('--tag', 'v1.0.0');
		expect(result.status).toBe(2);
		expect(result.stderr).toBe('usage: release-check --tag vX.Y.Z --repository OWNER/REPO\n');
	});

	it('on this repository as committed, names exactly what the publisher must still do', () => {
		const problems = releaseProblems({
			manifest,
			changelog,
			tag: `v${manifest.version}`,
			runningIn: REPOSITORY,
		});
		const result = runCli('--tag', `v${manifest.version}`, '--repository', REPOSITORY);
		expect(result.status).toBe(problems.length > 0 ? 1 : 0);
		expect(result.stdout.trim().split('\n')).toEqual(
			problems.length > 0
				? problems.map((problem) => `release check: ${problem}`)
				: [
						`release check: ${manifest.name}@${manifest.version} from ${REPOSITORY}, npm dist-tag ${distTagFor(manifest.version)}`,
					],
		);
	});
});

describe('this repository as committed', () => {
	it("holds package.json's version to a dated CHANGELOG section: refused while the entries wait under [Unreleased], accepted on the release commit", () => {
		// Cutting a release (docs/releasing.md) moves the [Unreleased] entries under a dated section, and the release
		// workflow runs these tests on that commit: both states must pass, each with its own answer.
		const problemsWith = (text: string) =>
			releaseProblems({
				manifest,
				changelog: text,
				tag: `v${manifest.version}`,
				runningIn: REPOSITORY,
			});
		const missingSection = `CHANGELOG.md has no "## [${manifest.version}] - YYYY-MM-DD" section`;
		const sourceProblems = packageSourceProblems(manifest, REPOSITORY);
		if (changelogSection(changelog, manifest.version) === null) {
			expect(problemsWith(changelog)).toEqual([missingSection, ...sourceProblems]);
			const dated = changelog.replace('## [Unreleased]', `## [${manifest.version}] - 2026-12-01`);
			expect(problemsWith(dated)).toEqual(sourceProblems);
		} else {
			expect(problemsWith(changelog)).toEqual(sourceProblems);
		}
	});

	it('keeps publisher fields either consistent or as placeholders docs/releasing.md tells the publisher to fill', () => {
		// Filled in: no problems at all. Not yet: only placeholders and the missing repository, which docs/releasing.md explains.
		const unexplained = packageSourceProblems(manifest).filter(
			(problem) =>
				!/^package\.json (still holds placeholders|has no repository\.url)/.test(problem),
		);
		expect(unexplained).toEqual([]);
		for (const placeholder of placeholdersIn(manifest)) {
			expect(releasingSection).toContain(placeholder.split(': ')[1]);
		}
		if (!manifest.repository) {
			for (const field of ['"repository"', '"bugs"', '"homepage"', 'author.email', 'author.name']) {
				expect(releasingSection).toContain(field);
			}
		}
	});

	it('presents no invented address as real: every URL is the package’s npm page, on GitHub, or a placeholder', () => {
		const addresses = [
			manifest.homepage,
			typeof manifest.bugs === 'string' ? manifest.bugs : manifest.bugs?.url,
			typeof manifest.repository === 'string' ? manifest.repository : manifest.repository?.url,
			typeof manifest.author === 'string' ? manifest.author : manifest.author?.email,
		].filter((value): value is string => Boolean(value));
		expect(addresses.length).toBeGreaterThan(0);
		for (const address of addresses) {
			const acceptable =
				address === `https://www.npmjs.com/package/${manifest.name}` ||
				githubRepositoryOf(address) !== null ||
				PLACEHOLDER.test(address);
			expect([address, acceptable]).toEqual([address, true]);
		}
	});
});

describe('CHANGELOG.md (Keep a Changelog 1.1.0)', () => {
	const headings = changelog.split('\n').filter((line) => line.startsWith('#'));
	const versions = headings
		.map((line) => /^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$/.exec(line))
		.filter((match): match is RegExpExecArray => match !== null);

	it('starts with the title and names the format and SemVer', () => {
		expect(headings[0]).toBe('# Changelog');
		expect(changelog).toContain('https://keepachangelog.com/en/1.1.0/');
		expect(changelog).toContain('https://semver.org/spec/v2.0.0.html');
	});

	it('opens with [Unreleased], then released versions (none yet), newest first, each dated', () => {
		expect(versions[0][1]).toBe('Unreleased');
		const released = versions.slice(1);
		for (const [, version, date] of released) {
			expect(isSemVer(version)).toBe(true);
			expect(date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
		}
		const dates = released.map(([, , date]) => date);
		expect([...dates].sort().reverse()).toEqual(dates);
	});

	it('groups changes only under the six kinds of change', () => {
		const kinds = headings.filter((line) => line.startsWith('### ')).map((line) => line.slice(4));
		expect(kinds.length).toBeGreaterThan(0);
		for (const kind of kinds) {
			expect(['Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security']).toContain(kind);
		}
	});
});
