"""debian_cc_toolchain_config: a cc_toolchain_config for a Debian compiler.

Two use it: Debian's aarch64 cross compiler (g++-aarch64-linux-gnu, for
--config=aarch64) and clang (for --config=fuzz: libFuzzer needs clang's
coverage instrumentation). Bazel 4's auto-configured toolchain is gcc for the
host only; each config here names its tools, the directories their built-in
include paths point at (Bazel rejects #includes from anywhere else), and the
flags Bazel's own Unix toolchain adds per compilation mode. Third-party -dev
packages are Debian's (for ARM64 its arm64 multiarch, tools/setup.sh), so
headers stay under /usr/include and libraries where the compilers look.
"""

load(
    "@bazel_tools//tools/cpp:cc_toolchain_config_lib.bzl",
    "feature",
    "flag_group",
    "flag_set",
    "tool_path",
)
load("@bazel_tools//tools/build_defs/cc:action_names.bzl", "ACTION_NAMES")

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
    paths = {t: ctx.attr.tool_prefix + t for t in tools}
    paths.update(ctx.attr.tools)
    tool_paths = [tool_path(name = t, path = p) for t, p in paths.items()]
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
        cxx_builtin_include_directories = ctx.attr.builtin_include_directories,
        toolchain_identifier = ctx.attr.identifier,
        host_system_name = "x86_64-unknown-linux-gnu",
        target_system_name = ctx.attr.target_system_name,
        target_cpu = ctx.attr.target_cpu,
        target_libc = "glibc",
        compiler = ctx.attr.compiler,
        abi_version = ctx.attr.target_cpu,
        abi_libc_version = "glibc",
        tool_paths = tool_paths,
    )

debian_cc_toolchain_config = rule(
    implementation = _impl,
    attrs = {
        "identifier": attr.string(mandatory = True),
        "compiler": attr.string(mandatory = True, doc = "gcc or clang"),
        "target_cpu": attr.string(mandatory = True, doc = "Bazel's --cpu: k8, aarch64"),
        "target_system_name": attr.string(mandatory = True),
        "tool_prefix": attr.string(doc = "Path prefix of ar, gcc, ld, nm, ..."),
        "tools": attr.string_dict(doc = "Tools not at tool_prefix + name (e.g. gcc: clang-14)."),
        "builtin_include_directories": attr.string_list(mandatory = True),
    },
    provides = [CcToolchainConfigInfo],
)

def debian_cc_toolchain(name, config, identifier):
    """A cc_toolchain over `config` whose tools are on the host, outside Bazel."""
    native.cc_toolchain(
        name = name,
        all_files = ":empty",
        ar_files = ":empty",
        as_files = ":empty",
        compiler_files = ":empty",
        dwp_files = ":empty",
        linker_files = ":empty",
        objcopy_files = ":empty",
        strip_files = ":empty",
        supports_param_files = True,
        toolchain_config = config,
        toolchain_identifier = identifier,
    )
