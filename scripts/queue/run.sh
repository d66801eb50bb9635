#!/usr/bin/env bash
# `npm run test:queue`: the pack in n8n's queue mode — one main, two workers and two webhook processors behind a
# round-robin router, on private PostgreSQL 15 and Redis 7 — once per n8n version.
#   QUEUE_N8N=2.8|2.15|2.41 or a comma-separated list (default 2.8,2.15,2.41)    extra arguments go to jest (-t 'trigger')
#   QUEUE_PROFILE=ci    CI's lighter counts (40 instead of 200 executions, a 64 MiB instead of a 256 MiB file, …)
# Installs what is missing (scripts/queue/install.sh), packs the pack as README → Install says (npm run pack:n8n),
# then runs test/queue once per version; each run
# writes test/e2e/.work/queue/results/<version>[-ci].json (the figures it measured) and keeps every process's log in
# test/e2e/.work/queue/<version>[-ci]/. Exits non-zero if any version failed.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=../e2e/versions.sh
source scripts/e2e/versions.sh

selection="${QUEUE_N8N:-2.8,2.15,2.41}"
IFS=',' read -ra versions <<<"$selection"
for version in "${versions[@]}"; do
	if [[ "$version" != 2.8 && "$version" != 2.15 && "$version" != 2.41 ]]; then
		echo "QUEUE_N8N must list some of 2.8, 2.15 and 2.41 (got '$selection')" >&2
		exit 2
	fi
done

bash scripts/queue/install.sh "$selection"
npm run pack:n8n
jest_per_version queue QUEUE_N8N_VERSION test/queue/jest.queue.config.js \
	"test/e2e/.work/queue/%s${QUEUE_PROFILE:+-$QUEUE_PROFILE}/" "${versions[@]}" -- "$@"
