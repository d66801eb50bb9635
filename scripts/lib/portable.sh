# Sourced by the install scripts (scripts/scan/install.sh for `npm test`'s release tier, scripts/e2e/cache.sh for
# `npm run dev` and the e2e, queue and engine-latest installs): the two things they need that GNU coreutils and
# util-linux provide and macOS does not, with the macOS way as the fallback.

# sha256_16: the first 16 hex digits of the SHA-256 of stdin (sha256sum on Linux, shasum -a 256 on macOS).
sha256_16() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum
	else
		shasum -a 256
	fi | cut -c1-16
}

# lock_folder DIR: waits until this shell holds DIR's lock, which it keeps until it exits, so parallel installs into
# one cache wait instead of clobbering each other. flock on DIR/.lock where flock exists (Linux); elsewhere a
# directory DIR/.lock.d made with mkdir (atomic) holding the owner's pid, taken over when that process is gone.
lock_folder() {
	local dir="$1"
	mkdir -p "$dir"
	if command -v flock >/dev/null 2>&1; then
		exec 9>"$dir/.lock"
		flock 9
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
}
