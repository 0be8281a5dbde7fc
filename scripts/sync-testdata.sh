#!/usr/bin/env bash
# Refreshes testdata/ from a directory laid out like the specification's
# (conformance/, reference/, spec/policy-cases/, spec/lineage-cases/,
# spec/check.md, spec/graph.md). Each corpus is replaced whole, so a case
# removed at the source is removed here too.
#
#   scripts/sync-testdata.sh /path/to/shared
set -euo pipefail
if [ $# -ne 1 ] || [ ! -d "$1" ]; then
  echo "usage: $0 SOURCE_DIR   (a directory holding conformance/, reference/ and spec/)" >&2
  exit 2
fi
src=$(cd "$1" && pwd)
dst="$(cd "$(dirname "$0")/.." && pwd)/testdata"

copy_dir() { # copy_dir FROM TO
  [ -d "$src/$1" ] || { echo "sync-testdata: $src/$1 is missing" >&2; exit 1; }
  rm -rf "${dst:?}/$2"
  mkdir -p "$(dirname "$dst/$2")"
  cp -R "$src/$1" "$dst/$2"
  chmod -R u+w "$dst/$2"
}
copy_file() { # copy_file FROM TO
  [ -f "$src/$1" ] || { echo "sync-testdata: $src/$1 is missing" >&2; exit 1; }
  mkdir -p "$(dirname "$dst/$2")"
  cp "$src/$1" "$dst/$2"
  chmod u+w "$dst/$2"
}

copy_dir conformance conformance
copy_dir reference reference
copy_dir spec/policy-cases policy-cases
copy_dir spec/lineage-cases lineage-cases
copy_file spec/check.md spec/check.md
copy_file spec/graph.md spec/graph.md
echo "testdata/ refreshed from $src; review with: git -C '$dst/..' status testdata"
