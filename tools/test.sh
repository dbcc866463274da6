#!/usr/bin/env bash
# The whole test suite: install what is missing, then bazel test //... on
# this machine (x86-64), again under ASan + UBSan (but //tools and the
# generators), a minute of fuzzing, the tests of examples/external_workspace
# (a workspace depending on this one), and bazel test --config=aarch64
# (cross-built, run under qemu-aarch64), plus an ARM64 build of the
# benchmarks and examples.
# Ends with one "N passed, N failed" line: test targets, from Bazel's summaries.
set -uo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh --aarch64 || exit 1
log=$(mktemp)
status=0
phases=""  # "<seconds>s <step>" per step, printed at the end: where CI time goes
# Runs "$@" after the step's label $1, adding its time to phases.
timed() {
  local label=$1 start=$SECONDS
  shift
  echo "+ $label"
  "$@"
  phases+="$((SECONDS - start))s $label"$'\n'
}
bazel_step() {
  bazel "$@" 2>&1 | tee -a "$log"
  local rc=${PIPESTATUS[0]}
  ((rc == 0)) || status=$rc
}
run() { timed "bazel $*" bazel_step "$@"; }
# (the GPU benchmarks are tagged manual, as the others: named here so that
# they compile where no GPU runs them)
run test //... //bench:gpu_bench //bench:gpu_layer_norm2d_bench "$@"
# The same suite with ASan + UBSan over the runtime, tests and examples; not
# //tools, whose autotuner would rebuild the generators and libHalide's users
# instrumented for tests of a build-time tool (they run uninstrumented above),
# nor //generators and //schedules: no test links them, and instrumenting
# them was 26 Halide-heavy compiles for nothing (the kernels' generator is
# a host tool, built once above).
run test --config=asan "$@" -- //... -//tools/... -//generators/... -//schedules/...
# libFuzzer over the C API for a minute (clang; tools/fuzz.sh).
fuzz() { bash tools/fuzz.sh 60 2>&1 | tail -n 60 || { status=1; echo "fuzzing FAILED"; }; }
timed "bash tools/fuzz.sh 60" fuzz
# A separate workspace using halnorm through local_repository, as an app's
# would (its own output base: it builds the kernels again).
cd examples/external_workspace
run test //... "$@"
bazel shutdown
cd ../..
run test --config=aarch64 //tests/... //runtime/... //examples/... //fuzz/... "$@"
# (the benchmark binaries are tagged manual: named here)
run build --config=aarch64 //runtime/... //bench/... //bench:row_norm_bench \
  //bench:layer_norm2d_bench //examples/... "$@"
passed=$(grep -cE '^//\S+ +(\(cached\) )?PASSED' "$log")
failed=$(grep -cE '^//\S+ +(\(cached\) )?(FAILED|TIMEOUT|NO STATUS|INCOMPLETE)' "$log")
rm -f "$log"
printf 'time per step (%d s in all):\n%s' "$SECONDS" "$phases"
echo "targets: ${passed} passed, ${failed} failed (x86-64 and aarch64 under qemu)"
exit "$status"
