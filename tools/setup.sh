#!/usr/bin/env bash
# Installs every Debian package halnorm builds, tests and benchmarks with
# (with --report, also the performance report's PyTorch and gnuplot).
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
)

# The performance report's peers (bazel run //bench:report): large, so only
# with --report.
if [[ "${1:-}" == "--report" ]]; then
  packages+=(
    python3-torch            # the PyTorch column
    gnuplot-nox              # the report's plot
  )
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; else SUDO=; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "setup: all packages present"
