#!/usr/bin/env bash
# For a session lent a GPU machine (the `device` tool): packs the CUDA tests
# and GPU benchmarks into .gpu/ (git-ignored), a tarball small enough to
# carry there (`carry: [".gpu"]`, 64 MiB at most; about 35 MiB), with the
# script that unpacks and runs them:
#
#   bash tools/gpu_bundle.sh          # here: builds and packs (~15 min cold)
#   bash .gpu/run.sh tests            # there: the CUDA tests (~1-2 min)
#   bash .gpu/run.sh bench            # there: gpu_bench, gpu_layer_norm2d_bench
#   bash .gpu/run.sh sweep            # there: the same with --all_configs
#   bash .gpu/run.sh torch            # there: PyTorch's CUDA norms, the peer
#   bash .gpu/run.sh ncu              # there: kernel times of a backward
#
# The device machine has no Bazel and no network, so the binaries travel
# built, with the shared libraries they load (less glibc's and the CUDA
# driver, which the machine has). They are built with only the baseline CPU
# kernels (--define=halnorm_cpu_kernels=baseline: every GPU kernel, the
# SSE4.1 CPU ones), in an output base of their own, so that the flag does
# not rebuild the main one's objects.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
tests=(cuda_api_test cuda_runtime_kernels_test cuda_driver_test layer_norm2d_test
  row_norm_forward_test row_norm_backward_test)
benches=(gpu_bench gpu_layer_norm2d_bench)
targets=()
for t in "${tests[@]}"; do targets+=("//tests:$t"); done
for b in "${benches[@]}"; do targets+=("//bench:$b"); done
output_base=${HALNORM_GPU_BUNDLE_OUTPUT_BASE:-$HOME/.cache/halnorm_gpu_bundle}
# --symlink_prefix=/: no bazel-* links into this output base, which would
# leave the main one's `bazel build //...` loading them as packages.
bazel --output_base="$output_base" build -c opt --define=halnorm_cpu_kernels=baseline \
  --symlink_prefix=/ "${targets[@]}"
bin=$(bazel --output_base="$output_base" info -c opt --define=halnorm_cpu_kernels=baseline \
  bazel-bin 2>/dev/null)
bazel --output_base="$output_base" shutdown

stage=$(mktemp -d)
mkdir -p "$stage/bin" "$stage/lib"
for t in "${tests[@]}"; do strip -o "$stage/bin/$t" "$bin/tests/$t"; done
for b in "${benches[@]}"; do strip -o "$stage/bin/$b" "$bin/bench/$b"; done
# Every library the binaries load but glibc's own (the machine's must match
# its kernel and loader) and libcuda (the driver's).
ldd "$stage"/bin/* | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u |
  grep -vE '/(libc|libm|libdl|libpthread|librt|ld-linux[^/]*|libcuda)\.so' |
  while read -r lib; do cp -L "$lib" "$stage/lib/"; done
rm -rf .gpu
mkdir .gpu
tar -czf .gpu/bundle.tar.gz -C "$stage" bin lib
rm -rf "$stage"
cp tools/gpu_run.sh .gpu/run.sh
cp bench/gpu_torch_peer.py .gpu/
echo ".gpu/: $(du -sh .gpu | cut -f1); carry: [\".gpu\"], then bash .gpu/run.sh tests"
