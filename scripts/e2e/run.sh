#!/usr/bin/env bash
# `npm run test:e2e`: the pack inside real n8n processes, over the version matrix.
#   E2E_N8N=all|ci|1.123|2.8|2.15|2.41|a comma-separated list (default all)   extra arguments go to jest (-t forged)
# Installs what is missing (n8n per version, the Node each needs, Debian's chromium), packs the pack as README → Install
# says (npm run pack:n8n; the harness installs it with the README's commands), then runs
# test/e2e once per n8n version; each run writes test/e2e/.work/results/<version>.json (what was proven, for the
# version table of docs/compatibility.md: npm run versions:table). Exits non-zero if any version failed.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=versions.sh
source scripts/e2e/versions.sh

selection="${E2E_N8N:-all}"
if ! e2e_select_versions "$selection"; then
	echo "E2E_N8N must be all, ci, one of ${e2e_known_versions[*]} or a comma-separated list (got '$selection')" >&2
	exit 2
fi

bash scripts/e2e/install.sh "$selection"
bash scripts/e2e/install-chromium.sh
npm run pack:n8n
jest_per_version e2e E2E_N8N_VERSION test/e2e/jest.e2e.config.js 'test/e2e/.work/%s/user/n8n.log' \
	"${versions[@]}" -- "$@"
