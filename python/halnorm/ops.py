"""LayerNorm, RMSNorm and LayerNorm2d, forward and backward, on numpy arrays
or torch tensors (no autograd here: see halnorm.torch for that).

Each function builds the descriptors and calls the C entry point once; no
input is copied. Outputs are allocated like the inputs (numpy -> numpy,
torch -> torch, same device), or written into the arrays passed as out=,
residual_out=, mean_out=, ...: any strides the C API accepts. Errors are the
C API's own (HalnormError subclasses, naming the C argument: `y` is out=).
Defaults (eps, weight_offset, residual_alpha) are what
halnorm_norm_options_init sets, read from the library, not repeated here.
"""

import ctypes
from collections import namedtuple

from . import _capi, _errors
from ._capi import Axes, Device
from ._tensors import (cuda_stream, describe, empty, empty_like, empty_param_like,
                       empty_rows_like)

LayerNormOutputs = namedtuple("LayerNormOutputs", "y mean rstd residual_out")
RmsNormOutputs = namedtuple("RmsNormOutputs", "y rstd residual_out")
LayerNorm2dOutputs = namedtuple("LayerNorm2dOutputs", "y mean rstd")
LayerNormGrads = namedtuple("LayerNormGrads", "dx dweight dbias")
RmsNormGrads = namedtuple("RmsNormGrads", "dx dweight")

# Descriptors are passed as they are: for a POINTER(halnorm_tensor) argument
# ctypes passes a halnorm_tensor by reference (cheaper than byref()), and
# None as NULL.
_CUDA = int(Device.CUDA)


def _optional(t, name, function, output=False):
    return None if t is None else describe(t, name, function, output)


def _rank(normalized_rank, weight):
    """normalized_rank, or by default the weight's rank (like torch's
    normalized_shape = weight.shape), else 1."""
    if normalized_rank is not None:
        return normalized_rank
    return 1 if weight is None else weight.ndim


def _row_stats_shape(x, normalized_rank):
    """mean/rstd: the leading dims ([1] when every dim is normalized)."""
    leading = x.shape[:max(x.ndim - normalized_rank, 0)]
    return leading if len(leading) else (1,)


def _feature_shape(x, normalized_rank):
    return x.shape[max(x.ndim - normalized_rank, 0):]


def _options(api, x, xt, eps=None, normalized_rank=1, weight_offset=None, residual=None,
             residual_alpha=None, residual_out=None):
    """halnorm_norm_options: the library's defaults with the given fields set
    (the shared default struct itself when nothing differs: the C API only
    reads it). CUDA tensors run on torch's current stream."""
    stream = cuda_stream(x) if xt.device == _CUDA else None
    defaults = api.default_options
    if (eps is None and normalized_rank == defaults.normalized_rank and weight_offset is None
            and residual is None and residual_alpha is None and residual_out is None
            and stream is None):
        return defaults
    opt = _capi.halnorm_norm_options.from_buffer_copy(defaults)
    if eps is not None:
        opt.eps = eps
    opt.normalized_rank = normalized_rank
    if weight_offset is not None:
        opt.weight_offset = weight_offset
    if residual is not None:
        opt.residual = ctypes.pointer(residual)
    if residual_alpha is not None:
        opt.residual_alpha = residual_alpha
    if residual_out is not None:
        opt.residual_out = ctypes.pointer(residual_out)
    if stream is not None:
        opt.cuda_stream = stream
    return opt


# ---- LayerNorm / RMSNorm forward -------------------------------------------

