#!/bin/sh
# See BUILD.bazel: stand-in for Bazel's downloaded coverage tools.
echo "halnorm: 'bazel coverage' is unsupported (offline build has no remote_coverage_tools)." >&2
exit 1
