#!/usr/bin/env bash
# The editor screenshots use Debian's chromium (never a browser downloaded by playwright).
# Installs it when missing and this user may; otherwise the screenshot suite skips itself.
set -euo pipefail

if [[ -x /usr/bin/chromium ]]; then
	exit 0
fi
if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null; then
	echo "[e2e:install] installing Debian's chromium" >&2
	apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >&2
else
	echo "[e2e:install] /usr/bin/chromium is missing (apt-get install chromium); screenshots will be skipped" >&2
fi
