#!/usr/bin/env bash
# `npm run test:engine:latest`: the engine tier (test/engine) against the newest n8n-core / n8n-workflow / @n8n/di
# the registry here serves, on the Node 24 they need. Extra arguments go to jest (e.g. a test file).
# Passes when every test passes except those test/engine/n8n-core-latest/known-failures.json lists, each failing for
# the reason written there; a listed test that passes fails the run too, so the list cannot outlive the fix.
set -euo pipefail
cd "$(dirname "$0")/../.."

bash scripts/engine/install-latest.sh
node_bin="test/engine/.work/n8n-core-latest/node_modules/.tss-e2e/node"
echo "== engine tier on the latest n8n-core, Node $("$node_bin" --version)"
# Jest's own status is not the verdict: known failures make it non-zero. The check below reads what each test did.
"$node_bin" node_modules/jest/bin/jest.js -c test/engine/jest.latest.config.js "$@" || true
node scripts/engine/check-known-failures.mjs
