#!/usr/bin/env bash
# Installs the n8n versions the end-to-end suite runs against, each in its own folder under test/e2e/
# (the root package may not carry the xlsx override n8n needs here).
#
#   scripts/e2e/install.sh [all|ci|1.123|2.8|2.15|a comma-separated list]      (default: $E2E_N8N, else all)
#
# test/e2e/n8n-<v>/ holds what to install (package.json + package-lock.json). An install is ~2.3 GB
# and takes minutes, so it lives in a cache outside the clone (cache.sh), keyed by those two files and the
# Node version, and test/e2e/.work/n8n-<v> links to it (git-ignored). In the install, node_modules/.tss-e2e/node
# points at the Node binary that runs that n8n.
set -euo pipefail

repo_root="$(cd "$(dirname "$0")/../.." && pwd)"
# shellcheck source=cache.sh
source "$(dirname "$0")/cache.sh"
# shellcheck source=versions.sh
source "$(dirname "$0")/versions.sh"

# The SQLite driver is the native module n8n cannot start without; a failed build only warns in npm.
check_n8n() {
	local dir="$1" node_bin="$2"
	if ! (cd "$dir" && "$node_bin" -e "
		const n8nDir = require('path').dirname(require.resolve('n8n/package.json'));
		require(require.resolve('sqlite3', { paths: [n8nDir] }));
	" >&2); then
		log "sqlite3 did not build in $dir"
		exit 1
	fi
}

install_version() {
	local version="$1" node_bin
	case "$version" in
		# n8n 2.0–2.8 run on this machine's Node 20.
		2.8) node_bin="$(command -v node)" ;;
		# 1.123.81 declares Node 20.19–24, but the isolated-vm 6.2 it pulls in (n8n-workflow 1.120.31 →
		# @n8n/expression-runtime 0.14.11) needs Node >= 22 to build; n8n's Docker image of 1.123 runs Node 22.
		1.123) node_bin="$(ensure_node "$node22_version")/bin/node" ;;
		# n8n 2.10 and later need Node >= 22.16.
		2.15) node_bin="$(ensure_node "$node24_version")/bin/node" ;;
		*)
			log "unknown n8n version '$version' (${e2e_known_versions[*]})"
			exit 1
			;;
	esac
	cached_install "n8n-$version" "$repo_root/test/e2e/n8n-$version" "$node_bin" check_n8n
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
