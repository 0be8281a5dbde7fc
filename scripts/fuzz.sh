#!/usr/bin/env bash
# Runs every fuzz target of the module for a bounded time each (FUZZTIME,
# default 10s), so CI keeps exercising the parsers on inputs nobody wrote.
# A crasher is saved under the package's testdata/fuzz and fails the run.
#
# FUZZMINIMIZETIME (default 2s) bounds how long the fuzzer shrinks each new
# interesting input; Go's default of 60s would spend a short run minimizing
# the large reference seeds instead of fuzzing.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-10s}
minimize=${FUZZMINIMIZETIME:-2s}
status=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$SECONDS
count=0
# Only the packages that declare a fuzz target are compiled.
for dir in $(grep -rl --include='*_test.go' '^func Fuzz' . | xargs -n1 dirname | sort -u); do
  pkg=$(go list "$dir")
  for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go | sed 's/^func //' | sort -u); do
    count=$((count + 1))
    t0=$SECONDS
    if go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimize" "$pkg" >"$log" 2>&1; then
      echo "fuzz: ok   $pkg $target ($fuzztime, $((SECONDS - t0))s with the build)"
    else
      echo "fuzz: FAIL $pkg $target"
      cat "$log"
      status=1
    fi
  done
done
echo "fuzz: $count targets in $((SECONDS - start))s"
exit $status
