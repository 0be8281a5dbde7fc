#!/usr/bin/env bash
# Validate a governance tree against a running governanced with nothing but tar
# and curl. Exit status: 0 when the report is ok, 1 otherwise.
set -euo pipefail
url=${GOVERNANCED_URL:-http://governanced:8080}
report=$(tar czf - apps owners.yaml | curl --fail-with-body -sS \
  -H 'Content-Type: application/gzip' --data-binary @- \
  "$url/validate?owners=owners.yaml&strict=true")
echo "$report"
echo "$report" | grep -q '"ok":true'
