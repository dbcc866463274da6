#!/usr/bin/env bash
# Runs on a GPU machine from the bundle tools/gpu_bundle.sh made (copied
# there as .gpu/run.sh). Steps: tests | bench | sweep | torch | ncu | all
# (default: tests).
#   tests: the CUDA tests, and the forced-variant suites' CUDA cases; one
#          line per binary, the failures' output, then "N passed, N failed".
#   bench: gpu_bench and gpu_layer_norm2d_bench (dispatched calls).
#   sweep: both with --all_configs (every CUDA config, forced).
#   torch: PyTorch's CUDA LayerNorm/RMSNorm on gpu_bench's shapes (the peer).
#   ncu:   each kernel of a LayerNorm bf16 call per hidden size in $NCU_HIDDEN
#          (default 1000,4096), by Nsight Compute: time, DRAM bytes, launch
#          shape, registers, occupancy.
#   all:   tests, bench, sweep and torch in one call (a lease is short: a
#          machine's start costs minutes), each step's output also in
#          $OUT/<step>.txt (and nothing else there), each under a time
#          limit so that one that hangs leaves the others their time.
set -uo pipefail
step=${1:-tests}
# The binaries and libraries, unpacked once next to this script.
here=$(cd "$(dirname "$0")" && pwd)/unpacked
if [[ ! -d $here ]]; then
  mkdir -p "$here.tmp" && tar -xzf "$(dirname "$here")/bundle.tar.gz" -C "$here.tmp" &&
    mv "$here.tmp" "$here" || exit 1
fi
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export TEST_TMPDIR=${TEST_TMPDIR:-$(mktemp -d)}
# The tests' full logs: in $OUT (the device tool's folder, which comes back)
# when set.
logs=${OUT:-$TEST_TMPDIR}

run_tests() {
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null ||
    echo "(no nvidia-smi here)"
  local passed=0 failed=0 name filter log
  # The forced-variant suites: only their CUDA variants' cases.
  for name in cuda_api_test cuda_runtime_kernels_test cuda_driver_test layer_norm2d_test \
    row_norm_forward_test row_norm_backward_test; do
    filter='*'
    case $name in layer_norm2d_test | row_norm_*) filter='*cuda*' ;; esac
    log="$logs/$name.log"
    if "$here/bin/$name" --gtest_filter="$filter" --gtest_brief=1 >"$log" 2>&1; then
      passed=$((passed + 1))
      echo "PASSED $name: $(grep -E '^\[  (PASSED|SKIPPED) ' "$log" | tr '\n' ' ')"
    else
      # The first failure, not the last: a CUDA fault is sticky, so every
      # later case of the binary fails too (compute-sanitizer --tool
      # memcheck on the failing filter then names the kernel).
      failed=$((failed + 1))
      echo "FAILED $name: $(grep -c '^\[  FAILED  \]' "$log") cases failed; the first:"
      grep -m 1 -B 20 -A 5 '^\[  FAILED  \]' "$log" || tail -n 40 "$log"
    fi
  done
  echo "$passed passed, $failed failed"
  ((failed == 0))
}

case $step in
  tests) run_tests ;;
  bench)
    "$here/bin/gpu_bench" && "$here/bin/gpu_layer_norm2d_bench"
    ;;
  sweep)
    "$here/bin/gpu_bench" --all_configs && "$here/bin/gpu_layer_norm2d_bench" --all_configs
    ;;
  torch) python3 "$(dirname "$0")/gpu_torch_peer.py" ;;
  all)
    status=0
    for each in tests:240 bench:120 sweep:240 torch:120; do
      echo "== ${each%%:*}"
      # Without OUT, the tests' per-binary logs stay out of it (the tool
      # brings back 8 files at most); their first failures are in tests.txt.
      timeout "${each##*:}" env -u OUT bash "$0" "${each%%:*}" 2>&1 |
        tee "$logs/${each%%:*}.txt" || status=1
    done
    exit $status
    ;;
  ncu)
    ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null |
      head -n 1)
    [[ -n $ncu ]] || { echo "no ncu here" && exit 1; }
    metrics=gpu__time_duration.sum,dram__bytes.sum,launch__grid_size,launch__block_size
    metrics+=,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active
    # --clock-control none: the clocks the benchmarks run at.
    "$ncu" --clock-control none --csv --page raw --metrics "$metrics" \
      "$here/bin/gpu_bench" --ops=layer_norm --dtypes=bf16 --hidden="${NCU_HIDDEN:-1000,4096}" \
      --iterations=1 --repeats=1
    ;;
  *)
    echo "usage: run.sh [tests|bench|sweep|torch|ncu|all]" >&2
    exit 2
    ;;
esac
