"""halnorm: LayerNorm, RMSNorm and LayerNorm2d kernels (Halide, AOT-compiled,
dispatched per CPU and shape) through the C ABI of libhalnorm.so.

    import numpy as np, halnorm
    y = halnorm.layer_norm(np.random.rand(8, 768).astype(np.float32))

Functions here take numpy arrays (float32, float16) or torch tensors
(float32, float16, bfloat16; CPU, or CUDA where the library has it) and
return the same kind; they are not autograd-aware. `halnorm.torch` has the
autograd ops and nn.Modules (imported on first use: torch is optional).
"""

from ._capi import Axes, Device, Dtype, halnorm_norm_options, halnorm_tensor, load
from ._errors import (HalnormError, InvalidArgumentError, KernelError, UnimplementedError,
                      UnsupportedError)
from ._library import LibraryNotFoundError
from .ops import (LayerNorm2dOutputs, LayerNormGrads, LayerNormOutputs, RmsNormGrads,
                  RmsNormOutputs, add_layer_norm, add_rms_norm, layer_norm, layer_norm2d,
                  layer_norm2d_backward, layer_norm2d_forward, layer_norm_backward,
                  layer_norm_forward, library_path, load_tuning_file, rms_norm,
                  rms_norm_backward, rms_norm_forward, set_num_threads, tuning_source)

__all__ = [
    "layer_norm", "rms_norm", "add_layer_norm", "add_rms_norm", "layer_norm2d",
    "layer_norm_forward", "layer_norm_backward", "rms_norm_forward", "rms_norm_backward",
    "layer_norm2d_forward", "layer_norm2d_backward",
    "LayerNormOutputs", "RmsNormOutputs", "LayerNorm2dOutputs", "LayerNormGrads", "RmsNormGrads",
    "Axes", "Dtype", "Device", "halnorm_tensor", "halnorm_norm_options",
    "HalnormError", "InvalidArgumentError", "UnimplementedError", "UnsupportedError",
    "KernelError", "LibraryNotFoundError",
    "set_num_threads", "load_tuning_file", "tuning_source", "library_path", "load",
]


def __getattr__(name):
    # `halnorm.torch` without an explicit import, and without importing
    # torch for numpy-only users.
    if name == "torch":
        import importlib
        return importlib.import_module(".torch", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
