# Sourced by install.sh and run.sh: the n8n versions the end-to-end suite knows, and how E2E_N8N selects them.
#   all      every version (1.123, 2.8, 2.15)
#   ci       the versions .ci/run proves (see the README's "Versions" section for why)
#   1.123 | 2.8 | 2.15, or a comma-separated list of them (e.g. 2.8,1.123)
e2e_known_versions=(1.123 2.8 2.15)
e2e_ci_versions=(1.123 2.8 2.15)

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
