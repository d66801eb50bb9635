#!/usr/bin/env bash
# What `npm run test:queue` and benchmark P5 need, installed when missing:
#   - PostgreSQL 15 and Redis 7 from Debian's packages (apt-get update first; root only). Only the programs are used:
#     each run starts its own private instances on free loopback ports and stops them. The packages' own default
#     services are neither created nor started here (no cluster "15/main", no redis on 6379).
#   - n8n 2.8.4 (Node 20), 2.15.1 and 2.41.3 (Node 24), through the e2e installer and its cache (~/.cache/tss-e2e).
#
#   scripts/queue/install.sh [2.8|2.15|2.41|a comma-separated list]      (default: $QUEUE_N8N, else 2.8,2.15,2.41)
set -euo pipefail

repo_root="$(cd "$(dirname "$0")/../.." && pwd)"
postgres_bin="${QUEUE_POSTGRES_BIN:-/usr/lib/postgresql/15/bin}"
log() { printf '[queue:install] %s\n' "$*" >&2; }

missing=()
[[ -x "$postgres_bin/postgres" && -x "$postgres_bin/initdb" ]] || missing+=(postgresql-15)
command -v "${QUEUE_REDIS_SERVER:-redis-server}" >/dev/null || missing+=(redis-server)

if ((${#missing[@]} > 0)); then
	if [[ "$(id -u)" != 0 ]] || ! command -v apt-get >/dev/null; then
		log "missing ${missing[*]}: install them (apt-get install ${missing[*]}) or run this as root on Debian"
		exit 1
	fi
	log "installing ${missing[*]} from Debian's packages"
	# No default cluster (postgresql-common reads this before creating one) and no service started by the
	# packages' scripts while they install (policy-rc.d answers "not allowed" to invoke-rc.d).
	if [[ ! -e /etc/postgresql-common/createcluster.conf ]]; then
		mkdir -p /etc/postgresql-common
		printf 'create_main_cluster = false\n' >/etc/postgresql-common/createcluster.conf
	fi
	added_policy=""
	if [[ ! -e /usr/sbin/policy-rc.d ]]; then
		printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
		chmod +x /usr/sbin/policy-rc.d
		added_policy=1
	fi
	status=0
	apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2 || status=$?
	[[ -n "$added_policy" ]] && rm -f /usr/sbin/policy-rc.d
	((status == 0)) || exit "$status"
fi
log "$("$postgres_bin/postgres" --version); $("${QUEUE_REDIS_SERVER:-redis-server}" --version | cut -d' ' -f1-3)"

bash "$repo_root/scripts/e2e/install.sh" "${1:-${QUEUE_N8N:-2.8,2.15,2.41}}"
