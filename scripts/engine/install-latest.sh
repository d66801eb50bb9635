#!/usr/bin/env bash
# Installs the newest n8n-core / n8n-workflow / @n8n/di the registry here serves (test/engine/n8n-core-latest/:
# package.json + package-lock.json) for the second run of the engine tier, on Node 24 (n8n-workflow 2.41 builds
# isolated-vm 7, which needs it). Cached like the e2e installs (scripts/e2e/cache.sh); test/engine/.work/n8n-core-latest
# links to it (git-ignored), and its node_modules/.tss-e2e/node is the Node that runs that tier.
set -euo pipefail

repo_root="$(cd "$(dirname "$0")/../.." && pwd)"
# shellcheck source=../e2e/cache.sh
source "$repo_root/scripts/e2e/cache.sh"

# n8n-core must load on the Node that will run it (its native dependencies built for that Node).
check_core() {
	local dir="$1" node_bin="$2"
	if ! (cd "$dir" && "$node_bin" -e "require('n8n-core'); require('n8n-workflow'); require('@n8n/di');" >&2); then
		log "n8n-core does not load in $dir"
		exit 1
	fi
}

lock_cache
cached_install n8n-core-latest "$repo_root/test/engine/n8n-core-latest" \
	"$(ensure_node "$node24_version")/bin/node" check_core
link="$repo_root/test/engine/.work/n8n-core-latest"
mkdir -p "$(dirname "$link")"
ln -sfn "$cached_dir" "$link"
versions="$("$cached_dir/node_modules/.tss-e2e/node" -p "['n8n-core', 'n8n-workflow', '@n8n/di'].map((name) => name + ' ' + require('$cached_dir/node_modules/' + name + '/package.json').version).join(', ')")"
log "engine tier (latest): $versions on Node $("$cached_dir/node_modules/.tss-e2e/node" --version), in $link"
