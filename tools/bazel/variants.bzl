"""THE variant list: every (op, direction, dtype, target, config) we compile.

It drives which generators run, which objects link, and variants.inc, which
the runtime, the tests and the benchmarks all include. Never keep a second list.
"""

load("//schedules:configs.bzl", "ROW_NORM_CPU_CONFIGS")
load("//tools/bazel:halide.bzl", "TARGETS")

# op -> the generator `kind` and the C++ enum.
_OPS = {
    "layer_norm": struct(cc = "kLayerNorm", kind = "layer"),
    "rms_norm": struct(cc = "kRmsNorm", kind = "rms"),
}

# direction -> generator, the schedule knobs it takes, and whether it also
# comes fused with the residual add.
_DIRECTIONS = {
    "fwd": struct(
        cc = "kForward",
        generator = "row_norm_forward",
        knobs = ["vector_width", "accumulators", "rows_per_task"],
        residual = [False, True],
    ),
    "bwd": struct(
        cc = "kBackward",
        generator = "row_norm_backward",
        knobs = ["vector_width", "accumulators"],
        residual = [False],
    ),
}

# Activation dtypes (weights, statistics and accumulation are f32 inside).
_DTYPES = {
    "f32": "HALNORM_F32",
    "f16": "HALNORM_F16",
    "bf16": "HALNORM_BF16",
}

def _variants():
    out = []
    for op, o in _OPS.items():
        for direction, d in _DIRECTIONS.items():
            for residual in d.residual:
                for dtype, cc_dtype in _DTYPES.items():
                    for target in TARGETS:
                        for i, knobs in enumerate(ROW_NORM_CPU_CONFIGS[target]):
                            params = {k: knobs[k] for k in d.knobs}
                            params.update({"kind": o.kind, "dtype": dtype})
                            if residual:
                                params["residual"] = "true"
                            out.append(struct(
                                name = "%s_%s%s_%s__%s_c%d" % (
                                    op,
                                    direction,
                                    "_residual" if residual else "",
                                    dtype,
                                    target,
                                    i,
                                ),
                                generator = d.generator,
                                target = target,
                                params = params,
                                cc_op = o.cc,
                                cc_direction = d.cc,
                                cc_dtype = cc_dtype,
                                fused_residual = residual,
                            ))
    return out

VARIANTS = _variants()
