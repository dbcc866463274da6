#!/usr/bin/env bash
# Unpacks the //:dist tarball, builds dist_app.c against it the way a user
# outside Bazel would (the C compiler + pkg-config, shared and static), runs
# both, and checks their outputs: against the float64 reference, and against
# each other.
#   dist_test.sh <tarball> <dist_app.c> <dist_reference_check> <cc> <nm> <target cpu> [cc flags]
set -euo pipefail
tarball=$(realpath "$1") app_source=$(realpath "$2") check=$(realpath "$3")
cc=$4 nm=$5 cc_flags=("${@:7}")
run=()  # ARM64 programs on another host run under qemu
[[ $6 == aarch64 && $(uname -m) != aarch64 ]] && run=(qemu-aarch64)
work=${TEST_TMPDIR:-$(mktemp -d)}
cd "$work"
tar xzf "$tarball"
export PKG_CONFIG_PATH="$work/halnorm/lib/pkgconfig" LD_LIBRARY_PATH="$work/halnorm/lib"

# The static archive exports the C ABI and nothing else.
others=$("$nm" -g --defined-only halnorm/lib/libhalnorm.a |
  awk 'NF == 3 && $2 ~ /[TDBR]/ && $3 !~ /^halnorm_/')
if [[ -n "$others" ]]; then
  echo "FAIL: libhalnorm.a exports non-halnorm symbols:"; echo "$others" | head; exit 1
fi

for kind in shared static; do
  package=halnorm; [[ $kind == static ]] && package=halnorm-static
  # shellcheck disable=SC2046  # pkg-config's output is a list of flags
  "$cc" -O2 -Wall -Werror "${cc_flags[@]}" -o "app_$kind" "$app_source" \
    $(pkg-config --cflags --libs "$package")
  mkdir -p "out_$kind"
  "${run[@]}" "./app_$kind" "out_$kind"
done

# Only the shared build loads libhalnorm.so.
needs_halnorm() { readelf -d "$1" | grep -q 'NEEDED.*\[libhalnorm.so\]'; }
needs_halnorm app_shared || { echo "FAIL: app_shared does not load libhalnorm.so"; exit 1; }
! needs_halnorm app_static || { echo "FAIL: app_static loads libhalnorm.so"; exit 1; }

# The same kernels on the same data: bitwise the same results.
for f in out_shared/*.f32; do cmp "$f" "out_static/${f#out_shared/}"; done
HALNORM_DIST_DUMP="$work/out_shared" "${run[@]}" "$check"
echo "PASS: the tarball's shared and static libraries, built with $cc"
