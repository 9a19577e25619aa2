#!/usr/bin/env bash
# Checks every adapter module under contrib/: its go.mod and go.sum are
# tidy, go vet is clean, and its tests pass with the race detector. Each
# adapter is its own module (the root module's ./... does not reach it).
# contrib/internal/all, a module that requires every adapter, is checked
# the same way: its test runs one tool through all of them, and its build
# shows that their dependencies agree in one module. Then it builds a module outside the repository that uses one adapter the
# way docs/contrib/README.md tells a user to: replace lines to this checkout
# for the root module and the adapter, GOFLAGS=-mod=mod, from the module
# cache only (GOPROXY=off).
#
#	bash scripts/contrib-test.sh            # every module
#	bash scripts/contrib-test.sh eino genai # some of them
#	bash scripts/contrib-test.sh internal/all
set -euo pipefail
cd "$(dirname "$0")/.."

modules=("$@")
if ((${#modules[@]} == 0)); then
	for mod in contrib/*/go.mod; do
		modules+=("$(basename "$(dirname "$mod")")")
	done
	modules+=(internal/all)
fi

failed=()
for m in "${modules[@]}"; do
	dir=contrib/$m
	echo "== $dir"
	if ! (cd "$dir" && go mod tidy -diff && go vet ./... && go test -race -count=1 ./...); then
		failed+=("$m")
	fi
done

# outside builds a throwaway module outside the repository that requires
# contrib/openai through replace lines and compiles a main using it.
outside() {
	local root tmp
	root=$PWD
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' RETURN
	cat >"$tmp/go.mod" <<EOF
module example.com/useadapter

go 1.26.0

require (
	github.com/toolapi/toolapi v0.0.0-00010101000000-000000000000
	github.com/toolapi/toolapi/contrib/openai v0.0.0-00010101000000-000000000000
)

replace github.com/toolapi/toolapi => $root

replace github.com/toolapi/toolapi/contrib/openai => $root/contrib/openai
EOF
	cat >"$tmp/main.go" <<'EOF'
package main

import (
	"fmt"

	toolopenai "github.com/toolapi/toolapi/contrib/openai"
	"github.com/toolapi/toolapi/tool"
)

func main() {
	reg := tool.NewRegistry(nil)
	tools := toolopenai.New(reg, tool.Anonymous, nil)
	fmt.Println(len(tools.Chat()))
}
EOF
	# The checksums a user's go.sum gets from go mod tidy online.
	sort -u go.sum contrib/openai/go.sum >"$tmp/go.sum"
	(cd "$tmp" && GOPROXY=off GOFLAGS=-mod=mod GOWORK=off go run . >/dev/null)
}

echo "== a module outside the repository using contrib/openai"
if ! outside; then
	failed+=("outside")
fi

if ((${#failed[@]} > 0)); then
	echo "contrib modules failing: ${failed[*]}"
	exit 1
fi
echo "contrib modules passing: ${modules[*]}, and the module outside"
