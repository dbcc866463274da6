#!/usr/bin/env bash
# expect_status.sh STATUS BINARY [ARGS...]: runs an example app and passes
# iff it exits with STATUS (0 for a passing gradient check, 1 for one that
# must catch a planted bug). An ARM64 binary on another host runs under
# qemu-aarch64 (bazel test --config=aarch64 wraps only the script itself).
set -uo pipefail
expected=$1
shift
runner=()
if [[ "$(od -An -tx1 -j18 -N2 "$1" | tr -d ' \n')" == "b700" && "$(uname -m)" != "aarch64" ]]; then
  runner=(qemu-aarch64)
fi
"${runner[@]}" "$@"
status=$?
if ((status != expected)); then
  echo "expected exit status ${expected}, got ${status}" >&2
  exit 1
fi