def _row_norm_forward(rms, x, weight, bias, eps, normalized_rank, weight_offset, residual,
                      residual_alpha, want_mean, want_rstd, out, residual_out, mean_out,
                      rstd_out):
    """The forward call of either op; returns (y, mean, rstd, residual_out)."""
    function = "halnorm_rms_norm_forward" if rms else "halnorm_layer_norm_forward"
    api = _capi.api()
    xt = describe(x, "x", function)
    wt = None if weight is None else describe(weight, "weight", function)
    bt = None if bias is None else describe(bias, "bias", function)
    rank = _rank(normalized_rank, weight)
    y = empty_rows_like(x, rank) if out is None else out
    yt = describe(y, "y", function, True)
    rt = rot = mt = st = None
    if residual is not None or residual_out is not None:
        if residual is not None and residual_out is None:
            residual_out = empty_rows_like(x, rank)
        rt = _optional(residual, "opt->residual", function)
        rot = _optional(residual_out, "opt->residual_out", function, True)
    mean, rstd = mean_out, rstd_out
    if want_mean or want_rstd or mean is not None or rstd is not None:
        if (want_mean and mean is None) or (want_rstd and rstd is None):
            shape = _row_stats_shape(x, rank)
            mean = empty(x, shape) if want_mean and mean is None else mean
            rstd = empty(x, shape) if want_rstd and rstd is None else rstd
        mt = _optional(mean, "mean", function, True)
        st = _optional(rstd, "rstd", function, True)
    opt = _options(api, x, xt, eps, rank, weight_offset, rt, residual_alpha, rot)
    if rms:
        status = api.halnorm_rms_norm_forward(xt, wt, opt, yt, st)
    else:
        status = api.halnorm_layer_norm_forward(xt, wt, bt, opt, yt, mt, st)
    if status:
        api.raise_error(status, function)
    return y, mean, rstd, residual_out


def layer_norm_forward(x, weight=None, bias=None, *, eps=None, normalized_rank=None,
                       weight_offset=None, residual=None, residual_alpha=None, stats=True,
                       out=None, residual_out=None, mean_out=None, rstd_out=None):
    """LayerNorm over the trailing `normalized_rank` dims of x (default: the
    weight's rank, else 1), everything halnorm_layer_norm_forward offers.

    weight, bias: optional, per feature (f32 or x's dtype). weight_offset:
    y uses weight + offset (1.0 = Gemma). residual: fused add
    h = residual_alpha * x + residual; h goes to residual_out (allocated if
    not given) and is what gets normalized. stats: also return mean and rstd
    (f32, shaped like the leading dims), which the backward pass needs.
    Returns LayerNormOutputs(y, mean, rstd, residual_out); unrequested
    fields are None.
    """
    return LayerNormOutputs(*_row_norm_forward(
        False, x, weight, bias, eps, normalized_rank, weight_offset, residual, residual_alpha,
        stats, stats, out, residual_out, mean_out, rstd_out))


def rms_norm_forward(x, weight=None, *, eps=None, normalized_rank=None, weight_offset=None,
                     residual=None, residual_alpha=None, stats=True, out=None,
                     residual_out=None, rstd_out=None):
    """RMSNorm: y = x * rstd * weight, rstd = 1/sqrt(mean(x^2) + eps); options
    as layer_norm_forward. Returns RmsNormOutputs(y, rstd, residual_out)."""
    y, _, rstd, h = _row_norm_forward(True, x, weight, None, eps, normalized_rank,
                                      weight_offset, residual, residual_alpha, False, stats,
                                      out, residual_out, None, rstd_out)
    return RmsNormOutputs(y, rstd, h)


def layer_norm(x, weight=None, bias=None, eps=None, *, normalized_rank=None, weight_offset=None,
               out=None):
    """y = LayerNorm(x) (no statistics kept)."""
    return _row_norm_forward(False, x, weight, bias, eps, normalized_rank, weight_offset, None,
                             None, False, False, out, None, None, None)[0]


def rms_norm(x, weight=None, eps=None, *, normalized_rank=None, weight_offset=None, out=None):
    """y = RMSNorm(x) (no statistics kept)."""
    return _row_norm_forward(True, x, weight, None, eps, normalized_rank, weight_offset, None,
                             None, False, False, out, None, None, None)[0]


def add_layer_norm(x, residual, weight=None, bias=None, eps=None, *, residual_alpha=None,
                   normalized_rank=None, weight_offset=None, out=None, residual_out=None):
    """Pre-norm residual block in one pass: h = residual_alpha * x + residual,
    y = LayerNorm(h). Returns (y, h)."""
    y, _, _, h = _row_norm_forward(False, x, weight, bias, eps, normalized_rank, weight_offset,
                                   residual, residual_alpha, False, False, out, residual_out,
                                   None, None)
    return y, h


def add_rms_norm(x, residual, weight=None, eps=None, *, residual_alpha=None,
                 normalized_rank=None, weight_offset=None, out=None, residual_out=None):
    """h = residual_alpha * x + residual, y = RMSNorm(h). Returns (y, h)."""
    y, _, _, h = _row_norm_forward(True, x, weight, None, eps, normalized_rank, weight_offset,
                                   residual, residual_alpha, False, False, out, residual_out,
                                   None, None)
    return y, h


