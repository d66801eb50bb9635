#!/usr/bin/env bash
# Installs n8n's own node tool, @n8n/node-cli (`n8n-node`), beside the project, never into it, on Node 24 from the npm
# registry's `node` package, and prints two lines: the folder that holds its node_modules, then that Node's bin folder.
#
#   scripts/node-cli/install.sh
#
# Not a dev dependency: @n8n/node-cli 0.48 depends on n8n-workflow 2.4x, whose expression runtime needs Node 24
# (isolated-vm 7), and the project runs on Node 20. scripts/node-cli/{package.json,package-lock.json,.npmrc} say what to
# install (with the project's TypeScript and n8n-workflow, so `n8n-node build` compiles as `npm run build` does); the
# install (578 packages, 1–3 min) lives in the e2e installs' cache (scripts/e2e/cache.sh: ~/.cache/tss-e2e or
# $TSS_E2E_CACHE) under node-cli/, with a lock of its own, keyed by those files and the Node version. Progress goes to
# stderr.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=../e2e/cache.sh
source "$here/../e2e/cache.sh"
cache="$cache_root/node-cli"
manifest=("$here/package.json" "$here/package-lock.json" "$here/.npmrc")

say() { printf '[node-cli:install] %s\n' "$*" >&2; }

# The Node 24 release the e2e installs use (scripts/e2e/cache.sh), installed under their cache's lock when missing.
platform="$cache_root/node-$node24_version/node_modules/node/node_modules/node-$(node -p 'process.platform + "-" + process.arch')"
if [[ ! -x "$platform/bin/node" ]]; then
	platform="$(
		lock_cache
		ensure_node "$node24_version"
	)"
fi
node_bin="$platform/bin"

key="$( ("$node_bin/node" --version && cat "${manifest[@]}") | sha256_16)"
target="$cache/node-cli-$key"

lock_folder "$cache"
if [[ ! -f "$target/node_modules/.tss-node-cli-installed" ]]; then
	staging="$cache/.staging-$key-$$"
	rm -rf "$staging"
	mkdir -p "$staging"
	cp "${manifest[@]}" "$staging/"
	say "npm ci with Node $("$node_bin/node" --version) in $staging"
	started=$SECONDS
	if ! (cd "$staging" && PATH="$node_bin:$PATH" npm ci --loglevel=error >&2); then
		rm -rf "$staging"
		say "the install failed (the lines above say why) and nothing of it was kept: run the same command again once that is fixed"
		exit 1
	fi
	say "installed in $((SECONDS - started)) s"
	printf '%s\n' "$key" >"$staging/node_modules/.tss-node-cli-installed"
	rm -rf "$target"
	mv "$staging" "$target"
fi

printf '%s\n%s\n' "$target" "$node_bin"
