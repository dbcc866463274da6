"""debian_libs: a Debian library wrapper's libraries for the build's architecture.

debian.bzl links each library twice into its repo: lib/ from the x86-64
directory and lib_aarch64/ from Debian's arm64 multiarch directory (present
once tools/setup.sh installed the :arm64 packages for --config=aarch64).
"""

def debian_libs(names):
    return select({
        "@halnorm//tools/toolchains:aarch64": ["lib_aarch64/" + n for n in names],
        "//conditions:default": ["lib/" + n for n in names],
    })