# ---- LayerNorm / RMSNorm backward ------------------------------------------

def _param_grad(flag, out, weight, x, shape):
    """The dweight/dbias output: out if given; else one allocated when asked
    (flag, or by default when there is a weight); else None."""
    if out is not None:
        return out
    if weight is not None if flag is None else flag:
        return empty_param_like(weight, x, shape)
    return None


def layer_norm_backward(dy, x, mean, rstd, weight=None, *, normalized_rank=None,
                        weight_offset=None, dresidual=None, compute_dweight=None,
                        compute_dbias=None, out=None, dweight_out=None, dbias_out=None):
    """Gradients of layer_norm_forward given dy, its x (residual_out when the
    forward fused a residual), mean and rstd. dresidual: optional gradient
    arriving at residual_out, added to dx. dweight/dbias are computed when
    asked (compute_* or *_out; by default when there is a weight), in the
    weight's dtype (f32 without one). Returns LayerNormGrads(dx, dweight,
    dbias); dx is also the residual's gradient (times residual_alpha: x's)."""
    function = "halnorm_layer_norm_backward"
    api = _capi.api()
    xt = describe(x, "x", function)
    wt = _optional(weight, "weight", function)
    rank = _rank(normalized_rank, weight)
    dx = empty_rows_like(x, rank) if out is None else out
    dweight = _param_grad(compute_dweight, dweight_out, weight, x, _feature_shape(x, rank))
    dbias = _param_grad(compute_dbias, dbias_out, weight, x, _feature_shape(x, rank))
    dyt = describe(dy, "dy", function)
    mt = describe(mean, "mean", function)
    st = describe(rstd, "rstd", function)
    rt = _optional(dresidual, "opt->residual", function)
    dxt = describe(dx, "dx", function, True)
    dwt = _optional(dweight, "dweight", function, True)
    dbt = _optional(dbias, "dbias", function, True)
    opt = _options(api, x, xt, None, rank, weight_offset, rt)
    status = api.halnorm_layer_norm_backward(dyt, xt, mt, st, wt, opt, dxt, dwt, dbt)
    if status:
        api.raise_error(status, function)
    return LayerNormGrads(dx, dweight, dbias)


def rms_norm_backward(dy, x, rstd, weight=None, *, normalized_rank=None, weight_offset=None,
                      dresidual=None, compute_dweight=None, out=None, dweight_out=None):
    """Gradients of rms_norm_forward; as layer_norm_backward, without mean
    and dbias. Returns RmsNormGrads(dx, dweight)."""
    function = "halnorm_rms_norm_backward"
    api = _capi.api()
    xt = describe(x, "x", function)
    wt = _optional(weight, "weight", function)
    rank = _rank(normalized_rank, weight)
    dx = empty_rows_like(x, rank) if out is None else out
    dweight = _param_grad(compute_dweight, dweight_out, weight, x, _feature_shape(x, rank))
    dyt = describe(dy, "dy", function)
    st = describe(rstd, "rstd", function)
    rt = _optional(dresidual, "opt->residual", function)
    dxt = describe(dx, "dx", function, True)
    dwt = _optional(dweight, "dweight", function, True)
    opt = _options(api, x, xt, None, rank, weight_offset, rt)
    status = api.halnorm_rms_norm_backward(dyt, xt, st, wt, opt, dxt, dwt)
    if status:
        api.raise_error(status, function)
    return RmsNormGrads(dx, dweight)


# ---- LayerNorm2d -------------------------------------------------------------

_AXES_BY_NAME = {axes.name: axes for axes in Axes}


def parse_axes(axes, function):
    """An Axes from Axes, its int value or its name ("C", "chw", ...)."""
    if isinstance(axes, str):
        found = _AXES_BY_NAME.get(axes.upper())
        if found is None:
            raise _errors.invalid_argument(f"axes: unknown value {axes!r} (C, CHW or HW)",
                                           function)
        return found
    return int(axes)  # unknown ints go to the C API, which names them


