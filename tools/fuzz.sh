#!/usr/bin/env bash
# Fuzzes the C API with libFuzzer for a bounded time (default 60 s): builds
# //fuzz:c_api_fuzzer with --config=fuzz (clang, coverage, ASan, UBSan) and
# runs it from fuzz/corpus. Exits non-zero on any crash, sanitizer report or
# broken contract; the input that caused it is saved under
# $HALNORM_FUZZ_ARTIFACTS (default /tmp/halnorm-fuzz): add it to
# fuzz/corpus/regressions/ with the fix, and c_api_regression_test replays
# it in every test run from then on.
#   bash tools/fuzz.sh [seconds]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
artifacts=${HALNORM_FUZZ_ARTIFACTS:-/tmp/halnorm-fuzz}
bazel build --config=fuzz //fuzz:c_api_fuzzer
# New inputs grow a scratch corpus, not the committed one.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$artifacts"
bazel-bin/fuzz/c_api_fuzzer -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
  -use_value_profile=1 -artifact_prefix="$artifacts/" -print_final_stats=1 \
  "$work" fuzz/corpus
