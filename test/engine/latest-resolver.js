// Jest resolver of the engine tier's `latest` run (jest.latest.config.js): n8n-core, n8n-workflow and @n8n/di —
// and their subpaths — resolve from the side install (scripts/engine/install-latest.sh) for every importer: the tests,
// the harness, n8n-core's own files and the built package under test that n8n's loader requires from dist/. Everything
// else resolves as usual; packages inside the side install find their own dependencies next to them.
const { existsSync, realpathSync } = require('node:fs');
const path = require('node:path');

const SIDE_INSTALL_LINK = path.join(__dirname, '.work', 'n8n-core-latest');
const FROM_SIDE_INSTALL = /^(n8n-core|n8n-workflow|@n8n\/di)(\/.*)?$/;

function sideInstall() {
	if (!existsSync(path.join(SIDE_INSTALL_LINK, 'node_modules', 'n8n-core')))
		throw new Error(
			`The latest n8n-core is not installed (${SIDE_INSTALL_LINK}): run npm run engine:install-latest`,
		);
	return realpathSync(SIDE_INSTALL_LINK);
}

module.exports = (request, options) =>
	FROM_SIDE_INSTALL.test(request)
		? options.defaultResolver(request, { ...options, basedir: sideInstall() })
		: options.defaultResolver(request, options);

module.exports.sideInstall = sideInstall;
