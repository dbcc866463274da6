#!/usr/bin/env bash
# The whole test suite: install what is missing, then bazel test //...
# Ends with one "N passed, N failed" line: test targets, from Bazel's summary.
set -uo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh || exit 1
log=$(mktemp)
bazel test //... "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
passed=$(grep -cE '^//\S+ +(\(cached\) )?PASSED' "$log")
failed=$(grep -cE '^//\S+ +(\(cached\) )?(FAILED|TIMEOUT|NO STATUS|INCOMPLETE)' "$log")
rm -f "$log"
echo "targets: ${passed} passed, ${failed} failed"
exit "$status"
