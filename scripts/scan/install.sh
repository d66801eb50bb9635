#!/usr/bin/env bash
# Installs n8n's community-package scanner beside the project, never into it, and prints the folder that
# holds its node_modules.
#
#   scripts/scan/install.sh
#
# scripts/scan/{package.json,package-lock.json,.npmrc} say what to install: @n8n/scan-community-package
# with the typescript and n8n-workflow peers it needs (see .npmrc for why peers are ours to pin). The
# install (~240 packages, ~120 MB, ~20 s) lives in a cache outside the clone, keyed by those three files,
# so the project's own lockfile and dev tree stay as they are; another clone, or CI on the same machine,
# reuses it. Progress goes to stderr, the folder alone to stdout.
set -euo pipefail

scan_dir="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=../lib/portable.sh
source "$scan_dir/../lib/portable.sh"
cache_root="${TSS_SCAN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tss-scan}"
manifest=("$scan_dir/package.json" "$scan_dir/package-lock.json" "$scan_dir/.npmrc")

log() { printf '[scan:install] %s\n' "$*" >&2; }

key="$(cat "${manifest[@]}" | sha256_16)"
target="$cache_root/scanner-$key"

# One installer at a time per cache: parallel runs on one machine wait instead of clobbering.
lock_folder "$cache_root"

if [[ ! -f "$target/node_modules/.tss-scan-installed" ]]; then
	staging="$cache_root/.staging-$key-$$"
	rm -rf "$staging"
	mkdir -p "$staging"
	cp "${manifest[@]}" "$staging/"
	log "npm ci in $staging"
	started=$SECONDS
	if ! (cd "$staging" && npm ci --no-audit --no-fund --loglevel=error >&2); then
		rm -rf "$staging"
		log "the install failed (the lines above say why) and nothing of it was kept: run the same command again once that is fixed"
		exit 1
	fi
	log "installed in $((SECONDS - started)) s"
	printf '%s\n' "$key" >"$staging/node_modules/.tss-scan-installed"
	rm -rf "$target"
	mv "$staging" "$target"
fi

printf '%s\n' "$target"
