#!/usr/bin/env bash
# `npm run test:e2e`: the pack inside real n8n processes, over the version matrix.
#   E2E_N8N=2.8|2.15|all (default all)   extra arguments go to jest (e.g. -t 'forged')
# Installs what is missing (n8n per version, Node 24, Debian's chromium), builds, then runs
# test/e2e once per n8n version; exits non-zero if any version failed.
set -euo pipefail
cd "$(dirname "$0")/../.."

selection="${E2E_N8N:-all}"
case "$selection" in
	all) versions=(2.8 2.15) ;;
	2.8 | 2.15) versions=("$selection") ;;
	*) echo "E2E_N8N must be 2.8, 2.15 or all (got '$selection')" >&2; exit 2 ;;
esac

started=$SECONDS
bash scripts/e2e/install.sh "$selection"
bash scripts/e2e/install-chromium.sh
npm run build

failed=()
for version in "${versions[@]}"; do
	echo "== e2e: n8n $version"
	version_started=$SECONDS
	if E2E_N8N_VERSION="$version" npx jest -c test/e2e/jest.e2e.config.js --runInBand "$@"; then
		echo "== e2e: n8n $version passed in $((SECONDS - version_started)) s"
	else
		echo "== e2e: n8n $version FAILED after $((SECONDS - version_started)) s (logs: test/e2e/.work/$version/user/n8n.log)"
		failed+=("$version")
	fi
done

echo "== e2e: done in $((SECONDS - started)) s"
if ((${#failed[@]} > 0)); then
	echo "== e2e: failed on n8n ${failed[*]}" >&2
	exit 1
fi
