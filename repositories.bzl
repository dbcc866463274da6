"""halnorm_repositories(): the external repositories halnorm builds with.

Called by halnorm's own WORKSPACE and by any workspace that depends on it:

    local_repository(name = "halnorm", path = "/path/to/halnorm")
    load("@halnorm//:repositories.bzl", "halnorm_repositories")
    halnorm_repositories()

Nothing downloads: Bazel 4's own implicit repositories are offline shims
(third_party/bazel_shims/README.md), third-party C++ comes from Debian
packages (bash tools/setup.sh installs them) via //third_party:debian.bzl.
"""

load("//third_party:debian.bzl", "debian_cc_library")

def _bazel_shim_impl(rctx):
    # The shim directory inside this repository, wherever it is checked out.
    shims = rctx.path(Label("//third_party:BUILD.bazel")).dirname.get_child("bazel_shims")
    for child in shims.get_child(rctx.name).readdir():
        rctx.symlink(child, child.basename)

# A repository named like one of Bazel 4's implicit ones, holding its shim.
_bazel_shim = repository_rule(implementation = _bazel_shim_impl)

def halnorm_repositories():
    """Declares every repository and toolchain halnorm's targets need."""

    # Bazel 4 appends a hidden WORKSPACE suffix that http_archive's these;
    # even a plain cc_test needs them. Declaring the names first makes Bazel
    # use ours.
    _bazel_shim(name = "rules_cc")  # loaded by @bazel_tools//tools/cpp
    _bazel_shim(name = "rules_java")  # loaded by @bazel_tools//tools/jdk (toolchains)
    _bazel_shim(name = "remote_coverage_tools")  # implicit dep of every *_test rule

    # @halide//:halide (compiler + JIT), @halide//:runtime_headers, @halide//:gengen
    debian_cc_library(
        name = "halide",
        build_file = Label("//third_party:halide.BUILD"),
        files = {
            "src/GenGen.cpp": "/usr/src/halide14/GenGen.cpp",
            # LLVM 14's assembler (llvm-14, a dependency of libhalide14-0-dev):
            # bitcode linked into the kernels (//generators:native_half).
            "bin/llvm-as": "/usr/bin/llvm-as-14",
            # Its optimizer and code generator: the kernels' streaming-stores
            # twins (tools/bazel/streaming_stores.py).
            "bin/opt": "/usr/bin/opt-14",
            "bin/llc": "/usr/bin/llc-14",
        },
        hdrs = [
            "Halide.h",
            "HalideBuffer.h",
            "HalideRuntime.h",
        ],
        include_dir = "/usr/include/halide14",
        package = "libhalide14-0-dev",
        libs = ["libHalide14.so"],
    )

    # @com_google_absl//:{base,span,strings,str_format,synchronization,status,flags}
    debian_cc_library(
        name = "com_google_absl",
        build_file = Label("//third_party:absl.BUILD"),
        hdrs = ["absl"],
        package = "libabsl-dev",
        # .so for Bazel's links; .a for //:dist's self-contained libhalnorm.a.
        libs = ["libabsl_%s.%s" % (lib, ext) for ext in ("so", "a") for lib in [
            "bad_optional_access",
            "bad_variant_access",
            "base",
            "city",
            "civil_time",
            "cord",
            "cord_internal",
            "cordz_functions",
            "cordz_handle",
            "cordz_info",
            "debugging_internal",
            "demangle_internal",
            "exponential_biased",
            "flags_commandlineflag",
            "flags_commandlineflag_internal",
            "flags_config",
            "flags_internal",
            "flags_marshalling",
            "flags_parse",
            "flags_private_handle_accessor",
            "flags_program_name",
            "flags_reflection",
            "flags_usage",
            "flags_usage_internal",
            "graphcycles_internal",
            "hash",
            "hashtablez_sampler",
            "int128",
            "log_severity",
            "low_level_hash",
            "malloc_internal",
            "raw_hash_set",
            "raw_logging_internal",
            "spinlock_wait",
            "stacktrace",
            "status",
            "statusor",
            "str_format_internal",
            "strerror",
            "strings",
            "strings_internal",
            "symbolize",
            "synchronization",
            "throw_delegate",
            "time",
            "time_zone",
        ]],
    )

    # @com_google_googletest//:{gtest,gtest_main,gmock,gmock_main}
    debian_cc_library(
        name = "com_google_googletest",
        build_file = Label("//third_party:googletest.BUILD"),
        hdrs = ["gtest"],
        package = "libgtest-dev",
        libs = [
            "libgtest.a",
            "libgtest_main.a",
        ],
    )

    # Backs @com_google_googletest//:gmock{,_main} (aliases); separate Debian package.
    debian_cc_library(
        name = "com_google_googletest_gmock",
        build_file = Label("//third_party:gmock.BUILD"),
        hdrs = ["gmock"],
        package = "libgmock-dev",
        libs = [
            "libgmock.a",
            "libgmock_main.a",
        ],
    )

    # @com_github_google_benchmark//:{benchmark,benchmark_main}
    debian_cc_library(
        name = "com_github_google_benchmark",
        build_file = Label("//third_party:benchmark.BUILD"),
        hdrs = ["benchmark"],
        package = "libbenchmark-dev",
        libs = [
            "libbenchmark.so",
            "libbenchmark_main.a",
        ],
    )

    # @onednn//:onednn: oneDNN 2.6, a benchmark peer (bench/ only).
    debian_cc_library(
        name = "onednn",
        build_file = Label("//third_party:onednn.BUILD"),
        hdrs = ["oneapi/dnnl"],
        package = "libdnnl-dev",
        libs = ["libdnnl.so"],
    )

    # py_test runs on Debian's /usr/bin/python3 (tools/bazel/BUILD.bazel).
    native.register_toolchains("@halnorm//tools/bazel:debian_python_toolchain")

    # Debian's aarch64 cross compiler, for --config=aarch64, and clang, for
    # --config=fuzz (tools/toolchains).
    native.register_toolchains(
        "@halnorm//tools/toolchains:aarch64_linux_toolchain",
        "@halnorm//tools/toolchains:clang_x86_64_toolchain",
    )
