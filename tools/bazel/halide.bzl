"""halide_kernel_library: Halide generators -> AOT kernels + variant registry.

One generator binary per library, run once per variant (no_runtime), plus one
Halide runtime per target family. The same variant list also becomes
variants.inc (an X-macro for runtime, tests and benchmarks) and kernels.h;
the tuned tables become tuning.inc (the runtime's built-in dispatch table).
"""

# Adding a target = one entry here + its configs in schedules/configs.bzl.
#   family: which Halide runtime the kernels link against; a build links the
#           families of the architecture it targets (ARCHES)
#   isa:    runtime/cpu_features.h Isa the CPU must have to run them
#   device: runtime/variant_registry.h Device the kernels run on
#   halide: the Halide target string
#   llc:    llc flags for the same CPU features, where the target's kernels
#           also get a streaming-stores twin (None: they do not)
# Optional:
#   baseline:   True on the CPU target every CPU of its family runs, the only
#               one --define=halnorm_cpu_kernels=baseline builds
#   dtypes:     the only activation dtypes it has kernels for (default: all)
#   tuned_as:   the target whose configs and tuning table it shares
#   object_via_llc: True: its kernel objects are compiled from Halide's IR by
#               llc with `llc`'s flags, not by Halide, whose code generator
#               would target the whole CPU its target string implies
TARGETS = {
    "x86_avx512": struct(
        family = "x86",
        isa = "kAvx512",
        device = "kCpu",
        halide = "x86-64-linux-sse41-avx-avx2-fma-f16c-avx512-avx512_skylake",
        llc = "-mcpu=x86-64 -mattr=+sse4.1,+avx,+avx2,+fma,+f16c,+avx512f,+avx512cd,+avx512bw,+avx512dq,+avx512vl",
    ),
    # bf16 kernels storing through AVX512_BF16's vcvtneps2bf16 (Cooper Lake,
    # Sapphire Rapids, Zen 4; generators/native_bf16.ll). Halide 14 knows
    # that instruction only as part of avx512_sapphirerapids, for which it
    # compiles with -mcpu=sapphirerapids (AVX512-FP16, AMX: not on Zen 4 or
    # Cooper Lake): llc compiles them for Skylake's AVX-512 plus
    # AVX512_BF16, which is what isa kAvx512Bf16 checks.
    "x86_avx512_bf16": struct(
        family = "x86",
        isa = "kAvx512Bf16",
        device = "kCpu",
        halide = "x86-64-linux-sse41-avx-avx2-fma-f16c-avx512-avx512_skylake-avx512_sapphirerapids",
        llc = "-mcpu=x86-64 -mattr=+sse4.1,+avx,+avx2,+fma,+f16c,+avx512f,+avx512cd,+avx512bw,+avx512dq,+avx512vl,+avx512bf16",
        dtypes = ["bf16"],
        tuned_as = "x86_avx512",
        object_via_llc = True,
    ),
    "x86_avx2": struct(
        family = "x86",
        isa = "kAvx2",
        device = "kCpu",
        halide = "x86-64-linux-sse41-avx-avx2-fma-f16c",
        llc = "-mcpu=x86-64 -mattr=+sse4.1,+avx,+avx2,+fma,+f16c",
    ),
    "x86_sse41": struct(
        family = "x86",
        isa = "kSse41",
        device = "kCpu",
        halide = "x86-64-linux-sse41",
        llc = None,  # CPUs without AVX2: not worth 18 more kernels to build
        baseline = True,
    ),
    "arm64_fp16_dot": struct(
        family = "arm64",
        isa = "kNeonFp16Dot",
        device = "kCpu",
        halide = "arm-64-linux-arm_fp16-arm_dot_prod",
        llc = None,
    ),
    "arm64_neon": struct(
        family = "arm64",
        isa = "kNeon",
        device = "kCpu",
        halide = "arm-64-linux",
        llc = None,
        baseline = True,
    ),
    # GPU kernels, called from x86-64 hosts. PTX for compute capability 8.0
    # (A100) also runs on 8.6/8.9/9.0 GPUs: the driver compiles it for them.
    "cuda_sm80": struct(
        family = "x86",
        isa = "kSse41",
        device = "kCuda",
        halide = "x86-64-linux-cuda-cuda_capability_80",
        llc = None,
    ),
    # The same GPU schedules as OpenCL C, which tests run on the CPU through
    # PoCL (no cl_khr_fp16 there: f16 kernels take its bits, see
    # generators/norm_types.h KernelActivationType).
    "opencl": struct(
        family = "x86",
        isa = "kSse41",
        device = "kOpenCL",
        halide = "x86-64-linux-opencl",
        llc = None,
    ),
}

