"""The PyTorch column of the performance report: each op written the way a
PyTorch 1.13 user writes it, timed in-process on the same shapes as the
C++ runner."""

import math
import statistics
import time
from typing import Callable, NamedTuple

import torch
import torch.nn.functional as F

from report_analysis import DIRECTIONS

EPS = 1e-5
TORCH_DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
# A repetition runs the op this long or more, so timer resolution and
# per-call jitter stay small next to the time measured.
MIN_REP_SECONDS = 0.010
# Calls slower than this (PyTorch's bf16 on the largest shapes: seconds each)
# get at most SLOW_CALL_REPS repetitions, which keeps the whole grid to well
# under an hour; their run-to-run spread is small next to their length.
SLOW_CALL_SECONDS = 0.2
SLOW_CALL_REPS = 3


def layer_norm(x, w, b):
    return F.layer_norm(x, (x.shape[-1],), w, b, eps=EPS)


def rms_norm(x, w):
    # The LLaMA form: statistics in f32, scaled in the activation dtype
    # (1.13 has no nn.RMSNorm).
    xf = x.float()
    rstd = torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + EPS)
    return (xf * rstd).to(x.dtype) * w


def layer_norm2d(x, w, b):
    # The ConvNeXt / SAM LayerNorm2d: over the channels of NCHW, per pixel.
    u = x.mean(1, keepdim=True)
    s = (x - u).pow(2).mean(1, keepdim=True)
    y = (x - u) / torch.sqrt(s + EPS)
    return w[:, None, None] * y + b[:, None, None]


# op -> (function of (x, *params), whether it takes a bias)
OPS: dict[str, tuple[Callable, bool]] = {
    "layer_norm": (layer_norm, True),
    "rms_norm": (rms_norm, False),
    "layer_norm2d": (layer_norm2d, True),
}


class Timing(NamedTuple):
    direction: str
    threads: int
    seconds: float | None  # median per call; None when torch refused
    status: str  # "ok" or "n/a: <reason>"


def time_op(op: str, dtype: str, dims: tuple[int, ...],
            threads: list[int], reps: int) -> list[Timing]:
    """Per-call seconds of `op` on an x of shape `dims`, each direction at
    each thread count. Inputs are built once and freed on return."""
    function, has_bias = OPS[op]
    inputs = random_inputs(op, TORCH_DTYPES[dtype], dims, has_bias)
    dy = torch.randn(dims, dtype=TORCH_DTYPES[dtype])
    timings = []
    for count in threads:
        torch.set_num_threads(count)
        for direction in DIRECTIONS:
            try:
                call = (forward_call(function, inputs) if direction == "forward"
                        else backward_call(function, inputs, dy))
                seconds = seconds_per_call(call, reps)
                timings.append(Timing(direction, count, seconds, "ok"))
            except Exception as error:  # torch refuses some dtype/op pairs
                timings.append(Timing(direction, count, None, f"n/a: {short(error)}"))
    return timings


def random_inputs(op, dtype, dims, has_bias):
    """x ~ N(0,1) plus per-feature weight (and bias), all in `dtype`, as a
    PyTorch user keeps them."""
    features = dims[1] if op == "layer_norm2d" else dims[-1]
    shapes = [dims, (features,)] + ([(features,)] if has_bias else [])
    return [torch.randn(shape, dtype=dtype) for shape in shapes]


def forward_call(function, inputs):
    return lambda: function(*inputs)


def backward_call(function, inputs, dy):
    """The gradient computation alone: the forward graph is built once and
    retained, so repeated calls time only autograd's backward."""
    leaves = [t.detach().requires_grad_() for t in inputs]
    y = function(*leaves)
    return lambda: torch.autograd.grad(y, leaves, dy, retain_graph=True)


def seconds_per_call(call, reps):
    """Median over `reps` repetitions of (repetition time / calls in it)."""
    calls_per_rep, warm_seconds = calibrate(call)
    if warm_seconds > SLOW_CALL_SECONDS:
        reps = min(reps, SLOW_CALL_REPS)
    per_call = []
    for _ in range(reps):
        per_call.append(seconds(call, calls_per_rep) / calls_per_rep)
    return statistics.median(per_call)


def calibrate(call):
    """Calls per repetition and the seconds of one warm call. A short
    warm-up is timed again: its first-call costs (lazy setup, first touch of
    buffers) would make the count too small."""
    elapsed = seconds(call)
    if elapsed < MIN_REP_SECONDS:
        elapsed = seconds(call)
    return math.ceil(MIN_REP_SECONDS / max(elapsed, 1e-9)), elapsed


def seconds(call, times=1):
    start = time.perf_counter()
    for _ in range(times):
        call()
    return time.perf_counter() - start


def short(error: Exception) -> str:
    """First line of the message, without commas (it goes into a CSV field)."""
    lines = str(error).strip().splitlines() or [type(error).__name__]
    return lines[0].replace(",", "")
