#!/usr/bin/env bash
# The main job: install what is missing, build the kernels, run the example
# app, print a short benchmark summary (the variant dispatch picks here).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
bazel build //runtime:halnorm //runtime:libhalnorm.so //examples/... //bench:row_norm_bench
bazel run //examples:layer_norm_app
bazel run //examples/transformer_block  # a training step, its gradients checked numerically
bazel run //bench:row_norm_bench -- --summary --benchmark_filter='N:4096/' --benchmark_min_time=0.1