# One runtime per family, built for the family's baseline so every kernel of
# the family can share it.
RUNTIME_TARGETS = {
    "x86": "x86-64-linux-cuda-opencl",  # the GPU APIs load their drivers at first use
    "arm64": "arm-64-linux",
}

# Families whose kernels' assembly is also kept (:<name>_assembly), for the
# test that they really are vectorized (tests/neon_assembly_test.py): a
# scalar fallback would pass every correctness test under qemu.
ASSEMBLY_FAMILIES = ["arm64"]

# The file each generator output (-e) is written to.
_EMIT_SUFFIX = {"static_library": ".a", "h": ".h", "assembly": ".s", "llvm_assembly": ".ll"}

# Per family: the C preprocessor test for its architecture (the generated
# headers hold every family, each under its guard), the select() key of
# builds for it ("//conditions:default": the x86-64 host), and its CPU
# constraint: a build for another CPU skips the family's kernel genrules
# even under a //... pattern.
ARCHES = {
    "x86": struct(
        guard = "defined(__x86_64__)",
        select_key = "//conditions:default",
        cpu = "@platforms//cpu:x86_64",
    ),
    "arm64": struct(
        guard = "defined(__aarch64__)",
        select_key = "//tools/toolchains:aarch64",
        cpu = "@platforms//cpu:aarch64",
    ),
}

# Kernels a build can leave out, each group by a --define (README, "From
# your own Bazel workspace"). The library then defines the group's macro for
# everything that includes variants.inc or kernels.h, and dispatch finds none
# of its variants:
#   gpu: --define=halnorm_gpu_kernels=off: apps that never pass HALNORM_CUDA
#        tensors build none of the 144 GPU kernels (a third of the x86-64
#        variants); their CUDA calls fail as in a build without CUDA.
#   cpu_isa: --define=halnorm_cpu_kernels=baseline: only the `baseline` CPU
#        target's kernels (SSE4.1, NEON), which run on every CPU of the
#        family: a build of minutes instead of ten, for apps (and tests) that
#        trade speed for it.
# Each select() key is per architecture, so that it refines ARCHES' key.
_OPTIONAL_GROUPS = {
    "gpu": struct(
        macro = "HALNORM_NO_GPU_KERNELS",
        settings = {"x86": "//tools/bazel:gpu_kernels_off"},
    ),
    "cpu_isa": struct(
        macro = "HALNORM_BASELINE_CPU_KERNELS_ONLY",
        settings = {
            "x86": "//tools/bazel:baseline_cpu_kernels_x86_64",
            "arm64": "//tools/bazel:baseline_cpu_kernels_aarch64",
        },
    ),
}

def _group(v):
    """The _OPTIONAL_GROUPS key of the variant's kernel, or None: always built."""
    target = TARGETS[v.target]
    if target.device != "kCpu":
        return "gpu"
    if not getattr(target, "baseline", False):
        return "cpu_isa"
    return None

def _guarded(family_lines, group = None):
    """C text: each family's lines under #if its architecture (and, for a
    group's lines, #if the build has the group)."""
    out = []
    for family in sorted(family_lines):
        guard = ARCHES[family].guard
        if group:
            guard += " && !defined(%s)" % _OPTIONAL_GROUPS[group].macro
        out.append("#if " + guard)
        out.extend(family_lines[family])
        out.append("#endif")
    return "\n".join(out) + "\n"

def _guarded_variants(variants, lines):
    """_guarded text of lines[i], one per variants[i], each group's lines
    under its own guard."""
    text = ""
    for group in [None] + sorted(_OPTIONAL_GROUPS):
        chosen = [(v, line) for v, line in zip(variants, lines) if _group(v) == group]
        if chosen:
            text += _guarded(_by_family([v for v, _ in chosen], [line for _, line in chosen]), group)
    return text

