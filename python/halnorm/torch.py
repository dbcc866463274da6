"""halnorm as PyTorch ops: autograd Functions whose backward is halnorm's
backward kernel, their functional forms, and nn.Modules to drop into models.

Unlike halnorm.ops (which refuses what the C API refuses), these accept any
layout a torch norm accepts: a tensor whose normalized dims are not one
contiguous block (or, for LayerNorm2d, not NCHW/channels-last) is copied
first, as torch's own kernels do; strided leading dims run in place.
Incoming gradients (often expanded, stride 0) get the same treatment.
Without autograd (torch.no_grad(), or nothing requires grad) the forward
keeps no statistics.
"""

import torch
from torch.autograd.function import once_differentiable

from . import _capi, ops
from ._capi import Axes

__all__ = ["layer_norm", "rms_norm", "add_layer_norm", "add_rms_norm", "layer_norm2d",
           "LayerNorm", "RMSNorm", "LayerNorm2d"]


def _default_eps():
    return _capi.api().default("eps")


def _rows_ready(t, normalized_rank):
    """t, or a contiguous copy if its trailing normalized_rank dims are not
    one dense block (the only layout the row kernels read)."""
    if t is None:
        return None
    shape, strides = t.shape, t.stride()
    expected = 1
    for d in range(t.dim() - 1, t.dim() - 1 - normalized_rank, -1):
        if d < 0:
            break
        if shape[d] != 1 and strides[d] != expected:
            return t.contiguous()
        expected *= shape[d]
    return t


def _memory_format_2d(x, axes):
    """channels_last when x already is (except over H,W, which needs each
    channel's pixels contiguous), else contiguous NCHW."""
    if (x.dim() == 4 and ops.parse_axes(axes, "halnorm_layer_norm2d_forward") != Axes.HW
            and not x.is_contiguous() and x.is_contiguous(memory_format=torch.channels_last)):
        return torch.channels_last
    return torch.contiguous_format


def _empty_param_grad(meta):
    shape, dtype, device = meta
    return torch.empty(shape, dtype=dtype, device=device)


def _meta(t):
    return None if t is None else (t.shape, t.dtype, t.device)


def _needs_autograd(*tensors):
    return torch.is_grad_enabled() and any(t is not None and t.requires_grad for t in tensors)


class _RowNormFunction(torch.autograd.Function):
    """LayerNorm or RMSNorm, optionally fused with h = alpha * x + residual
    (then the outputs are y and h, and h is what the backward pass reads)."""

    @staticmethod
    def forward(ctx, x, weight, bias, residual, rms, eps, normalized_rank, weight_offset,
                residual_alpha):
        x = _rows_ready(x, normalized_rank)
        residual = _rows_ready(residual, normalized_rank)
        options = dict(eps=eps, normalized_rank=normalized_rank, weight_offset=weight_offset,
                       residual=residual, residual_alpha=residual_alpha)
        if rms:
            y, rstd, h = ops.rms_norm_forward(x, weight, **options)
            mean = None
        else:
            y, mean, rstd, h = ops.layer_norm_forward(x, weight, bias, **options)
        ctx.save_for_backward(x if h is None else h, weight, mean, rstd)
        ctx.rms, ctx.normalized_rank, ctx.weight_offset = rms, normalized_rank, weight_offset
        ctx.residual_alpha = residual_alpha
        ctx.fused = residual is not None
        ctx.bias_meta = _meta(bias)
        ctx.set_materialize_grads(False)
        return y if h is None else (y, h)

    @staticmethod
    @once_differentiable
    def backward(ctx, dy, dh=None):
        x, weight, mean, rstd = ctx.saved_tensors
        need_x, need_weight, need_bias, need_residual = ctx.needs_input_grad[:4]
        rank = ctx.normalized_rank
        dy = torch.zeros_like(x) if dy is None else _rows_ready(dy, rank)
        dh = _rows_ready(dh, rank)
        dweight = _empty_param_grad(_meta(weight)) if need_weight else None
        common = dict(normalized_rank=rank, weight_offset=ctx.weight_offset, dresidual=dh,
                      compute_dweight=need_weight, dweight_out=dweight)
        if ctx.rms:
            grads = ops.rms_norm_backward(dy, x, rstd, weight, **common)
            dbias = None
        else:
            dbias = _empty_param_grad(ctx.bias_meta) if need_bias else None
            grads = ops.layer_norm_backward(dy, x, mean, rstd, weight, compute_dbias=need_bias,
                                            dbias_out=dbias, **common)
        dx = grads.dx  # the gradient of h when fused: residual's, and x's times alpha
        dresidual = dx if ctx.fused and need_residual else None
        if ctx.fused and need_x:
            alpha = ctx.residual_alpha
            if alpha is None:
                alpha = _capi.api().default("residual_alpha")
            if alpha != 1.0:
                dx = dx * alpha
        return (dx if need_x else None, grads.dweight, dbias, dresidual,
                None, None, None, None, None)


