#!/usr/bin/env bash
# `npm run pack:n8n`: builds the package and packs it as n8n-nodes-transcription-service.tgz in this folder — the tarball
# README → Install puts into an n8n. One name for every version, so the install commands never change; the e2e and
# queue suites run those commands from the README (scripts/install-steps.ts), so they cannot rot.
set -euo pipefail
cd "$(dirname "$0")/.."

tarball="$(node -p "require('./package.json').name").tgz"
rm -f "$tarball"
npm run build --silent
packed="$(npm pack --silent)"
mv "$packed" "$tarball"
echo "$tarball ($(($(wc -c <"$tarball") / 1024)) KiB): README → Install says how to put it into your n8n"