def _by_arch(files, group = None):
    """select() of files[family] by the build's architecture; for a group's
    files, none where the build leaves the group out."""
    choices = {ARCHES[family].select_key: files.get(family, []) for family in ARCHES}
    if group:
        for setting in _OPTIONAL_GROUPS[group].settings.values():
            choices[setting] = []
    return select(choices)

def _group_defines():
    """The macros of the groups the build leaves out (a select() per group)."""
    defines = []
    for group in sorted(_OPTIONAL_GROUPS):
        choices = {"//conditions:default": []}
        for setting in _OPTIONAL_GROUPS[group].settings.values():
            choices[setting] = [_OPTIONAL_GROUPS[group].macro]
        defines += select(choices)
    return defines

# no_runtime: kernels share the family runtime above.
# strict_float: Halide otherwise lets LLVM reassociate float math, which
# breaks the shifted-data statistics (1e-4 errors at a 1e4 offset) and NaN/Inf
# propagation.
KERNEL_FEATURES = "no_runtime-strict_float"

# Generators whose CPU kernels are built without Halide's asserts
# (no_asserts). The runtime checks every buffer it binds before a call
# (runtime/row_batch.cc, row_norm_checks.cc), so the kernel's own checks of
# the same buffers only cost time: ~3300 instructions of its prologue, 0.1-0.3
# us of a 0.8-3 us decode call (JIT A/B, LayerNorm f32/bf16 fwd and bwd at
# M <= 16, 1 thread: 0.12-0.31 us on the Intel VM, 0.13-0.15 on the Zen 4
# VM, 2026-12). Not for kernels that heap-allocate (the
# channel-norm ones: only an assert catches a failed halide_malloc) nor GPU
# kernels (device API errors are asserts too). :<name>_without_asserts lists
# these kernels' objects for runtime:kernels_without_asserts_test, which
# checks that none of them calls halide_malloc.
# tools/autotune/jit_kernel.cc builds its JIT candidates the same way.
UNCHECKED_GENERATORS = ["row_norm_backward", "row_norm_forward"]

def _without_asserts(v):
    return v.generator in UNCHECKED_GENERATORS and TARGETS[v.target].device == "kCpu"

def _kernel_features(v):
    return KERNEL_FEATURES + ("-no_asserts" if _without_asserts(v) else "")

def _text_file_impl(ctx):
    ctx.actions.write(ctx.outputs.out, ctx.attr.content)

_text_file = rule(
    implementation = _text_file_impl,
    attrs = {
        "content": attr.string(),
        "out": attr.output(mandatory = True),
    },
)

def _by_family(variants, lines):
    """Groups lines[i], one per variants[i], by the variant's target family."""
    out = {}
    for v, line in zip(variants, lines):
        out.setdefault(TARGETS[v.target].family, []).append(line)
    return out

def _x_macro_line(v):
    return 'HALNORM_VARIANT({name}, {op}, {direction}, {dtype}, {residual}, {native_params}, "{target}", {isa}, {device}, "{config}", {index}, {streaming})'.format(
        name = v.name,
        streaming = "&%s_streaming_argv" % v.name if v.streamed_outputs else "nullptr",
        index = v.config_index,
        op = v.cc_op,
        direction = v.cc_direction,
        dtype = v.cc_dtype,
        residual = "true" if v.fused_residual else "false",
        native_params = "true" if v.native_params else "false",
        target = v.target,
        isa = TARGETS[v.target].isa,
        device = TARGETS[v.target].device,
        config = " ".join(["%s=%s" % (k, v.params[k]) for k in sorted(v.params)]),
    )

