# Sourced by install.sh (n8n for the e2e suite) and install-engine-latest.sh (n8n-core for the engine tier):
# npm installs of a folder's package.json + package-lock.json, kept in a cache outside the clone and keyed by those
# two files and the Node version, so another clone, or CI on the same machine, reuses them.

# shellcheck source=../lib/portable.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/portable.sh"

cache_root="${TSS_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tss-e2e}"
# Node releases from the npm registry's `node` package, for what this machine's Node 20 cannot run:
# n8n 2.10+ needs Node >= 22.16, n8n-workflow 2.41 (isolated-vm 7) Node >= 24, and n8n 1.123.81's
# isolated-vm 6.2 does not build on Node 20 (n8n's own Docker image of 1.123 runs Node 22).
node22_version="22.23.3"
node24_version="24.21.0"

log() { printf '[e2e:install] %s\n' "$*" >&2; }

# ensure_node VERSION: prints the folder of that release's platform binary (bin/node + include/node headers).
ensure_node() {
	local version="$1"
	local toolchain="$cache_root/node-$version"
	local platform_dir
	platform_dir="$toolchain/node_modules/node/node_modules/node-$(node -p 'process.platform + "-" + process.arch')"
	if [[ ! -x "$platform_dir/bin/node" || ! -d "$platform_dir/include/node" ]]; then
		log "installing Node $version from the npm registry into $toolchain"
		rm -rf "$toolchain"
		mkdir -p "$toolchain"
		printf '{"private":true,"dependencies":{"node":"%s"}}\n' "$version" >"$toolchain/package.json"
		(cd "$toolchain" && npm install --no-audit --no-fund --loglevel=error >&2)
	fi
	[[ -x "$platform_dir/bin/node" ]] || {
		log "Node $version did not install"
		exit 1
	}
	printf '%s\n' "$platform_dir"
}

# npm_install_from_lock: the default installer of cached_install, run in the staging folder.
# `npm install` rather than `npm ci`: the lockfile pins every version, but npm writes the lock of n8n 2.15 and older
# without some optional platform packages (msgpackr-extract for other systems), which `npm ci` then refuses.
npm_install_from_lock() {
	npm install --no-audit --no-fund --loglevel=error >&2
}

# cached_install NAME FOLDER NODE_BIN CHECK_FUNCTION [INSTALL_FUNCTION]
#   Installs FOLDER's package.json (+ package-lock.json) with NODE_BIN's Node (npm, node-gyp and install scripts
#   all see it and build against the headers beside it), unless the cache holds
#   that install already; runs CHECK_FUNCTION <dir> <node_bin> on a fresh install; links NODE_BIN as
#   node_modules/.tss-e2e/node. Sets `cached_dir` to the install. Writes FOLDER/package-lock.json on a first install.
#   INSTALL_FUNCTION (default npm_install_from_lock) runs in the staging folder with that Node first on PATH.
cached_install() {
	local name="$1" folder="$2" node_bin="$3" check="$4" installer="${5:-npm_install_from_lock}"
	[[ -f "$folder/package.json" ]] || {
		log "no $folder/package.json"
		exit 1
	}
	node_bin="$(readlink -f "$node_bin")"
	local node_version node_dir path_prefix="" nodedir=""
	node_version="$("$node_bin" --version)"
	node_dir="$(dirname "$(dirname "$node_bin")")"
	[[ "$node_bin" != "$(readlink -f "$(command -v node)")" ]] && path_prefix="$(dirname "$node_bin"):"
	# Native modules (sqlite3) build against the headers beside the Node that runs them (the npm `node` package's, or a
	# distribution's /usr/include/node): node-gyp would otherwise download them from nodejs.org, which CI may not reach.
	[[ -f "$node_dir/include/node/node_version.h" ]] && nodedir="$node_dir"

	local lock_files=("$folder/package.json")
	[[ -f "$folder/package-lock.json" ]] && lock_files+=("$folder/package-lock.json")
	local key target
	key="$(printf '%s\n' "$node_version" | cat - "${lock_files[@]}" | sha256_16)"
	target="$cache_root/$name-$key"

	if [[ -f "$target/node_modules/.tss-e2e/installed" ]]; then
		log "$name: cached install $target"
	else
		local staging="$cache_root/.staging-$name-$$"
		rm -rf "$staging"
		mkdir -p "$staging"
		cp "${lock_files[@]}" "$staging/"
		log "$name: $installer with Node $node_version in $staging (minutes)"
		local started=$SECONDS
		# errexit does not hold inside a condition: each step is chained by hand.
		if ! (
			cd "$staging" || exit
			export PATH="$path_prefix$PATH"
			[[ -n "$nodedir" ]] && export npm_config_nodedir="$nodedir"
			"$installer"
		) || ! (
			log "$name: installed in $((SECONDS - started)) s"
			"$check" "$staging" "$node_bin"
		); then
			rm -rf "$staging"
			log "$name: the install failed (the lines above say why) and nothing of it was kept."
			log "Run the same command again once that is fixed; if npm could not reach the registry, check the network."
			exit 1
		fi

		if [[ ! -f "$folder/package-lock.json" ]]; then
			# First install of this package.json: keep its lockfile so later installs get the same versions.
			cp "$staging/package-lock.json" "$folder/package-lock.json"
			key="$(printf '%s\n' "$node_version" | cat - "$folder/package.json" "$folder/package-lock.json" | sha256_16)"
			target="$cache_root/$name-$key"
			log "$name: wrote $folder/package-lock.json"
		fi
		mkdir -p "$staging/node_modules/.tss-e2e"
		printf '%s\n' "$key" >"$staging/node_modules/.tss-e2e/installed"
		rm -rf "$target"
		mv "$staging" "$target"
	fi

	ln -sfn "$node_bin" "$target/node_modules/.tss-e2e/node"
	cached_dir="$target"
}

# One installer at a time per cache: parallel CI jobs on one machine wait instead of clobbering.
lock_cache() {
	lock_folder "$cache_root"
}