def _row_norm(x, weight, bias, residual, rms, eps, normalized_rank, weight_offset,
              residual_alpha):
    if normalized_rank is None:
        normalized_rank = 1 if weight is None else weight.dim()
    if _needs_autograd(x, weight, bias, residual):
        return _RowNormFunction.apply(x, weight, bias, residual, rms, eps, normalized_rank,
                                      weight_offset, residual_alpha)
    x = _rows_ready(x, normalized_rank)
    options = dict(eps=eps, normalized_rank=normalized_rank, weight_offset=weight_offset)
    if residual is None:
        if rms:
            return ops.rms_norm(x, weight, **options)
        return ops.layer_norm(x, weight, bias, **options)
    residual = _rows_ready(residual, normalized_rank)
    if rms:
        return ops.add_rms_norm(x, residual, weight, residual_alpha=residual_alpha, **options)
    return ops.add_layer_norm(x, residual, weight, bias, residual_alpha=residual_alpha,
                              **options)


def layer_norm(x, weight=None, bias=None, eps=None, *, normalized_rank=None,
               weight_offset=None):
    """LayerNorm over the trailing normalized_rank dims (default: weight's
    rank, else 1), differentiable in x, weight and bias."""
    return _row_norm(x, weight, bias, None, False, eps, normalized_rank, weight_offset, None)


def rms_norm(x, weight=None, eps=None, *, normalized_rank=None, weight_offset=None):
    """RMSNorm (weight_offset=1.0: Gemma's 1 + weight), differentiable."""
    return _row_norm(x, weight, None, None, True, eps, normalized_rank, weight_offset, None)


def add_layer_norm(x, residual, weight=None, bias=None, eps=None, *, residual_alpha=None,
                   normalized_rank=None, weight_offset=None):
    """h = residual_alpha * x + residual; returns (LayerNorm(h), h), both
    differentiable (the pre-norm block's new residual stream is h)."""
    return _row_norm(x, weight, bias, residual, False, eps, normalized_rank, weight_offset,
                     residual_alpha)


def add_rms_norm(x, residual, weight=None, eps=None, *, residual_alpha=None,
                 normalized_rank=None, weight_offset=None):
    """h = residual_alpha * x + residual; returns (RMSNorm(h), h)."""
    return _row_norm(x, weight, None, residual, True, eps, normalized_rank, weight_offset,
                     residual_alpha)


class _LayerNorm2dFunction(torch.autograd.Function):

    @staticmethod
    def forward(ctx, x, weight, bias, eps, axes):
        memory_format = _memory_format_2d(x, axes)
        x = x.contiguous(memory_format=memory_format)
        y, mean, rstd = ops.layer_norm2d_forward(x, weight, bias, eps=eps, axes=axes)
        ctx.save_for_backward(x, weight, mean, rstd)
        ctx.axes, ctx.memory_format, ctx.bias_meta = axes, memory_format, _meta(bias)
        return y

    @staticmethod
    @once_differentiable
    def backward(ctx, dy):
        x, weight, mean, rstd = ctx.saved_tensors
        need_x, need_weight, need_bias = ctx.needs_input_grad[:3]
        dy = dy.contiguous(memory_format=ctx.memory_format)
        dweight = _empty_param_grad(_meta(weight)) if need_weight else None
        dbias = _empty_param_grad(ctx.bias_meta) if need_bias else None
        grads = ops.layer_norm2d_backward(dy, x, mean, rstd, weight, axes=ctx.axes,
                                          compute_dweight=need_weight, compute_dbias=need_bias,
                                          dweight_out=dweight, dbias_out=dbias)
        return grads.dx if need_x else None, grads.dweight, grads.dbias, None, None


