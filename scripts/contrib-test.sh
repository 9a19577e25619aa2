#!/usr/bin/env bash
# Checks every adapter module under contrib/: its go.mod and go.sum are
# tidy, go vet is clean, and its tests pass with the race detector. Each
# adapter is its own module (the root module's ./... does not reach it).
#
#	bash scripts/contrib-test.sh            # every module
#	bash scripts/contrib-test.sh eino genai # some of them
set -euo pipefail
cd "$(dirname "$0")/.."

modules=("$@")
if ((${#modules[@]} == 0)); then
	for mod in contrib/*/go.mod; do
		modules+=("$(basename "$(dirname "$mod")")")
	done
fi

failed=()
for m in "${modules[@]}"; do
	dir=contrib/$m
	echo "== $dir"
	if ! (cd "$dir" && go mod tidy -diff && go vet ./... && go test -race -count=1 ./...); then
		failed+=("$m")
	fi
done

if ((${#failed[@]} > 0)); then
	echo "contrib modules failing: ${failed[*]}"
	exit 1
fi
echo "contrib modules passing: ${modules[*]}"
