#!/bin/bash
# --config=asan runs every test under this (.bazelrc: test:asan --run_under).
# It runs the test and, only when it failed because LeakSanitizer's own
# stop-the-world tracer crashed at exit ("Tracer caught signal 11", then
# "LeakSanitizer has encountered a fatal error": an intermittent LSan bug,
# google/sanitizers#1353) with no gtest failure and no sanitizer report in its
# output, runs it once more. Any other failure, and a second crash, stand.
set -u
log="${TEST_TMPDIR:-/tmp}/retry_lsan_tracer_crash.$$.log"

run() {
  "$@" 2>&1 | tee "$log"
  return "${PIPESTATUS[0]}"
}

run "$@"
rc=$?
if [[ $rc -ne 0 ]] &&
   grep -q "^Tracer caught signal" "$log" &&
   grep -q "LeakSanitizer has encountered a fatal error" "$log" &&
   ! grep -q -e "^\[  FAILED  \]" -e "ERROR: AddressSanitizer" -e "ERROR: LeakSanitizer: detected" \
     -e "runtime error:" "$log"; then
  echo "retry_lsan_tracer_crash: LeakSanitizer's tracer crashed after the test passed; running it again"
  run "$@"
  rc=$?
fi
rm -f "$log"
exit "$rc"
