# Sourced by install.sh and run.sh: the n8n versions the end-to-end suite knows, and how E2E_N8N selects them.
#   all      every version (1.123, 2.8, 2.15, 2.41)
#   ci       the versions .ci/run proves (see docs/compatibility.md for why)
#   1.123 | 2.8 | 2.15 | 2.41, or a comma-separated list of them (e.g. 2.41,1.123)
e2e_known_versions=(1.123 2.8 2.15 2.41)
e2e_ci_versions=(1.123 2.41)

# Fills the array `versions` from a selection; returns 2 on an unknown one.
e2e_select_versions() {
	local selection="$1" item known found
	versions=()
	case "$selection" in
		all) versions=("${e2e_known_versions[@]}"); return 0 ;;
		ci) versions=("${e2e_ci_versions[@]}"); return 0 ;;
	esac
	IFS=',' read -ra items <<<"$selection"
	for item in "${items[@]}"; do
		found=""
		for known in "${e2e_known_versions[@]}"; do
			[[ "$item" == "$known" ]] && found=1
		done
		[[ -n "$found" ]] || return 2
		versions+=("$item")
	done
	((${#versions[@]} > 0)) || return 2
}

# Runs one jest config once per n8n version, with <variable>=<version> set for each run, and says which failed.
#   jest_per_version <label> <variable> <jest config> <logs: a printf format given the version> <version>... -- <jest args>...
# Returns 1 if any version failed.
jest_per_version() {
	local label="$1" variable="$2" config="$3" logs="$4" version version_started
	shift 4
	local selected=() failed=()
	while (($# > 0)) && [[ "$1" != -- ]]; do
		selected+=("$1")
		shift
	done
	(($# > 0)) && shift
	for version in "${selected[@]}"; do
		echo "== $label: n8n $version"
		version_started=$SECONDS
		if env "$variable=$version" npx jest -c "$config" --runInBand "$@"; then
			echo "== $label: n8n $version passed in $((SECONDS - version_started)) s"
		else
			# shellcheck disable=SC2059 # the format is the caller's
			echo "== $label: n8n $version FAILED after $((SECONDS - version_started)) s (logs: $(printf "$logs" "$version"))"
			failed+=("$version")
		fi
	done
	echo "== $label: done in $SECONDS s"
	if ((${#failed[@]} > 0)); then
		echo "== $label: failed on n8n ${failed[*]}" >&2
		return 1
	fi
}
