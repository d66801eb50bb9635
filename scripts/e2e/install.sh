#!/usr/bin/env bash
# Installs the n8n versions the end-to-end suite runs against, each in its own folder under test/e2e/
# (the root package may not carry the xlsx override n8n needs here).
#
#   scripts/e2e/install.sh [all|ci|1.123|2.8|2.15|2.41|a comma-separated list]      (default: $E2E_N8N, else all)
#
# test/e2e/n8n-<v>/ holds what to install (package.json + package-lock.json). n8n 2.41's package.json pins, through
# `overrides`, the patch releases the registry here lacks to the highest of their major.minor; regenerate its lockfile
# with `node scripts/e2e/pin-missing-releases.mjs test/e2e/n8n-2.41` (the script finds them). An install is ~2.3 GB
# and takes minutes, so it lives in a cache outside the clone (cache.sh), keyed by those two files and the
# Node version, and test/e2e/.work/n8n-<v> links to it (git-ignored). In the install, node_modules/.tss-e2e/node
# points at the Node binary that runs that n8n.
set -euo pipefail

repo_root="$(cd "$(dirname "$0")/../.." && pwd)"
# shellcheck source=cache.sh
source "$(dirname "$0")/cache.sh"
# shellcheck source=versions.sh
source "$(dirname "$0")/versions.sh"

# The SQLite driver is the native module n8n cannot start without; a failed build only warns in npm. Where n8n's
# expressions run in isolated-vm (n8n-workflow's @n8n/expression-runtime; the default engine of 2.41), it must load too:
# 1.123 builds it, 2.41 installs without scripts and uses the prebuilt binary isolated-vm 7 ships.
check_n8n() {
	local dir="$1" node_bin="$2"
	if ! (cd "$dir" && "$node_bin" -e "
		const { dirname } = require('path');
		const n8nDir = dirname(require.resolve('n8n/package.json'));
		require(require.resolve('sqlite3', { paths: [n8nDir] }));
		const workflowDir = dirname(require.resolve('n8n-workflow/package.json', { paths: [n8nDir] }));
		let runtimeDir;
		try {
			runtimeDir = dirname(require.resolve('@n8n/expression-runtime/package.json', { paths: [workflowDir] }));
		} catch {}
		if (runtimeDir) require(require.resolve('isolated-vm', { paths: [runtimeDir] }));
	" >&2); then
		log "sqlite3 or isolated-vm does not load in $dir"
		exit 1
	fi
}

# n8n 2.41 from its lockfile, as n8n-facts.md's recipe: install scripts off (the Kafka client's downloads a prebuilt
# binary this machine cannot fetch, then fails to build from source), then the one native module n8n cannot start
# without, sqlite3, built against the headers of the Node that runs it (npm_config_nodedir, set by cached_install).
npm_ci_without_scripts() {
	npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2 &&
		npm rebuild sqlite3 --no-audit --no-fund --loglevel=error >&2
}

install_version() {
	local version="$1" node_bin installer=npm_install_from_lock
	case "$version" in
		# n8n 2.0–2.8 run on this machine's Node 20.
		2.8) node_bin="$(command -v node)" ;;
		# 1.123.81 declares Node 20.19–24, but the isolated-vm 6.2 it pulls in (n8n-workflow 1.120.31 →
		# @n8n/expression-runtime 0.14.11) needs Node >= 22 to build; n8n's Docker image of 1.123 runs Node 22.
		1.123) node_bin="$(ensure_node "$node22_version")/bin/node" ;;
		# n8n 2.10 and later need Node >= 22.16.
		2.15) node_bin="$(ensure_node "$node24_version")/bin/node" ;;
		# n8n 2.36 and later need Node >= 24.
		2.41)
			node_bin="$(ensure_node "$node24_version")/bin/node"
			installer=npm_ci_without_scripts
			;;
		*)
			log "unknown n8n version '$version' (${e2e_known_versions[*]})"
			exit 1
			;;
	esac
	cached_install "n8n-$version" "$repo_root/test/e2e/n8n-$version" "$node_bin" check_n8n "$installer"
	local link="$repo_root/test/e2e/.work/n8n-$version"
	mkdir -p "$(dirname "$link")"
	ln -sfn "$cached_dir" "$link"
	local bin="$cached_dir/node_modules/.tss-e2e/node"
	log "n8n $version: ready in $link (n8n $("$bin" -p "require('$cached_dir/node_modules/n8n/package.json').version") on Node $("$bin" --version))"
}

selection="${1:-${E2E_N8N:-all}}"
if ! e2e_select_versions "$selection"; then
	log "usage: $0 [all|ci|${e2e_known_versions[*]// /|}|a comma-separated list] (got '$selection')"
	exit 2
fi

lock_cache
for version in "${versions[@]}"; do
	install_version "$version"
done
