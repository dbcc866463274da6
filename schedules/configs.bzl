"""Hand-tuned schedule configs per target, until schedules/tuned/ has them.

Each config is a dict of the generator's schedule knobs (GeneratorParams).
The config's index in the list is its variant suffix: c0, c1, ...
"""

ROW_NORM_CPU_CONFIGS = {
    "x86_avx512": [{"vector_width": 16, "accumulators": 4, "rows_per_task": 16}],
    "x86_avx2": [{"vector_width": 8, "accumulators": 4, "rows_per_task": 16}],
    "x86_sse41": [{"vector_width": 4, "accumulators": 4, "rows_per_task": 16}],
}

CHANNEL_NORM_CPU_CONFIGS = {
    "x86_avx512": [{"vector_width": 16, "pixels_per_task": 64}],
    "x86_avx2": [{"vector_width": 8, "pixels_per_task": 64}],
    "x86_sse41": [{"vector_width": 4, "pixels_per_task": 32}],
}
