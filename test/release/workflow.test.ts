// The GitHub workflows cannot run here: they are checked as data. Both — release.yml (a version tag publishes) and
// ci.yml (pull requests and main) — are valid YAML and valid against SchemaStore's GitHub workflow schema (vendored,
// see extract-github-workflow-schema.mjs), with their actions pinned alike; then the parts that decide whether a
// release is published correctly, with provenance, and nothing else, and whether a pull request gets the checks
// docs/contributing.md promises, read-only and within 10 minutes.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Ajv from 'ajv';
import { parseDocument } from 'yaml';

import { githubOutputs } from '../../scripts/scan/release-check';

const ROOT = path.resolve(__dirname, '..', '..');
const WORKFLOWS = path.join(ROOT, '.github', 'workflows');
const WORKFLOW_FILE = path.join(WORKFLOWS, 'release.yml');
const CI_WORKFLOW_FILE = path.join(WORKFLOWS, 'ci.yml');
const SCHEMA_FILE = path.join(__dirname, '../support/fixtures/github-workflow.schema.json');
/** SHA-256 of the schema's canonical JSON as extracted from @action-validator/core@0.6.0. */
const SCHEMA_SHA256 = '172079d59c9879962d92ddf40c447cce55b9d026477f2e5f0ead6b698981cee4';

interface Step {
	name?: string;
	uses?: string;
	run?: string;
	id?: string;
	with?: Record<string, string>;
	env?: Record<string, string>;
}
interface Job {
	name?: string;
	needs?: string | string[];
	'runs-on': string;
	'timeout-minutes'?: number;
	environment?: string;
	permissions: Record<string, string>;
	outputs?: Record<string, string>;
	steps: Step[];
}
interface Workflow {
	name: string;
	on: unknown;
	permissions: Record<string, string>;
	jobs: Record<string, Job>;
}

/** YAML with duplicate keys or any syntax error is refused, not silently resolved. */
function parseStrictly(text: string): unknown {
	const document = parseDocument(text, { uniqueKeys: true, strict: true, prettyErrors: true });
	if (document.errors.length > 0) throw new Error(document.errors.map(String).join('\n'));
	return document.toJS();
}

const source = readFileSync(WORKFLOW_FILE, 'utf8');
const workflow = parseStrictly(source) as Workflow;
const ciSource = readFileSync(CI_WORKFLOW_FILE, 'utf8');
const ciWorkflow = parseStrictly(ciSource) as Workflow;
const schema = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as object;
// SchemaStore's schema omits `type` beside some `properties` and uses 1-tuples: only those strict checks are off.
const validate = new Ajv({ allErrors: true, strictTypes: false, strictTuples: false }).compile(
	schema,
);

const { check, publish } = workflow.jobs;
const scanJob = workflow.jobs['n8n-scan'];
const runs = (job: Job) => job.steps.map((step) => step.run ?? '');
const stepRunning = (job: Job, pattern: RegExp) =>
	job.steps.findIndex((step) => pattern.test(step.run ?? ''));
const stepUsing = (job: Job, action: string) =>
	job.steps.findIndex((step) => step.uses?.startsWith(`${action}@`));