def _stats_shape_2d(x, axes):
    """mean/rstd of LayerNorm2d; None where x is not rank 4 (the C API says why)."""
    if x.ndim != 4:
        return None
    n, c, h, w = x.shape
    return {Axes.C: (n, h, w), Axes.CHW: (n,), Axes.HW: (n, c)}.get(axes)


def layer_norm2d_forward(x, weight=None, bias=None, *, eps=None, axes=Axes.C, stats=True,
                         out=None, mean_out=None, rstd_out=None):
    """LayerNorm2d of an NCHW x (any strides the C API takes, channels-last
    included): per pixel over C (axes="C"), per sample over C,H,W ("CHW") or
    per sample and channel over H,W ("HW"). weight/bias: per channel [C].
    Returns LayerNorm2dOutputs(y, mean, rstd); mean/rstd ([N,H,W], [N] or
    [N,C]) are None without stats."""
    function = "halnorm_layer_norm2d_forward"
    api = _capi.api()
    axes = parse_axes(axes, function)
    xt = describe(x, "x", function)
    y = empty_like(x) if out is None else out
    stats_shape = _stats_shape_2d(x, axes) if stats else None
    mean = mean_out if mean_out is not None or stats_shape is None else empty(x, stats_shape)
    rstd = rstd_out if rstd_out is not None or stats_shape is None else empty(x, stats_shape)
    yt = describe(y, "y", function, True)
    wt = _optional(weight, "weight", function)
    bt = _optional(bias, "bias", function)
    mt = _optional(mean, "mean", function, True)
    st = _optional(rstd, "rstd", function, True)
    eps = api.default("eps") if eps is None else eps
    status = api.halnorm_layer_norm2d_forward(xt, wt, bt, axes, eps, yt, mt, st)
    if status:
        api.raise_error(status, function)
    return LayerNorm2dOutputs(y, mean, rstd)


def layer_norm2d(x, weight=None, bias=None, eps=None, *, axes=Axes.C, out=None):
    """y = LayerNorm2d(x) (no statistics kept)."""
    return layer_norm2d_forward(x, weight, bias, eps=eps, axes=axes, stats=False, out=out).y


def layer_norm2d_backward(dy, x, mean, rstd, weight=None, *, axes=Axes.C, compute_dweight=None,
                          compute_dbias=None, out=None, dweight_out=None, dbias_out=None):
    """Gradients of layer_norm2d_forward; dweight/dbias per channel, as in
    layer_norm_backward. Returns LayerNormGrads(dx, dweight, dbias)."""
    function = "halnorm_layer_norm2d_backward"
    api = _capi.api()
    axes = parse_axes(axes, function)
    xt = describe(x, "x", function)
    dx = empty_like(x) if out is None else out
    channels = x.shape[1:2] if x.ndim >= 2 else (1,)
    dweight = _param_grad(compute_dweight, dweight_out, weight, x, channels)
    dbias = _param_grad(compute_dbias, dbias_out, weight, x, channels)
    dyt = describe(dy, "dy", function)
    mt = describe(mean, "mean", function)
    st = describe(rstd, "rstd", function)
    wt = _optional(weight, "weight", function)
    dxt = describe(dx, "dx", function, True)
    dwt = _optional(dweight, "dweight", function, True)
    dbt = _optional(dbias, "dbias", function, True)
    status = api.halnorm_layer_norm2d_backward(dyt, xt, mt, st, wt, axes, dxt, dwt, dbt)
    if status:
        api.raise_error(status, function)
    return LayerNormGrads(dx, dweight, dbias)


# ---- Library-wide settings ---------------------------------------------------

def set_num_threads(n):
    """Caps the threads any kernel uses (exactly); n <= 0: one per core."""
    _capi.api().halnorm_set_num_threads(int(n))


def load_tuning_file(path):
    """Dispatch reads its per-shape kernel configs from this tuning file
    (tools/autotune writes one); None: back to the built-in table."""
    api = _capi.api()
    encoded = None if path is None else str(path).encode()
    api.check(api.halnorm_load_tuning_file(encoded), "halnorm_load_tuning_file")


def tuning_source():
    """What dispatch uses now, e.g. 'built-in table' or 'tuning file /x'."""
    return _capi.api().halnorm_tuning_source().decode("utf-8", "replace")


def library_path():
    """The path of the loaded libhalnorm.so (loading it if needed)."""
    return _capi.api().path
