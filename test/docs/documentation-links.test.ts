// The documentation links the n8n editor shows — the credential dialog's "Open docs" and each node's docs links — lead
// to a page and a heading that exist in this repository, are built from package.json's repository (the one place a
// publisher fills in), and are what the built package ships (scripts/documentation-links.ts).
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

import {
	DOCUMENTATION_PAGES,
	documentationLinks,
	pageOf,
	pageUrl,
	repositoryWebUrl,
	staleLinks,
	unresolved,
} from '../../scripts/documentation-links';
import type { Manifest } from '../../scripts/documentation-links';

const ROOT = path.resolve(__dirname, '../..');
const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Manifest & {
	n8n: { nodes: string[]; credentials: string[] };
};
const load = createRequire(__filename);
const bin = (name: string) => path.join(ROOT, 'node_modules', '.bin', name);
/** The build's step, `tsx scripts/documentation-links.ts`, on another folder. */
const linksStep = (...args: string[]) =>
	spawnSync(bin('tsx'), [path.join(ROOT, 'scripts/documentation-links.ts'), ...args], {
		encoding: 'utf8',
	});

/** The names of the credential and nodes package.json registers, from the built files n8n loads. */
function registeredNames(): string[] {
	return [...manifest.n8n.credentials, ...manifest.n8n.nodes].flatMap((file) =>
		Object.values(load(path.join(ROOT, file)) as Record<string, new () => unknown>).map(
			(exported) => {
				const instance = new exported() as { name?: string; description?: { name: string } };
				return instance.description?.name ?? (instance.name as string);
			},
		),
	);
}

