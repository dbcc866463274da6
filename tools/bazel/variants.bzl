"""THE variant list: every (op, direction, dtype, target, config) we compile.

It drives which generators run, which objects link, and variants.inc, which
the runtime, the tests and the benchmarks all include. Never keep a second list.
"""

load("//schedules:configs.bzl", "CHANNEL_NORM_CONFIGS", "ROW_NORM_CONFIGS")
load("//tools/bazel:halide.bzl", "TARGETS")

# Knobs added after a target's configs were tuned: those configs build with
# the value that reproduces the schedule from before the knob existed.
_KNOB_DEFAULTS = {"stats_rows": 1, "unroll": 1}

# A generator family: its configs per target (tuned or hand; a target without
# configs has no variants of the family) and, per direction, the generator,
# the schedule knobs it takes (CPU and GPU targets have different knobs),
# whether it also comes fused with the residual add or with 16-bit weight and
# bias read as they are (native_params: CPU targets, 16-bit dtypes, no
# residual), and the outputs its streaming-stores twin writes non-temporally
# (on targets with halide.bzl's `llc`).
_FAMILIES = {
    "row_norm": struct(
        configs = ROW_NORM_CONFIGS,
        directions = {
            "fwd": struct(
                generator = "row_norm_forward",
                knobs = ["vector_width", "accumulators", "rows_per_task", "stats_rows"],
                gpu_knobs = ["threads", "rows_per_block", "vector_width"],
                residual = [False, True],
                native_params = True,
                streamed = ["y", "residual_out"],
            ),
            "bwd": struct(
                generator = "row_norm_backward",
                knobs = ["vector_width", "accumulators", "stats_rows"],
                gpu_knobs = ["threads", "rows_per_block", "vector_width", "unroll"],
                residual = [False],
                native_params = False,
                streamed = ["dx"],
            ),
        },
    ),
    # LayerNorm2d over C of NCHW: a reduction across a strided axis.
    "channel_norm": struct(
        configs = CHANNEL_NORM_CONFIGS,
        directions = {
            "fwd": struct(
                generator = "channel_norm_forward",
                knobs = ["vector_width", "pixels_per_task"],
                gpu_knobs = ["vector_width", "pixels_per_task"],
                residual = [False],
                native_params = False,
                streamed = [],
            ),
            "bwd": struct(
                generator = "channel_norm_backward",
                knobs = ["vector_width", "pixels_per_task"],
                gpu_knobs = ["vector_width", "pixels_per_task"],
                residual = [False],
                native_params = False,
                streamed = [],
            ),
        },
    ),
}

# op -> C++ enum, generator family and the GeneratorParams that select it.
OPS = {
    "layer_norm": struct(cc = "kLayerNorm", family = "row_norm", params = {"kind": "layer"}),
    "rms_norm": struct(cc = "kRmsNorm", family = "row_norm", params = {"kind": "rms"}),
    "layer_norm2d": struct(cc = "kLayerNorm2d", family = "channel_norm", params = {}),
}

DIRECTION_CC = {"fwd": "kForward", "bwd": "kBackward"}

# Activation dtypes (weights, statistics and accumulation are f32 inside).
DTYPES = {
    "f32": "HALNORM_F32",
    "f16": "HALNORM_F16",
    "bf16": "HALNORM_BF16",
}

# The kinds of one direction: (fused residual, native params) pairs.
def _kinds(d):
    kinds = [(residual, False) for residual in d.residual]
    if d.native_params:
        kinds.append((False, True))
    return kinds

def _variants():
    out = []
    for op, o in OPS.items():
        family = _FAMILIES[o.family]
        for direction, d in family.directions.items():
            for residual, native_params in _kinds(d):
                for dtype, cc_dtype in DTYPES.items():
                    if native_params and dtype == "f32":
                        continue
                    for target in TARGETS:
                        if dtype not in getattr(TARGETS[target], "dtypes", DTYPES):
                            continue
                        gpu = TARGETS[target].device != "kCpu"
                        if native_params and gpu:
                            continue
                        for i, knobs in enumerate(family.configs.get(target, [])):
                            params = {
                                k: knobs[k] if k in knobs else _KNOB_DEFAULTS[k]
                                for k in (d.gpu_knobs if gpu else d.knobs)
                            }
                            params.update(o.params)
                            params["dtype"] = dtype
                            if residual:
                                params["residual"] = "true"
                            if native_params:
                                params["native_params"] = "true"
                            out.append(struct(
                                name = "%s_%s%s_%s__%s_c%d" % (
                                    op,
                                    direction,
                                    "_residual" if residual else "_native_params" if native_params else "",
                                    dtype,
                                    target,
                                    i,
                                ),
                                generator = d.generator,
                                target = target,
                                params = params,
                                config_index = i,
                                cc_op = o.cc,
                                cc_direction = DIRECTION_CC[direction],
                                cc_dtype = cc_dtype,
                                fused_residual = residual,
                                native_params = native_params,
                                # Native-params variants run calls too small to
                                # stream (runtime/row_norm_forward.cc): no twin.
                                streamed_outputs = d.streamed if TARGETS[target].llc and not native_params else [],
                            ))
    return out

VARIANTS = _variants()
