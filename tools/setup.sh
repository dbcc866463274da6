#!/usr/bin/env bash
# Installs every Debian package halnorm builds, tests and benchmarks with
# (with --report, also the performance report's gnuplot; with --aarch64,
# the ARM64 cross compiler, qemu and the arm64 -dev packages).
# Idempotent: only missing packages are installed, so a second run is a no-op.
set -euo pipefail

packages=(
  bazel-bootstrap          # Bazel 4.2.3 (WORKSPACE mode, offline)
  g++ python3              # toolchain + Bazel's python wrapper scripts
  libhalide14-0-dev        # Halide 14 + LLVM: generators and runtime
  libabsl-dev              # absl::Status, Span, flags, StrFormat
  libgtest-dev libgmock-dev
  libbenchmark-dev
  libdnnl-dev              # oneDNN 2.6: benchmark peer
  pocl-opencl-icd          # runs the GPU schedules (OpenCL builds) on the CPU in tests
  ocl-icd-opencl-dev       # libOpenCL.so, the name Halide's OpenCL runtime loads
  patchelf pkgconf         # //:dist (drops Bazel's RUNPATH) and its test (pkg-config)
  clang-14 libclang-rt-14-dev  # --config=fuzz: libFuzzer, clang's ASan/UBSan (tools/fuzz.sh)
  python3-numpy            # the Python binding (python/) and its tests
  python3-torch            # its torch tests' oracle, halnorm.torch; the report's PyTorch column
)

arm64=false
for option in "$@"; do
  case "$option" in
    # The performance report's plot (bazel run //bench:report).
    --report) packages+=(
        gnuplot-nox              # the report's plot
      ) ;;
    # bazel build/test --config=aarch64: Debian's multiarch puts the arm64
    # libraries under /usr/lib/aarch64-linux-gnu, beside the amd64 ones.
    --aarch64) arm64=true
      packages+=(
        g++-aarch64-linux-gnu    # cross compiler (tools/toolchains)
        qemu-user                # runs the ARM64 tests
        libc6:arm64              # the glibc the tests run on (tools/toolchains)
        libabsl-dev:arm64 libgtest-dev:arm64 libgmock-dev:arm64
        libbenchmark-dev:arm64
        # (no libdnnl-dev:arm64: its dnnl_config.h differs from the amd64
        # one, so Debian cannot co-install them; the oneDNN peer is x86-only)
      ) ;;
    *) echo "setup: unknown option $option (--report, --aarch64)" >&2; exit 2 ;;
  esac
done

if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; else SUDO=; fi
if $arm64 && ! dpkg --print-foreign-architectures | grep -qx arm64; then
  $SUDO dpkg --add-architecture arm64
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  # third_party/debian.bzl looks for the packages' files once per Bazel
  # server: one still running from before (the README's first command leaves
  # one) would not see these, e.g. the arm64 libraries --config=aarch64 links.
  if command -v bazel >/dev/null; then (cd "$(dirname "$0")/.." && bazel shutdown) || true; fi
fi
echo "setup: all packages present"
