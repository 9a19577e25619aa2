#!/usr/bin/env bash
# Measures toolgen's discovery on a generated tree of 900 one-file service
# packages (ten methods each, about 7 MB of Go) of which 30 carry
# directives, and checks the figures against their targets:
#
#   scan      the byte scan of the 900 files (BenchmarkScan), beside a naive
#             sequential walk of the same tree; target: under 5 ms
#   describe  a whole toolgen -describe run on a warm build cache
#             (BenchmarkDescribe), beside a bare go/packages load
#             (NeedName|NeedTypes|NeedSyntax|NeedTypesInfo) of the same 30
#             packages, the two alternating in one run; target: at most
#             1.2 times the load
#   cold      a -describe run on an empty build cache
#             (BenchmarkDescribeColdCache); reported, no target
#
#   scripts/bench-discovery.sh              # 10 runs of each warm benchmark
#   scripts/bench-discovery.sh -count 20    # more runs
#   scripts/bench-discovery.sh -nocold      # leave out the cold-cache run
#
# Each warm run reports medians over its iterations; benchstat summarises
# the runs (median and confidence interval). Other processes using the CPU
# slow the parallel scan more than the sequential baseline, so run this on
# an otherwise idle machine; the "best run" lines show the fastest run.
set -euo pipefail

BENCHSTAT=golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da

count=10
cold=1
while (($# > 0)); do
	case $1 in
	-count)
		count=$2
		shift
		;;
	-nocold) cold=0 ;;
	-h | --help)
		sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "unknown option $1" >&2
		exit 2
		;;
	esac
	shift
done

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=$(mktemp)
trap 'rm -f "$out"' EXIT

echo "go test ./internal/gen -run '^\$' -bench '^(BenchmarkScan|BenchmarkDescribe)\$' -count $count"
go test ./internal/gen -run '^$' -bench '^(BenchmarkScan|BenchmarkDescribe)$' -count "$count" | tee "$out"
if ((cold)); then
	echo "go test ./internal/gen -run '^\$' -bench '^BenchmarkDescribeColdCache\$' -benchtime 1x -count 3"
	go test ./internal/gen -run '^$' -bench '^BenchmarkDescribeColdCache$' -benchtime 1x -count 3 | tee -a "$out"
fi
echo
go run "$BENCHSTAT" "$out"
echo

# The medians and best runs of the metrics with targets.
metric() { # benchmark unit -> the values of one metric, one a line
	awk -v b="$1" -v u="$2" '$1 ~ "^"b"(-[0-9]+)?$" { for (i = 3; i < NF; i++) if ($(i+1) == u) print $i }' "$out"
}
summary() { # benchmark unit target
	metric "$1" "$2" | sort -g | awk -v u="$2" -v t="$3" '
		{ v[NR] = $1 }
		END {
			if (NR == 0) { print u ": no runs"; exit }
			m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%-17s median %9.3f   best run %9.3f", u, m, v[1]
			if (t != "-") printf "   target <= %s: %s", t, (m <= t + 0 ? "met" : "missed")
			printf "\n"
		}'
}
summary BenchmarkScan scan-ms 5
summary BenchmarkScan naive-ms -
summary BenchmarkDescribe describe/load 1.2
summary BenchmarkDescribe load-ms -
summary BenchmarkDescribe describe-ms -
if ((cold)); then
	summary BenchmarkDescribeColdCache cold-describe-ms -
fi
