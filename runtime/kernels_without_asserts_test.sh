#!/usr/bin/env bash
# Kernels built without Halide's asserts (tools/bazel/halide.bzl,
# UNCHECKED_GENERATORS) must not heap-allocate: only an assert would catch a
# failed halide_malloc. Each object given must reference no halide_malloc,
# and no halide_error_* either (which would mean it was built with asserts).
# One nm over all objects: a process per object (over 500) took > 60 s on a
# VM where nm starts in 0.1 s.
set -euo pipefail
(( $# > 0 )) || { echo "FAIL: no kernel objects given"; exit 1; }
undefined=$(nm -u -A "$@")  # "<object>[:<member>]: U <symbol>" per line
offending=$(awk '$NF ~ /^(halide_malloc|halide_error)/ { print "FAIL: " $1 " references " $NF }' <<<"$undefined")
[[ -z $offending ]] || { echo "$offending"; exit 1; }
echo "PASS: $# kernel objects, none allocating or asserting"
