#!/usr/bin/env bash
# --run_under wrapper for --config=aarch64: runs an ARM64 test binary under
# qemu-aarch64; a script test (sh_test, py_test) runs as it is.
#
# No -L sysroot: the binaries must load ld.so and libc from one and the same
# glibc. Debian's arm64 multiarch libc6 (a dependency of the :arm64 -dev
# packages, tools/setup.sh) is on the usual paths; mixing in the cross
# sysroot's ld.so (/usr/aarch64-linux-gnu) with it hangs pthread_create.
# QEMU_CPU picks the emulated core (default max: every feature; cortex-a53
# is an ARMv8.0 core without fp16 arithmetic or dot product).
set -euo pipefail
if [[ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" == "177ELF" ]]; then
  exec qemu-aarch64 "$@"
fi
exec "$@"
