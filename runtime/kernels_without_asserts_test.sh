#!/usr/bin/env bash
# Kernels built without Halide's asserts (tools/bazel/halide.bzl,
# UNCHECKED_GENERATORS) must not heap-allocate: only an assert would catch a
# failed halide_malloc. Each object given must reference no halide_malloc,
# and no halide_error_* either (which would mean it was built with asserts).
set -euo pipefail
(( $# > 0 )) || { echo "FAIL: no kernel objects given"; exit 1; }
failed=0
for object in "$@"; do
  undefined=$(nm -u "$object" | awk '{print $NF}')
  for symbol in $(grep -E '^(halide_malloc|halide_error)' <<<"$undefined" || true); do
    echo "FAIL: $object references $symbol"
    failed=1
  done
done
(( failed == 0 )) || exit 1
echo "PASS: $# kernel objects, none allocating or asserting"