def _tuning_inc(entries):
    header = "\n".join([
        "// Generated by //tools/bazel:halide.bzl from the tuned tables (schedules/tuned/index.bzl).",
        "// HALNORM_TUNED(op, direction, dtype, target, hidden bucket, row bucket, config index, cpu, source);",
        "// cpu \"\": the default table; else the key of its cpu_tables table (\"amd\", \"amd_family23\").",
        "// buckets per runtime/tuning_buckets.h; a forward entry also picks the fused-residual variant.",
    ]) + "\n"
    lines = {}  # family -> lines
    source = {}
    for e in entries:
        family = TARGETS[e.target].family
        out = lines.setdefault(family, [])
        if source.get(family) != e.source:
            source[family] = e.source
            out.append("// From " + e.source)
        out.append('HALNORM_TUNED({op}, {direction}, {dtype}, "{target}", {hidden}, {rows}, {config}, "{cpu}", "{source}")'.format(
            op = e.cc_op,
            direction = e.cc_direction,
            dtype = e.cc_dtype,
            target = e.target,
            hidden = e.hidden_bucket,
            rows = e.row_bucket,
            config = e.config,
            cpu = e.cpu,
            source = e.source,
        ))
    return header + _guarded(lines)

_LLC = "$(location @halide//:llc) -O3 {flags} -relocation-model=pic -filetype=obj"

def _llc_object(v):
    """<name>.o: the variant's kernel compiled from its IR by llc (targets
    with object_via_llc)."""
    native.genrule(
        name = v.name + "_object",
        srcs = [v.name + ".ll"],
        outs = [v.name + ".o"],
        cmd = (_LLC + " $< -o $@").format(flags = TARGETS[v.target].llc),
        tools = ["@halide//:llc"],
        target_compatible_with = [ARCHES[TARGETS[v.target].family].cpu],
    )

def _streaming_twin(v):
    """<name>_streaming.o: the variant's kernel, its large outputs stored
    non-temporally (<name>_streaming_argv; tools/bazel/streaming_stores.py)."""
    twin = v.name + "_streaming"
    native.genrule(
        name = twin,
        srcs = [v.name + ".ll"],
        outs = [twin + ".o"],
        # The rewritten IR and its bitcode are scratch: a temporary folder.
        cmd = " && ".join([
            "work=$$(mktemp -d)",
            "python3 $(location //tools/bazel:streaming_stores.py) $< $$work/twin.ll {name} {twin} {outputs}",
            "$(location @halide//:llvm_opt) -passes=always-inline $$work/twin.ll -o $$work/twin.bc",
            _LLC + " $$work/twin.bc -o $@",
            "rm -r $$work",
        ]).format(
            name = v.name,
            twin = twin,
            outputs = " ".join(v.streamed_outputs),
            flags = TARGETS[v.target].llc,
        ),
        tools = [
            "//tools/bazel:streaming_stores.py",
            "@halide//:llvm_opt",
            "@halide//:llc",
        ],
        target_compatible_with = [ARCHES[TARGETS[v.target].family].cpu],
    )

