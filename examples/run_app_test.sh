#!/usr/bin/env bash
# Runs an example app and fails if it fails.
set -euo pipefail
"$1"
