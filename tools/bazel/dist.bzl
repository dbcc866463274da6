"""halnorm_static_archive: one self-contained libhalnorm.a for apps built outside Bazel.

Bazel's own static link of //runtime:halnorm needs Bazel: the kernels are
hundreds of archives, the runtime is alwayslink objects, and Abseil comes from
Debian's shared libraries. This rule links all of it, plus the Abseil members
it uses (from Debian's static archives), into one relocatable object with
`ld -r`, then makes every symbol but the C ABI local, like the shared
library's version script does: the Halide runtime and Abseil inside cannot
clash with an app's own copies. An app then links it with plain
`gcc app.c libhalnorm.a -lstdc++ -lm -ldl -lpthread`.
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")

def _static_file(library):
    return library.pic_static_library or library.static_library

def _impl(ctx):
    cc_toolchain = find_cpp_toolchain(ctx)
    static_archives = ctx.files.static_archives
    covered = [a.basename[:-len(".a")] for a in static_archives]

    whole = []  # halnorm's own objects and kernels: all of them, as alwayslink
    for dep in ctx.attr.deps:
        for linker_input in dep[CcInfo].linking_context.linker_inputs.to_list():
            for library in linker_input.libraries:
                static = _static_file(library)
                if static:
                    whole.append(static)
                elif library.dynamic_library:
                    # A Debian shared library: its static twin must be given.
                    name = library.dynamic_library.basename.split(".so")[0]
                    if name not in covered:
                        fail("%s has no static archive in static_archives" % name)

    merged = ctx.actions.declare_file(ctx.label.name + ".o")
    args = ctx.actions.args()
    args.add("-r")
    args.add("-o", merged)
    args.add("--whole-archive")
    args.add_all(whole)
    args.add("--no-whole-archive")
    args.add("--start-group")
    args.add_all(static_archives)
    args.add("--end-group")
    ctx.actions.run(
        executable = cc_toolchain.ld_executable,
        arguments = [args],
        inputs = depset(whole + static_archives, transitive = [cc_toolchain.all_files]),
        outputs = [merged],
        mnemonic = "HalnormMergeObjects",
        progress_message = "Linking %s into one object" % ctx.label.name,
    )

    archive = ctx.actions.declare_file(ctx.label.name + ".a")
    localized = ctx.actions.declare_file(ctx.label.name + "_exports_only.o")
    ctx.actions.run_shell(
        command = '"$1" --wildcard --keep-global-symbol="$2" "$3" "$4" && rm -f "$6" && "$5" rcs "$6" "$4"',
        arguments = [
            cc_toolchain.objcopy_executable,
            ctx.attr.exported_symbols,
            merged.path,
            localized.path,
            cc_toolchain.ar_executable,
            archive.path,
        ],
        inputs = depset([merged], transitive = [cc_toolchain.all_files]),
        outputs = [localized, archive],
        mnemonic = "HalnormStaticArchive",
        progress_message = "Archiving %s" % archive.short_path,
    )
    return [DefaultInfo(files = depset([archive]))]

halnorm_static_archive = rule(
    implementation = _impl,
    attrs = {
        "deps": attr.label_list(providers = [CcInfo], doc = "What the archive holds."),
        "static_archives": attr.label_list(
            allow_files = [".a"],
            doc = "Static twins of the deps' shared libraries; members are pulled as needed.",
        ),
        "exported_symbols": attr.string(doc = "Wildcard of the symbols that stay global."),
        "_cc_toolchain": attr.label(default = "@bazel_tools//tools/cpp:current_cc_toolchain"),
    },
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
    incompatible_use_toolchain_transition = True,
)