def halide_kernel_library(name, generators, variants, tuning):
    """Builds every variant's kernel into one cc_library `name`.

    Args:
      name: the cc_library; also prefixes the generator and runtime targets.
      generators: cc_library holding the Halide Generators (alwayslink).
      variants: structs from //tools/bazel:variants.bzl (name, generator,
        target, params, config_index, cc_op, cc_direction, cc_dtype, fused_residual,
        native_params, streamed_outputs: what its streaming twin stores
        non-temporally, or []).
      tuning: checked table entries from //tools/bazel:tuning.bzl (cc_op,
        cc_direction, cc_dtype, target, hidden_bucket, row_bucket, config,
        source), written to tuning.inc.
    """
    generator = name + "_generator"
    native.cc_binary(
        name = generator,
        srcs = ["@halide//:gengen"],
        deps = [generators, "@halide"],
        tags = ["manual"],  # built for the exec platform by the genrules
    )

    archives = {}  # group (_group) -> family -> kernel archives
    runtimes = {}  # family -> its Halide runtime archive
    headers = {}  # group -> family -> kernel headers
    unchecked = {}  # group -> family -> objects of kernels without asserts
    assembly = []
    cuda_ir = []  # the host IR of CUDA kernels, which embeds their PTX
    for v in variants:
        family = TARGETS[v.target].family
        via_llc = getattr(TARGETS[v.target], "object_via_llc", False)
        objects = archives.setdefault(_group(v), {}).setdefault(family, [])
        first_object = len(objects)
        headers.setdefault(_group(v), {}).setdefault(family, []).append(v.name + ".h")
        emit = ["h"]
        if via_llc:
            _llc_object(v)
            objects.append(v.name + ".o")
        else:
            emit.append("static_library")
            objects.append(v.name + ".a")
        if family in ASSEMBLY_FAMILIES:
            emit.append("assembly")
            assembly.append(v.name + ".s")
        if via_llc or v.streamed_outputs or TARGETS[v.target].device == "kCuda":
            emit.append("llvm_assembly")
        if TARGETS[v.target].device == "kCuda":
            cuda_ir.append(v.name + ".ll")
        if v.streamed_outputs:
            _streaming_twin(v)
            objects.append(v.name + "_streaming.o")
        if _without_asserts(v):
            unchecked.setdefault(_group(v), {}).setdefault(family, []).extend(objects[first_object:])
        native.genrule(
            name = v.name,
            outs = [v.name + _EMIT_SUFFIX[e] for e in emit],
            cmd = "$(location :{gen}) -g {g} -f {fn} -o $(@D) -e {e} target={t}-{f} {p}".format(
                gen = generator,
                g = v.generator,
                fn = v.name,
                e = ",".join(emit),
                t = TARGETS[v.target].halide,
                f = _kernel_features(v),
                p = " ".join(["%s=%s" % (k, v.params[k]) for k in sorted(v.params)]),
            ),
            tools = [":" + generator],
            target_compatible_with = [ARCHES[family].cpu],
        )

    for family in sorted({TARGETS[v.target].family: True for v in variants}):
        runtime = "halide_runtime_" + family
        native.genrule(
            name = runtime,
            outs = [runtime + ".a"],
            cmd = "$(location :{gen}) -r {rt} -o $(@D) -e static_library target={t}".format(
                gen = generator,
                rt = runtime,
                t = RUNTIME_TARGETS[family],
            ),
            tools = [":" + generator],
            target_compatible_with = [ARCHES[family].cpu],
        )
        runtimes[family] = [runtime + ".a"]

    package = native.package_name()
    twins = [v for v in variants if v.streamed_outputs]
    _text_file(
        name = name + "_variants_inc",
        out = "variants.inc",
        content = "// Generated by //tools/bazel:halide.bzl from the variant list.\n" +
                  _guarded_variants(variants, [_x_macro_line(v) for v in variants]),
    )
    _text_file(
        name = name + "_tuning_inc",
        out = "tuning.inc",
        content = _tuning_inc(tuning),
    )
    _text_file(
        name = name + "_headers",
        out = "kernels.h",
        content = "// Generated by //tools/bazel:halide.bzl: every kernel's declaration.\n" +
                  "#pragma once\n" +
                  _guarded_variants(variants, ['#include "%s/%s.h"' % (package, v.name) for v in variants]) +
                  # The streaming twins' entry points (their arguments are the variant's).
                  '#ifdef __cplusplus\nextern "C" {\n#endif\n' +
                  _guarded_variants(twins, ["int %s_streaming_argv(void **args);" % v.name for v in twins]) +
                  "#ifdef __cplusplus\n}\n#endif\n",
    )

    native.filegroup(
        name = name + "_assembly",
        srcs = assembly,  # incompatible where its genrules are
    )

    unchecked_objects = []
    for group in [None] + sorted(_OPTIONAL_GROUPS):
        unchecked_objects += _by_arch(unchecked.get(group, {}), group)
    native.filegroup(
        name = name + "_without_asserts",
        srcs = unchecked_objects,
    )

    native.filegroup(
        name = name + "_cuda_ir",
        srcs = cuda_ir,  # for the PTX test (tests/ptx_test.py)
    )

    # Only this build's architecture's kernels are built and linked, less
    # the groups it leaves out; kernel archives come before the runtime
    # archive on the link line.
    srcs = []
    hdrs = ["kernels.h", "tuning.inc", "variants.inc"]
    for group in [None] + sorted(_OPTIONAL_GROUPS):
        srcs += _by_arch(archives.get(group, {}), group)
        hdrs += _by_arch(headers.get(group, {}), group)
    native.cc_library(
        name = name,
        srcs = srcs + _by_arch(runtimes),
        hdrs = hdrs,
        defines = _group_defines(),
        linkopts = ["-ldl", "-lpthread"],
        deps = ["@halide//:runtime_headers"],
        linkstatic = True,
    )