def layer_norm2d(x, weight=None, bias=None, eps=None, *, axes=Axes.C):
    """LayerNorm2d of NCHW x (axes "C": per pixel over channels, "CHW",
    "HW"); weight/bias per channel. Differentiable."""
    if _needs_autograd(x, weight, bias):
        return _LayerNorm2dFunction.apply(x, weight, bias, eps, axes)
    x = x.contiguous(memory_format=_memory_format_2d(x, axes))
    return ops.layer_norm2d(x, weight, bias, eps, axes=axes)


class LayerNorm(torch.nn.LayerNorm):
    """torch.nn.LayerNorm (same parameters and state_dict) on halnorm's
    kernels. eps=None: the library's default (1e-5). bias=False: no bias."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, bias=True,
                 device=None, dtype=None):
        super().__init__(normalized_shape, _default_eps() if eps is None else eps,
                         elementwise_affine, device=device, dtype=dtype)
        if elementwise_affine and not bias:
            self.register_parameter("bias", None)

    def forward(self, x):
        shape = tuple(self.normalized_shape)
        if x.dim() < len(shape) or tuple(x.shape[x.dim() - len(shape):]) != shape:
            raise ValueError(f"LayerNorm: input shape {tuple(x.shape)} does not end with the "
                             f"normalized shape {shape}")
        return layer_norm(x, self.weight, self.bias, self.eps, normalized_rank=len(shape))


class RMSNorm(torch.nn.Module):
    """RMSNorm over the trailing normalized_shape (parameter `weight`, like
    torch.nn.RMSNorm and Llama's). weight_offset=1.0 is Gemma's (1 + weight);
    the weight starts at 1 - weight_offset so the initial scale is 1."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, weight_offset=0.0,
                 device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = _default_eps() if eps is None else eps
        self.weight_offset = weight_offset
        if elementwise_affine:
            self.weight = torch.nn.Parameter(
                torch.full(self.normalized_shape, 1.0 - weight_offset, device=device,
                           dtype=dtype))
        else:
            self.register_parameter("weight", None)

    def forward(self, x):
        shape = self.normalized_shape
        if x.dim() < len(shape) or tuple(x.shape[x.dim() - len(shape):]) != shape:
            raise ValueError(f"RMSNorm: input shape {tuple(x.shape)} does not end with the "
                             f"normalized shape {shape}")
        return rms_norm(x, self.weight, self.eps, normalized_rank=len(shape),
                        weight_offset=self.weight_offset or None)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.weight is not None}, "
                f"weight_offset={self.weight_offset}")


class LayerNorm2d(torch.nn.Module):
    """LayerNorm2d of NCHW activations with per-channel weight and bias:
    axes="C" is ConvNeXt/SAM/timm's LayerNorm2d, "CHW" GroupNorm(1, C),
    "HW" InstanceNorm2d(affine)."""

    def __init__(self, num_channels, eps=None, affine=True, axes=Axes.C, device=None,
                 dtype=None):
        super().__init__()
        self.num_channels = num_channels
        self.eps = _default_eps() if eps is None else eps
        self.axes = axes
        if affine:
            self.weight = torch.nn.Parameter(torch.ones(num_channels, device=device, dtype=dtype))
            self.bias = torch.nn.Parameter(torch.zeros(num_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, x):
        return layer_norm2d(x, self.weight, self.bias, self.eps, axes=self.axes)

    def extra_repr(self):
        axes = self.axes if isinstance(self.axes, str) else Axes(self.axes).name
        return f"{self.num_channels}, eps={self.eps}, affine={self.weight is not None}, axes={axes}"
