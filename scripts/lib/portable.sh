# Sourced by the install scripts (scripts/scan/install.sh for `npm test`'s release tier, scripts/e2e/cache.sh for
# `npm run dev` and the e2e, queue, engine-latest and n8n-node installs): what every one of them needs — the project's
# npm settings kept out of the installs they make, a lock, a hash — with the macOS way where GNU coreutils and
# util-linux differ.

project_npmrc="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/.npmrc"

# forget_project_npm_config: npm hands every `npm run` child the project's .npmrc as npm_config_* variables, and such a
# variable outranks the .npmrc of the folder an install runs in. The project's `ignore-scripts=true` is for its own
# `npm ci`; the installs these scripts make live outside the project and follow their own settings (n8n's builds
# sqlite3 in an install script; the scanner's and n8n-node's .npmrc turn scripts off themselves). So each variable
# named by a setting of the project's .npmrc is dropped — also one the user exported under that name; the user's npm
# configuration files are read again by every npm these scripts start.
forget_project_npm_config() {
	local key name
	while IFS='=' read -r key _ || [[ -n "$key" ]]; do
		key="$(printf '%s' "$key" | tr -d '[:space:]')"
		[[ "$key" =~ ^[A-Za-z0-9_-]+$ ]] || continue
		name="$(printf '%s' "$key" | tr 'A-Z-' 'a-z_')"
		unset "npm_config_$name" "NPM_CONFIG_$(printf '%s' "$name" | tr 'a-z' 'A-Z')"
	done <"$project_npmrc"
}
# Every script that sources this file installs something.
forget_project_npm_config

# remove_stale_staging DIR: the staging folders of installs into DIR that did not finish (a failed build, Ctrl-C). Call
# it holding DIR's lock: every installer stages under that lock, so a staging folder found then belongs to none.
remove_stale_staging() {
	local dir="$1" stale
	for stale in "$dir"/.staging-*; do
		[[ -e "$stale" ]] || continue
		printf '[install] removing %s, left by an install that did not finish\n' "$stale" >&2
		rm -rf "$stale"
	done
}

# sha256_16: the first 16 hex digits of the SHA-256 of stdin (sha256sum on Linux, shasum -a 256 on macOS).
sha256_16() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum
	else
		shasum -a 256
	fi | cut -c1-16
}

# lock_folder DIR: waits until this shell holds DIR's lock, which it keeps until it exits, so parallel installs into
# one cache wait instead of clobbering each other; holding it, clears what unfinished installs left in DIR. flock on DIR/.lock where flock exists (Linux); elsewhere a
# directory DIR/.lock.d made with mkdir (atomic) holding the owner's pid, taken over when that process is gone.
lock_folder() {
	local dir="$1"
	mkdir -p "$dir"
	if command -v flock >/dev/null 2>&1; then
		exec 9>"$dir/.lock"
		flock 9
		remove_stale_staging "$dir"
		return
	fi
	local lock="$dir/.lock.d" owner
	until mkdir "$lock" 2>/dev/null; do
		owner="$(cat "$lock/pid" 2>/dev/null || true)"
		if [[ -n "$owner" ]] && ! kill -0 "$owner" 2>/dev/null; then
			rm -rf "$lock"
		else
			sleep 1
		fi
	done
	printf '%s\n' "$$" >"$lock/pid"
	# shellcheck disable=SC2064 # the path is fixed now
	trap "rm -rf '$lock'" EXIT
	remove_stale_staging "$dir"
}
