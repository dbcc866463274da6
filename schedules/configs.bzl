"""Schedule configs per target: the tuned ones where schedules/tuned/ has
them, else the hand configs below.

Each config is a dict of the generator's schedule knobs (GeneratorParams).
The config's index in the list is its variant suffix: c0, c1, ...
"""

load("//schedules/tuned:index.bzl", "TUNED_TARGETS")
load("//tools/bazel:halide.bzl", "TARGETS")

HAND_ROW_NORM_CPU_CONFIGS = {
    "x86_avx512": [{"vector_width": 16, "accumulators": 4, "rows_per_task": 16, "stats_rows": 1}],
    "x86_avx2": [{"vector_width": 8, "accumulators": 4, "rows_per_task": 16, "stats_rows": 1}],
    "x86_sse41": [{"vector_width": 4, "accumulators": 4, "rows_per_task": 16, "stats_rows": 1}],
    # 128-bit NEON: 4 f32 lanes per register. Vectors of 8 (two registers per
    # step) times 2 accumulators keep the 16 reduction lanes the 1e-5 accuracy
    # bound needs (tests/row_norm_forward_test, N=2^20), in 4 of the 32 registers.
    "arm64_fp16_dot": [{"vector_width": 8, "accumulators": 2, "rows_per_task": 16, "stats_rows": 1}],
    "arm64_neon": [{"vector_width": 8, "accumulators": 2, "rows_per_task": 16, "stats_rows": 1}],
}

HAND_CHANNEL_NORM_CPU_CONFIGS = {
    "x86_avx512": [{"vector_width": 16, "pixels_per_task": 64}],
    "x86_avx2": [{"vector_width": 8, "pixels_per_task": 64}],
    "x86_sse41": [{"vector_width": 4, "pixels_per_task": 32}],
    "arm64_fp16_dot": [{"vector_width": 8, "pixels_per_task": 32}],
    "arm64_neon": [{"vector_width": 8, "pixels_per_task": 32}],
}

# GPU configs (schedules/row_norm_gpu.cc), the same for CUDA and OpenCL.
# threads: a row's threads (32: a warp per row, rows_per_block rows a
# block); vector_width: elements a thread loads a step (8 ran at 0.5-0.9x
# of 4 on an H100, every op and dtype). unroll (backward only, 16-bit
# dtypes only; GpuRowNormKnobs): a thread's steps unrolled; 4 ran 16-bit
# backwards 1.05-1.12x faster on an H200 at N >= 1024, and forwards and f32
# 3-10% slower (`gpu_bench --all_configs`, 2026-12-04; 1024 threads: not
# measured, none). The runtime picks among them by their knobs
# (runtime/cuda_dispatch.h): the vector_width = 1 one for rows that are not
# whole aligned vectors, else the one whose threads suit the row's bytes.
_GPU_ROW_NORM_CONFIGS = [
    {"threads": 32, "rows_per_block": 4, "vector_width": 4, "unroll": 4},
    {"threads": 64, "rows_per_block": 4, "vector_width": 4, "unroll": 4},
    {"threads": 128, "rows_per_block": 2, "vector_width": 4, "unroll": 4},
    {"threads": 256, "rows_per_block": 1, "vector_width": 4, "unroll": 4},
    {"threads": 512, "rows_per_block": 1, "vector_width": 4, "unroll": 4},
    {"threads": 1024, "rows_per_block": 1, "vector_width": 4},
    {"threads": 128, "rows_per_block": 1, "vector_width": 1},
]

GPU_ROW_NORM_CONFIGS = {
    "cuda_sm80": _GPU_ROW_NORM_CONFIGS,
    "opencl": _GPU_ROW_NORM_CONFIGS,
}

# GPU channel-norm configs (schedules/channel_norm_gpu.cc), the same for
# CUDA and OpenCL. pixels_per_task: pixels (threads) a block takes;
# vector_width: threads of the backward's partials walk, each summing one
# pixel lane of a tile of pixels_per_task. 64-pixel blocks keep small images
# (ConvNeXt's 7x7 and 14x14 stages) on more blocks.
_GPU_CHANNEL_NORM_CONFIGS = [
    {"pixels_per_task": 256, "vector_width": 32},
    {"pixels_per_task": 64, "vector_width": 32},
]

GPU_CHANNEL_NORM_CONFIGS = {
    "cuda_sm80": _GPU_CHANNEL_NORM_CONFIGS,
    "opencl": _GPU_CHANNEL_NORM_CONFIGS,
}

def _tuned_or_hand(hand, field):
    configs = {
        target: getattr(TUNED_TARGETS[target], field) if target in TUNED_TARGETS else hand_configs
        for target, hand_configs in hand.items()
    }

    # Targets tuned as another (halide.bzl's tuned_as) share its configs.
    for target, t in TARGETS.items():
        if hasattr(t, "tuned_as"):
            configs[target] = configs[t.tuned_as]
    return configs

ROW_NORM_CPU_CONFIGS = _tuned_or_hand(HAND_ROW_NORM_CPU_CONFIGS, "row_norm_configs")
ROW_NORM_CONFIGS = dict(ROW_NORM_CPU_CONFIGS, **GPU_ROW_NORM_CONFIGS)
CHANNEL_NORM_CPU_CONFIGS = _tuned_or_hand(HAND_CHANNEL_NORM_CPU_CONFIGS, "channel_norm_configs")
CHANNEL_NORM_CONFIGS = dict(CHANNEL_NORM_CPU_CONFIGS, **GPU_CHANNEL_NORM_CONFIGS)
