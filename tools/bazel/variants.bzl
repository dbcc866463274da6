"""THE variant list: every (op, direction, dtype, target, config) we compile.

It drives which generators run, which objects link, and variants.inc, which
the runtime, the tests and the benchmarks all include. Never keep a second list.
"""

load("//schedules:configs.bzl", "ROW_NORM_CPU_CONFIGS")
load("//tools/bazel:halide.bzl", "TARGETS")

# op -> direction -> the generator that computes it and the C++ enum names.
_OPS = {
    "layer_norm": struct(cc = "kLayerNorm", directions = {
        "fwd": struct(cc = "kForward", generator = "row_norm_forward", configs = ROW_NORM_CPU_CONFIGS),
    }),
}

_DTYPES = {"f32": "HALNORM_F32"}

def _variants():
    out = []
    for op, op_info in _OPS.items():
        for direction, d in op_info.directions.items():
            for dtype, cc_dtype in _DTYPES.items():
                for target in TARGETS:
                    for i, params in enumerate(d.configs[target]):
                        out.append(struct(
                            name = "%s_%s_%s__%s_c%d" % (op, direction, dtype, target, i),
                            generator = d.generator,
                            target = target,
                            params = params,
                            cc_op = op_info.cc,
                            cc_direction = d.cc,
                            cc_dtype = cc_dtype,
                        ))
    return out

VARIANTS = _variants()
