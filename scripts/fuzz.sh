#!/usr/bin/env bash
# Runs every fuzz target of the module for a bounded time each (FUZZTIME,
# default 10s), so CI keeps exercising the parsers on inputs nobody wrote.
# A crasher is saved under the package's testdata/fuzz and fails the run.
#
# A run that fails without writing a new reproducer under testdata/fuzz is
# Go's own coordinator race at the -fuzztime deadline (go.dev/issue/75804,
# fixed in Go 1.27, present in the 1.26 toolchain this project uses): it
# reports "context deadline exceeded" with no failing input. That is counted
# as a flake and printed, not failed; a written reproducer always fails.
#
# FUZZMINIMIZETIME (default 2s) bounds how long the fuzzer shrinks each new
# interesting input; Go's default of 60s would spend a short run minimizing
# the large reference seeds instead of fuzzing.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-10s}
minimize=${FUZZMINIMIZETIME:-2s}
status=0
flakes=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$SECONDS
count=0
count_files() { { ls "$1" 2>/dev/null || true; } | wc -l; }
# Only the packages that declare a fuzz target are compiled.
for dir in $(grep -rl --include='*_test.go' '^func Fuzz' . | xargs -n1 dirname | sort -u); do
  pkg=$(go list "$dir")
  for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go | sed 's/^func //' | sort -u); do
    count=$((count + 1))
    t0=$SECONDS
    corpus="$dir/testdata/fuzz/$target"
    before=$(count_files "$corpus")
    if go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimize" "$pkg" >"$log" 2>&1; then
      echo "fuzz: ok   $pkg $target ($fuzztime, $((SECONDS - t0))s with the build)"
    elif [ "$(count_files "$corpus")" -eq "$before" ] && grep -q 'context deadline exceeded' "$log" && ! grep -q 'Failing input written' "$log"; then
      echo "fuzz: flake $pkg $target: the fuzzer's deadline race (go.dev/issue/75804), no failing input"
      flakes=$((flakes + 1))
    else
      echo "fuzz: FAIL $pkg $target"
      cat "$log"
      status=1
    fi
  done
done
echo "fuzz: $count targets in $((SECONDS - start))s ($flakes deadline flakes)"
exit $status
