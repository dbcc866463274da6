#!/usr/bin/env bash
# The whole test suite: install what is missing, then bazel test //...
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
bazel test //... "$@"
