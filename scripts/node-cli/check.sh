#!/usr/bin/env bash
# `npm run check:n8n-node`: n8n's own node tool on this package, as n8n's verification asks ("use the n8n-node tool to
# create and check your package"), on Node 24 (scripts/node-cli/install.sh):
#   1. `n8n-node lint`, in strict mode, with the starter's eslint.config.mjs exactly as @n8n/node-cli ships it;
#   2. `n8n-node build`, and its dist/ compared file by file with the one `npm run build` writes.
# Both run on a copy of the package as a starter project holds it: package.json, tsconfig.json and the shipped sources
# (credentials/, nodes/, src/, icons/) as git would commit them, README.md, LICENSE, CHANGELOG.md. The repository itself
# keeps its own eslint.config.mjs (the same rule sets, plus the tests, sandbox and scripts, which n8n's config would hold
# to the rules for shipped code) and its own build step (which also writes the documentation links, and copies no
# docs/ screenshots into dist/: `n8n-node build` copies every .png and .svg outside dist/ and node_modules/).
# Exits non-zero when the lint finds a problem or the two builds differ.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
say() { printf '== [n8n-node] %s\n' "$*"; }

{
	read -r install
	read -r node_bin
} < <(bash "$root/scripts/node-cli/install.sh")
cli="$install/node_modules/.bin/n8n-node"
version="$("$node_bin/node" -p "require('$install/node_modules/@n8n/node-cli/package.json').version")"

work="$(mktemp -d "${TMPDIR:-/tmp}/tss-n8n-node-XXXXXX")"
trap 'rm -rf "$work"' EXIT
package="$work/package"
mkdir -p "$package"
(
	cd "$root"
	git ls-files -z --cached --others --exclude-standard -- package.json tsconfig.json README.md LICENSE CHANGELOG.md \
		credentials nodes src icons |
		while IFS= read -r -d '' file; do
			[[ -f "$file" ]] || continue
			mkdir -p "$package/$(dirname "$file")"
			cp "$file" "$package/$file"
		done
)
cp "$install/node_modules/@n8n/node-cli/dist/template/templates/shared/default/eslint.config.mjs" "$package/"
ln -s "$install/node_modules" "$package/node_modules"
say "@n8n/node-cli $version on Node $("$node_bin/node" --version), on a copy of the package ($(find "$package" -type f | wc -l | tr -d ' ') files) in $package"

cd "$package"
export PATH="$node_bin:$PATH"
say "n8n-node lint"
"$cli" lint
say "n8n-node build"
"$cli" build

say "npm run build (this repository's build) for the comparison"
(cd "$root" && npm run build --silent)
if diff -r "$root/dist" "$package/dist" >"$work/dist.diff"; then
	say "n8n-node build's dist/ is byte for byte the one npm run build writes ($(find dist -type f | wc -l | tr -d ' ') files)"
else
	say "n8n-node build's dist/ differs from npm run build's:"
	cat "$work/dist.diff"
	exit 1
fi
