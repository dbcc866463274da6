#!/bin/sh
# bazel run //bench:report [-- --quick] [--ops=...] [--dtypes=...]
# Runs from the runfiles root; writes into the workspace's docs/perf.
# Debian's interpreter by default: python3-torch installs into it, and a
# python3 found first on PATH (pyenv, a venv) may lack torch.
set -eu
exec "${PYTHON:-/usr/bin/python3}" bench/report.py --runner bench/report_runner \
    --out "${BUILD_WORKSPACE_DIRECTORY:-.}/docs/perf" "$@"