describe('the workflow files', () => {
	it('are the release and CI workflows, nothing else', () => {
		expect(readdirSync(WORKFLOWS).sort()).toEqual(['ci.yml', 'release.yml']);
	});

	it.each([
		['release.yml', workflow],
		['ci.yml', ciWorkflow],
	])(
		'%s is YAML without duplicate keys and valid against the GitHub workflow schema',
		(_, parsed) => {
			const valid = validate(parsed);
			expect(validate.errors ?? []).toEqual([]);
			expect(valid).toBe(true);
		},
	);

	it('is checked against SchemaStore’s github-workflow.json, as vendored', () => {
		expect(schema).toMatchObject({ $id: 'https://json.schemastore.org/github-workflow.json' });
		expect(createHash('sha256').update(JSON.stringify(schema)).digest('hex')).toBe(SCHEMA_SHA256);
	});

	it('fails the schema when a permission value, a job’s runner or a step key is wrong', () => {
		const broken = structuredClone(workflow) as unknown as {
			jobs: Record<string, Record<string, unknown> & { steps: Array<Record<string, unknown>> }>;
		};
		broken.jobs.publish.permissions = { 'id-token': 'writ' };
		delete broken.jobs.check['runs-on'];
		broken.jobs.check.steps[0].run_if = 'always';
		expect(validate(broken)).toBe(false);
		const paths = (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
		expect(paths).toContain(
			'/jobs/publish/permissions/id-token must be equal to one of the allowed values',
		);
		expect(paths).toContain("/jobs/check must have required property 'runs-on'");
		expect(paths).toContain('/jobs/check/steps/0 must NOT have additional properties');
	});

	it('refuses duplicate keys (the later one would silently win on GitHub)', () => {
		expect(() => parseStrictly('on: push\njobs: {}\non: pull_request\n')).toThrow(/unique/i);
	});
});

describe('trigger', () => {
	it('runs only when a version tag vX.Y.Z is pushed', () => {
		expect(workflow.on).toEqual({ push: { tags: ['v*.*.*'] } });
	});
});

describe('permissions', () => {
	it('grants nothing by default; each job asks for what it uses', () => {
		expect(workflow.permissions).toEqual({});
		expect(check.permissions).toEqual({ contents: 'read' });
		expect(publish.permissions).toEqual({ 'id-token': 'write' });
		expect(scanJob.permissions).toEqual({ contents: 'read' });
	});

	it('lets only the publish job mint an OIDC token, and no job write to the repository', () => {
		for (const [id, job] of Object.entries(workflow.jobs)) {
			const writes = Object.entries(job.permissions).filter(([, level]) => level === 'write');
			expect([id, writes]).toEqual([id, id === 'publish' ? [['id-token', 'write']] : []]);
		}
	});
});

describe('check job', () => {
	it('runs on a GitHub-hosted runner with Node 20, the version the test suite is proven on', () => {
		expect(check['runs-on']).toBe('ubuntu-latest');
		expect(check.steps[stepUsing(check, 'actions/setup-node')].with).toMatchObject({
			'node-version': '20',
			'package-manager-cache': false,
		});
	});

	it('checks the release, then installs from the lockfile, builds, lints, tests, packs and scans, in that order', () => {
		const order = [
			stepUsing(check, 'actions/checkout'),
			stepRunning(check, /^npm ci\b/),
			stepRunning(check, /^npm run release:check\b/),
			stepRunning(check, /^npm run build$/),
			stepRunning(check, /^npm run lint$/),
			stepRunning(check, /^npm test$/),
			stepRunning(check, /\bnpm pack\b/),
			stepRunning(check, /^npm run scan\b/),
			stepUsing(check, 'actions/upload-artifact'),
		];
		expect(order.every((index) => index >= 0)).toBe(true);
		expect([...order].sort((a, b) => a - b)).toEqual(order);
		expect(runs(check).filter((run) => /\bnpm (install|i)\b/.test(run))).toEqual([]);
	});

	it('compares the pushed tag with package.json in the repository the workflow runs in', () => {
		const step = check.steps[stepRunning(check, /^npm run release:check\b/)];
		expect(step.run).toBe(
			'npm run release:check -- --tag "$GITHUB_REF_NAME" --repository "$GITHUB_REPOSITORY"',
		);
		expect(step.id).toBe('release');
	});

	it('exposes the name, version and npm dist-tag that the release check writes', () => {
		const written = githubOutputs({ name: 'n8n-nodes-x', version: '1.2.3-rc.1' })
			.trim()
			.split('\n')
			.map((line) => line.split('=')[0]);
		expect(Object.keys(check.outputs ?? {}).sort()).toEqual([...written].sort());
		for (const key of written) {
			expect(check.outputs?.[key]).toBe(`\${{ steps.release.outputs.${key} }}`);
		}
	});

	it('scans the very tarball it uploads for publishing', () => {
		const pack = check.steps[stepRunning(check, /\bnpm pack\b/)].run;
		const scan = check.steps[stepRunning(check, /^npm run scan\b/)].run;
		const upload = check.steps[stepUsing(check, 'actions/upload-artifact')];
		expect(pack).toContain('npm pack --pack-destination "$RUNNER_TEMP/package"');
		expect(scan).toBe('npm run scan -- --tarball "$RUNNER_TEMP"/package/*.tgz');
		expect(upload.with).toMatchObject({
			name: 'package',
			path: '${{ runner.temp }}/package/*.tgz',
			'if-no-files-found': 'error',
		});
	});
});

describe('publish job', () => {
	it('runs after the check on a GitHub-hosted runner (npm provenance needs one) in the npm environment', () => {
		expect(publish.needs).toBe('check');
		expect(publish['runs-on']).toBe('ubuntu-latest');
		expect(publish.environment).toBe('npm');
	});

	it('sets up npm against the public registry with Node 24 (npm 11 built in)', () => {
		expect(publish.steps[stepUsing(publish, 'actions/setup-node')].with).toEqual({
			'node-version': '24',
			'registry-url': 'https://registry.npmjs.org',
			'package-manager-cache': false,
		});
	});

	it('runs no project or dependency code while it can mint an OIDC token', () => {
		expect(stepUsing(publish, 'actions/checkout')).toBe(-1);
		expect(
			runs(publish).filter((run) => /\b(npm (ci|install|i|run|exec|test)|npx)\b/.test(run)),
		).toEqual([]);
	});

	it('publishes the checked tarball with provenance, public access and the dist-tag the check chose', () => {
		const download = stepUsing(publish, 'actions/download-artifact');
		const publishing = stepRunning(publish, /^npm publish\b/);
		expect(publish.steps[download].with).toEqual({ name: 'package', path: 'package' });
		expect(download).toBeLessThan(publishing);
		const step = publish.steps[publishing];
		// `./`: a bare package/x.tgz is read by npm as the GitHub repository "package/x.tgz".
		expect(step.run).toBe(
			'npm publish ./package/*.tgz --provenance --access public --tag "$DIST_TAG"',
		);
		expect(step.env).toEqual({
			DIST_TAG: '${{ needs.check.outputs.dist-tag }}',
			NODE_AUTH_TOKEN: '${{ secrets.NPM_TOKEN }}',
		});
	});

	it('then waits for the registry to list an SLSA provenance attestation for that version', () => {
		const publishing = stepRunning(publish, /^npm publish\b/);
		const verifying = stepRunning(publish, /dist\.attestations\.provenance\.predicateType/);
		expect(verifying).toBeGreaterThan(publishing);
		expect(publish.steps[verifying].run).toContain('"https://slsa.dev/provenance/v1"');
		expect(publish.steps[verifying].env).toEqual({
			PACKAGE: '${{ needs.check.outputs.name }}@${{ needs.check.outputs.version }}',
		});
	});

	describe('npm version guard (the step’s own script, run with a stand-in npm)', () => {
		const guard = publish.steps[stepRunning(publish, /npm --version/)].run as string;
		let bin: string;
		beforeAll(() => {
			bin = mkdtempSync(path.join(tmpdir(), 'tss-npm-guard-'));
		});
		afterAll(() => rmSync(bin, { recursive: true, force: true }));

		const runGuard = (npmVersion: string): number => {
			writeFileSync(path.join(bin, 'npm'), `#!/bin/sh\necho ${npmVersion}\n`);
			chmodSync(path.join(bin, 'npm'), 0o755);
			try {
				execFileSync('bash', ['-e', '-c', guard], {
					env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
					stdio: 'pipe',
				});
				return 0;
			} catch (error) {
				return (error as { status: number }).status;
			}
		};

		it.each(['11.5.1', '11.6.2', '11.19.1', '12.0.0'])('passes npm %s', (version) => {
			expect(runGuard(version)).toBe(0);
		});

		it.each(['11.5.0', '11.4.9', '10.9.4', '9.5.0'])('stops at npm %s', (version) => {
			expect(runGuard(version)).toBe(1);
		});
	});
});

describe('n8n-scan job', () => {
	it('scans the published version with n8n’s scanner, with read access only, after publishing', () => {
		expect(scanJob.needs).toEqual(['check', 'publish']);
		const scan = scanJob.steps.find((step) => step.run?.includes('scanner/cli.mjs'));
		expect(scan?.run).toContain('bash scripts/scan/install.sh');
		expect(scan?.run).toContain("grep -q 'has passed all security checks'");
		expect(scan?.env).toEqual({
			PACKAGE: '${{ needs.check.outputs.name }}@${{ needs.check.outputs.version }}',
		});
	});
});

describe('actions', () => {
	const uses = [source, ciSource]
		.flatMap((text) => text.split('\n'))
		.filter((line) => /^\s*(- )?uses:/.test(line));

	it('are pinned to a full commit SHA with the release tag beside it, in both workflows', () => {
		expect(uses.length).toBeGreaterThanOrEqual(11);
		for (const line of uses) {
			expect(line).toMatch(/uses: actions\/[\w-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$/);
		}
	});

	it('name one commit per action everywhere they are used, across both workflows', () => {
		const pins = new Map<string, Set<string>>();
		for (const line of uses) {
			const [, action, sha] = /uses: ([\w/-]+)@([0-9a-f]{40})/.exec(line) ?? [];
			pins.set(action, (pins.get(action) ?? new Set()).add(sha));
		}
		for (const [action, shas] of pins) expect([action, shas.size]).toEqual([action, 1]);
	});

	it('are kept current by Dependabot', () => {
		const dependabot = parseStrictly(
			readFileSync(path.join(ROOT, '.github', 'dependabot.yml'), 'utf8'),
		) as { version: number; updates: Array<Record<string, unknown>> };
		expect(dependabot.version).toBe(2);
		expect(dependabot.updates).toContainEqual(
			expect.objectContaining({ 'package-ecosystem': 'github-actions', directory: '/' }),
		);
	});
});

describe('CI workflow (ci.yml)', () => {
	const { test, 'n8n-node': n8nNode } = ciWorkflow.jobs;
	const scripts = (
		JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
			scripts: Record<string, string>;
		}
	).scripts;

	it('runs on every pull request and on main', () => {
		expect(ciWorkflow.on).toEqual({ pull_request: null, push: { branches: ['main'] } });
	});

	it('reads the repository and nothing more: no write permission, no secret, no credentials kept by checkout', () => {
		expect(ciWorkflow.permissions).toEqual({});
		for (const [id, job] of Object.entries(ciWorkflow.jobs)) {
			expect([id, job.permissions]).toEqual([id, { contents: 'read' }]);
			expect(job.steps[stepUsing(job, 'actions/checkout')].with).toEqual({
				'persist-credentials': false,
			});
		}
		expect(ciSource).not.toMatch(/\bsecrets\./);
	});

	it('gives each job a GitHub-hosted runner and at most 10 minutes', () => {
		for (const [id, job] of Object.entries(ciWorkflow.jobs)) {
			expect([id, job['runs-on']]).toEqual([id, 'ubuntu-latest']);
			expect(job['timeout-minutes']).toBeLessThanOrEqual(10);
		}
	});

	it('runs only npm scripts that package.json has, after npm ci on Node 20 (the floor the README states)', () => {
		for (const job of Object.values(ciWorkflow.jobs)) {
			expect(job.steps[stepUsing(job, 'actions/setup-node')].with?.['node-version']).toBe('20');
			const install = stepRunning(job, /^npm ci\b/);
			expect(install).toBeGreaterThan(stepUsing(job, 'actions/setup-node'));
			for (const [index, run] of runs(job).entries()) {
				for (const [, script] of run.matchAll(/npm run ([\w:.-]+)/g)) {
					expect([script, script in scripts]).toEqual([script, true]);
					expect(index).toBeGreaterThan(install);
				}
			}
		}
	});

	it('builds, type-checks and lints, then runs every tier npm test runs', () => {
		const order = [
			stepRunning(test, /^npm ci\b/),
			stepRunning(test, /^npm run build$/),
			stepRunning(test, /^npm run typecheck$/),
			stepRunning(test, /^npm run lint$/),
			stepRunning(test, /^npx jest$/),
		];
		expect(order.every((index) => index >= 0)).toBe(true);
		expect([...order].sort((a, b) => a - b)).toEqual(order);
	});

	it("runs n8n's own tool (n8n-node lint and build) and n8n's scanner on the source and the packed tarball", () => {
		expect(stepRunning(n8nNode, /^npm run check:n8n-node$/)).toBeGreaterThan(
			stepRunning(n8nNode, /^npm ci\b/),
		);
		expect(stepRunning(n8nNode, /^npm run scan$/)).toBeGreaterThan(0);
		expect(scripts['check:n8n-node']).toBe('bash scripts/node-cli/check.sh');
		expect(scripts.scan).toMatch(/scripts\/scan\/scan\.ts$/);
	});
});
