#!/usr/bin/env bash
# Runs every fuzz target of the module for a bounded time each (FUZZTIME,
# default 10s), so CI keeps exercising the parsers on inputs nobody wrote.
# A crasher is saved under the package's testdata/fuzz and fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-10s}
status=0
for pkg in $(go list ./...); do
  targets=$(go test -list '^Fuzz' "$pkg" 2>/dev/null | grep '^Fuzz' || true)
  for target in $targets; do
    echo "fuzz: $pkg $target ($fuzztime)"
    if ! go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "$pkg" > /tmp/fuzz-$$.log 2>&1; then
      cat /tmp/fuzz-$$.log
      status=1
    fi
  done
done
rm -f /tmp/fuzz-$$.log
exit $status
