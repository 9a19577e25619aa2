#!/usr/bin/env bash
# Installs and bundles the minimal MCP Apps host that the explorer's app
# browser test (TestAppsInHost) shows the tools' apps in: the app bridge
# of @modelcontextprotocol/ext-apps and the MCP TypeScript SDK client, at
# the versions explorer/testdata/apphost/package.json and
# package-lock.json pin, installed into .cache/apphost (listed in
# .gitignore), and host.js bundled by esbuild (from the same lock) into
# .cache/apphost/host.bundle.js. Run it once before the test; the test
# skips without it (and fails when CI=true).
#
#   scripts/apphost.sh && TOOLAPI_TEST_FULL=1 go test ./explorer -run TestAppsInHost
#
# It does nothing when the installed packages and the bundle are up to date.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
src=$root/explorer/testdata/apphost
cache=$root/.cache/apphost
stamp=$cache/installed

if ! command -v npm >/dev/null; then
	echo "apphost.sh: npm is not installed (Debian: apt-get install nodejs npm)" >&2
	exit 1
fi

want="$(cat "$src/package.json" "$src/package-lock.json" "$src/host.js" | sha256sum | cut -d' ' -f1)"
if [[ -f $stamp && -f $cache/host.bundle.js && $(cat "$stamp") == "$want" ]]; then
	echo "apphost.sh: .cache/apphost is up to date" >&2
	exit 0
fi

echo "apphost.sh: installing the app host's packages into .cache/apphost" >&2
rm -rf "$cache"
mkdir -p "$cache"
cp "$src/package.json" "$src/package-lock.json" "$src/host.js" "$cache/"
npm ci --prefix "$cache" --no-audit --no-fund --loglevel=error >&2
"$cache/node_modules/.bin/esbuild" "$cache/host.js" --bundle --format=iife --platform=browser \
	--target=es2020 --log-level=warning --outfile="$cache/host.bundle.js" >&2
echo "$want" >"$stamp"
echo "apphost.sh: bundled .cache/apphost/host.bundle.js" >&2
