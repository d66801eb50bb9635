// Preloaded (`node --require`) into benchmark P2's measuring process when BENCH_N8N names an e2e install of n8n (for
// instance 2.41): n8n-core, n8n-workflow and @n8n/di, with their subpaths, resolve from that install for every importer —
// the harness, the built nodes n8n's loader requires from dist/, n8n-nodes-base — so the upload runs in the engine that
// n8n release ships, not in this repository's n8n-core. BENCH_N8N_ROOT is the install's folder (test/e2e/.work/n8n-<v>).
const Module = require('node:module');

const root = process.env.BENCH_N8N_ROOT;
if (!root)
	throw new Error('BENCH_N8N_ROOT is not set: run P2 through npm run bench with BENCH_N8N');
const FROM_INSTALL = /^(n8n-core|n8n-workflow|@n8n\/di)(\/.*)?$/;
const resolveFilename = Module._resolveFilename;

Module._resolveFilename = function (request, parent, isMain, options) {
	if (FROM_INSTALL.test(request))
		return resolveFilename.call(this, request, parent, isMain, { paths: [root] });
	return resolveFilename.call(this, request, parent, isMain, options);
};