describe('documentation links', () => {
	it('name a page of this repository and a heading on it for the credential and every node', () => {
		expect(Object.keys(DOCUMENTATION_PAGES).sort()).toEqual(registeredNames().sort());
		const broken = Object.values(DOCUMENTATION_PAGES)
			.map((target) => unresolved(ROOT, target))
			.filter((problem) => problem !== null);
		expect(broken).toEqual([]);
	});

	it('are, in every source file that holds one, the page on package.json’s repository', () => {
		const links = documentationLinks();
		// Each credential's documentationUrl; each node's documentationUrl and its codex's primaryDocumentation and
		// credentialDocumentation.
		expect(links).toHaveLength(manifest.n8n.credentials.length + 3 * manifest.n8n.nodes.length);
		expect(staleLinks()).toEqual([]);
		for (const link of links) {
			expect([link.file, pageOf(manifest, link.current)]).toEqual([
				link.file,
				DOCUMENTATION_PAGES[link.documents],
			]);
		}
	});

	it('are what the built package ships (the credential, the node descriptions and the codex files in dist/)', () => {
		const shipped = [...manifest.n8n.credentials, ...manifest.n8n.nodes].flatMap((file) =>
			Object.values(
				load(path.join(ROOT, file)) as Record<
					string,
					new () => {
						name?: string;
						documentationUrl?: string;
						description?: { name: string; documentationUrl?: string };
					}
				>,
			).map((exported) => {
				const instance = new exported();
				const { name, documentationUrl } = instance.description ?? instance;
				return [name, documentationUrl];
			}),
		);
		expect(Object.fromEntries(shipped)).toEqual(
			Object.fromEntries(
				Object.entries(DOCUMENTATION_PAGES).map(([name, page]) => [name, pageUrl(manifest, page)]),
			),
		);
		for (const link of documentationLinks().filter((candidate) =>
			candidate.file.endsWith('.json'),
		)) {
			const built = JSON.parse(readFileSync(path.join(ROOT, 'dist', link.file), 'utf8')) as {
				resources: Record<string, Array<{ url: string }>>;
			};
			expect([link.file, built.resources[link.field][0].url]).toEqual([link.file, link.current]);
		}
	});

	it('point at GitHub pages of the repository, on its default branch', () => {
		expect(repositoryWebUrl({ name: 'x', repository: 'github:acme/repo' })).toBe(
			'https://github.com/acme/repo',
		);
		expect(
			repositoryWebUrl({
				name: 'x',
				repository: { url: 'git+https://github.com/Acme/n8n-nodes-x.git' },
			}),
		).toBe('https://github.com/Acme/n8n-nodes-x');
		expect(
			pageUrl({ name: 'x', repository: 'git+ssh://git@github.com/acme/repo.git' }, 'docs/a.md#b'),
		).toBe('https://github.com/acme/repo/blob/HEAD/docs/a.md#b');
		expect(() =>
			repositoryWebUrl({ name: 'x', repository: 'https://gitlab.com/acme/repo.git' }),
		).toThrow(/not a GitHub repository/);
		expect(() => repositoryWebUrl({ name: 'x' })).toThrow(/no repository\.url/);
	});

	describe('once a publisher fills in package.json (a copy of the sources)', () => {
		let copy: string;
		beforeAll(() => {
			copy = mkdtempSync(path.join(tmpdir(), 'tss-doc-links-'));
			for (const folder of ['credentials', 'nodes', 'docs'])
				cpSync(path.join(ROOT, folder), path.join(copy, folder), { recursive: true });
			for (const file of ['package.json', '.prettierrc.js', '.prettierignore'])
				cpSync(path.join(ROOT, file), path.join(copy, file));
			const filled = JSON.parse(readFileSync(path.join(copy, 'package.json'), 'utf8')) as Record<
				string,
				unknown
			>;
			filled.repository = {
				type: 'git',
				url: 'git+https://github.com/acme/n8n-nodes-transcription-service.git',
			};
			writeFileSync(path.join(copy, 'package.json'), JSON.stringify(filled, null, '\t'));
		});
		afterAll(() => rmSync(copy, { recursive: true, force: true }));

		it('the build rewrites every link to the repository, formatted as prettier writes it, and nothing else', () => {
			expect(staleLinks(copy)).toHaveLength(documentationLinks().length);
			const checked = linksStep('--check', '--root', copy);
			expect(checked.status).toBe(1);
			expect(checked.stderr.split('\n').filter((line) => line.includes(': stale: '))).toHaveLength(
				documentationLinks().length,
			);

			const written = linksStep('--root', copy);
			expect(written.status).toBe(0);
			const changed = [...new Set(documentationLinks().map((link) => link.file))].sort();
			expect(
				[...written.stderr.matchAll(/rewrote (\S+) from package\.json/g)]
					.map((match) => match[1])
					.sort(),
			).toEqual(changed);
			expect(staleLinks(copy)).toEqual([]);
			for (const link of documentationLinks(copy)) {
				expect(link.current).toBe(
					`https://github.com/acme/n8n-nodes-transcription-service/blob/HEAD/${DOCUMENTATION_PAGES[link.documents]}`,
				);
			}
			const withoutLinks = (source: string) =>
				source.replace(/https:\/\/github\.com(\.invalid)?\/[^'"]*/g, 'URL').replace(/\s+/g, ' ');
			for (const file of changed) {
				expect(withoutLinks(readFileSync(path.join(copy, file), 'utf8'))).toBe(
					withoutLinks(readFileSync(path.join(ROOT, file), 'utf8')),
				);
			}
			const prettier = spawnSync(bin('prettier'), ['--check', ...changed], {
				cwd: copy,
				encoding: 'utf8',
			});
			expect([prettier.status, prettier.stderr]).toEqual([0, '']);

			expect(linksStep('--check', '--root', copy).status).toBe(0);
			expect(linksStep('--root', copy).stderr).toBe('');
		});

		it('the build stops on a link to a heading that does not exist', () => {
			const page = path.join(copy, 'docs/nodes.md');
			const original = readFileSync(page, 'utf8');
			try {
				writeFileSync(page, original.replace(/^## Credentials$/m, '## Credential fields'));
				const result = linksStep('--root', copy);
				expect(result.status).toBe(1);
				expect(result.stderr).toContain('docs/nodes.md#credentials: no heading with that anchor');
			} finally {
				writeFileSync(page, original);
			}
		});
	});
});
