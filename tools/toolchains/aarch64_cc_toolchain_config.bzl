"""cc_toolchain_config for Debian's aarch64 cross compiler (g++-aarch64-linux-gnu).

Bazel 4 has no aarch64 toolchain of its own; this one names the cross tools,
the directories their built-in include paths point at (Bazel rejects
#includes from anywhere else), and the flags Bazel's own Unix toolchain adds
per compilation mode. Third-party -dev packages come from Debian's arm64
multiarch (tools/setup.sh), so headers stay under /usr/include and libraries
under /usr/lib/aarch64-linux-gnu, which the cross compiler searches.
"""

load(
    "@bazel_tools//tools/cpp:cc_toolchain_config_lib.bzl",
    "feature",
    "flag_group",
    "flag_set",
    "tool_path",
)
load("@bazel_tools//tools/build_defs/cc:action_names.bzl", "ACTION_NAMES")

_PREFIX = "/usr/bin/aarch64-linux-gnu-"

_COMPILE_ACTIONS = [
    ACTION_NAMES.assemble,
    ACTION_NAMES.preprocess_assemble,
    ACTION_NAMES.c_compile,
    ACTION_NAMES.cpp_compile,
    ACTION_NAMES.cpp_header_parsing,
    ACTION_NAMES.cpp_module_compile,
]

_LINK_ACTIONS = [
    ACTION_NAMES.cpp_link_executable,
    ACTION_NAMES.cpp_link_dynamic_library,
    ACTION_NAMES.cpp_link_nodeps_dynamic_library,
]

def _flags(actions, flags):
    return flag_set(actions = actions, flag_groups = [flag_group(flags = flags)])

def _impl(ctx):
    tools = ["ar", "cpp", "gcc", "gcov", "ld", "nm", "objcopy", "objdump", "strip"]
    tool_paths = [tool_path(name = t, path = _PREFIX + t) for t in tools]
    tool_paths.append(tool_path(name = "dwp", path = "/bin/false"))

    features = [
        feature(name = "supports_pic", enabled = True),
        feature(name = "supports_dynamic_linker", enabled = True),
        feature(name = "supports_start_end_lib", enabled = False),
        feature(
            name = "default_compile_flags",
            enabled = True,
            flag_sets = [_flags(_COMPILE_ACTIONS, [
                "-U_FORTIFY_SOURCE",
                "-fstack-protector",
                "-Wall",
                "-fno-omit-frame-pointer",
                # Reproducible: no build paths or times in the objects.
                "-Wno-builtin-macro-redefined",
                "-D__DATE__=\"redacted\"",
                "-D__TIMESTAMP__=\"redacted\"",
                "-D__TIME__=\"redacted\"",
            ])],
        ),
        feature(
            name = "default_link_flags",
            enabled = True,
            flag_sets = [_flags(_LINK_ACTIONS, ["-lstdc++", "-lm", "-Wl,-z,relro,-z,now"])],
        ),
        feature(
            name = "opt",
            flag_sets = [
                _flags(_COMPILE_ACTIONS, [
                    "-g0",
                    "-O2",
                    "-D_FORTIFY_SOURCE=1",
                    "-DNDEBUG",
                    "-ffunction-sections",
                    "-fdata-sections",
                ]),
                _flags(_LINK_ACTIONS, ["-Wl,--gc-sections"]),
            ],
        ),
        feature(
            name = "dbg",
            flag_sets = [_flags(_COMPILE_ACTIONS, ["-g"])],
        ),
    ]

    return cc_common.create_cc_toolchain_config_info(
        ctx = ctx,
        features = features,
        cxx_builtin_include_directories = [
            "/usr/aarch64-linux-gnu/include",
            "/usr/lib/gcc-cross/aarch64-linux-gnu",
            "/usr/include",
        ],
        toolchain_identifier = "debian-aarch64-linux-gnu",
        host_system_name = "x86_64-unknown-linux-gnu",
        target_system_name = "aarch64-linux-gnu",
        target_cpu = "aarch64",
        target_libc = "glibc",
        compiler = "gcc",
        abi_version = "aarch64",
        abi_libc_version = "glibc",
        tool_paths = tool_paths,
    )

aarch64_cc_toolchain_config = rule(
    implementation = _impl,
    attrs = {},
    provides = [CcToolchainConfigInfo],
)
