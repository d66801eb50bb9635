// What README → "Try it" asks of a machine, held to package.json and the lockfile `npm ci` installs: the Node floor
// the README states is `engines.node`, every locked package accepts that floor, and every locked package with an
// install script has a decision in package.json's `allowScripts` (npm 11 runs the scripts of packages it does not
// name, with a warning, and skips those set to false: docs/contributing.md → Dependencies).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';

const ROOT = path.resolve(__dirname, '../..');

interface LockEntry {
	name?: string;
	version?: string;
	engines?: unknown;
	hasInstallScript?: boolean;
}

const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
	engines: { node: string };
	allowScripts?: Record<string, boolean>;
};
const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
	packages: Record<string, LockEntry>;
};
const locked = Object.entries(lock.packages)
	.filter(([location]) => location !== '')
	.map(([location, entry]) => ({
		...entry,
		name:
			entry.name ?? location.slice(location.lastIndexOf('node_modules/') + 'node_modules/'.length),
	}));

/** The lowest Node `engines.node` admits: the floor the README states. */
const floor = semver.minVersion(manifest.engines.node);

describe('the Node floor', () => {
	it('is a lower bound in package.json (engines.node ">=X.Y")', () => {
		expect(manifest.engines.node).toMatch(/^>=\d+\.\d+(\.\d+)?$/);
		expect(floor).not.toBeNull();
	});

	it('is the one README → "Try it" states', () => {
		const [major, minor] = [floor!.major, floor!.minor];
		expect(readFileSync(path.join(ROOT, 'README.md'), 'utf8')).toContain(
			`Node ${major}.${minor} or later`,
		);
	});

	it("is accepted by every locked package's engines.node", () => {
		const refusing = locked
			.filter(({ engines }) => typeof engines === 'object' && engines !== null)
			.map(({ name, version, engines }) => ({
				name,
				version,
				range: (engines as { node?: unknown }).node,
			}))
			.filter(({ range }) => typeof range === 'string')
			.filter(({ range }) => !semver.satisfies(floor!, range as string))
			.map(({ name, version, range }) => `${name}@${version} wants Node ${range}`);
		expect(refusing).toEqual([]);
	});
});

describe("package.json's allowScripts", () => {
	const decided = Object.keys(manifest.allowScripts ?? {}).map((spec) =>
		// An entry is a name, or name@range (npm install-scripts approve pins the version).
		spec.replace(/(?<=.)@.*$/, ''),
	);
	const withScripts = locked.filter((entry) => entry.hasInstallScript);

	it('names every locked package that has an install script', () => {
		const undecided = withScripts
			.filter(({ name }) => !decided.includes(name))
			.map(({ name, version }) => `${name}@${version}`);
		expect(undecided).toEqual([]);
	});

	it('names only locked packages that have one (npm install-scripts prune would drop the others)', () => {
		const stale = decided.filter((name) => !withScripts.some((entry) => entry.name === name));
		expect(stale).toEqual([]);
	});
});
