"""numpy arrays and torch tensors as halnorm_tensor descriptors, and outputs
allocated like the inputs (numpy in -> numpy out, torch in -> torch out).

A descriptor points at the array's own memory with its strides in elements,
so strided views (padded rows, permuted leading dims) reach the C API as they
are; what the C API cannot take (non-contiguous normalized dims, negative
strides) it refuses with a message, and nothing here copies to hide that.
torch is never imported here: a torch tensor can only exist once the caller
has imported it.
"""

import sys

import numpy as np

from . import _errors
from ._capi import _TENSOR_LAYOUT, _ZEROS, Device, Dtype, halnorm_tensor, make_tensor

# Plain ints: struct.pack takes them faster than IntEnum members.
_CPU, _CUDA = int(Device.CPU), int(Device.CUDA)
_NUMPY_DTYPES = {np.dtype(np.float32): int(Dtype.F32), np.dtype(np.float16): int(Dtype.F16)}
_NUMPY_OF = {Dtype.F32: np.float32, Dtype.F16: np.float16}
_torch_dtypes = None  # torch.dtype -> Dtype, filled on the first torch tensor
_TORCH_TYPES = set()  # exact types for the fast path (subclasses use isinstance)
_pack = _TENSOR_LAYOUT.pack
_from_bytes = halnorm_tensor.from_buffer_copy


def _torch():
    return sys.modules.get("torch")


def is_torch(t):
    torch = _torch()
    return torch is not None and isinstance(t, torch.Tensor)


def _check_rank(rank, name, function):
    # Rank 0 goes to the C API, which names it; rank > 4 does not fit the struct.
    if rank > 4:
        raise _errors.invalid_argument(f"{name}: rank must be 1..4, got {rank}", function)


def _describe_numpy(a, name, function, output):
    dtype = _NUMPY_DTYPES.get(a.dtype)
    if dtype is None:
        raise _errors.invalid_argument(
            f"{name}: dtype {a.dtype} is not supported (float32 or float16; numpy has no "
            "bfloat16: pass torch tensors for bf16)", function)
    _check_rank(a.ndim, name, function)
    if output and not a.flags.writeable:
        raise _errors.invalid_argument(f"{name}: the numpy array is read-only", function)
    itemsize = a.itemsize
    byte_strides = a.strides
    if any(s % itemsize for s in byte_strides):
        raise _errors.invalid_argument(
            f"{name}: byte strides {byte_strides} are not multiples of the item size {itemsize}",
            function)
    return make_tensor(a.ctypes.data, dtype, _CPU, a.shape,
                       tuple(s // itemsize for s in byte_strides))


def _torch_dtype_table(torch):
    global _torch_dtypes
    _torch_dtypes = {torch.float32: int(Dtype.F32), torch.float16: int(Dtype.F16),
                     torch.bfloat16: int(Dtype.BF16)}
    _TORCH_TYPES.update({torch.Tensor, torch.nn.Parameter})
    return _torch_dtypes


def _describe_torch(t, name, function):
    """Any torch tensor, every check, with a message for what does not fit."""
    torch = _torch()
    dtype = (_torch_dtypes or _torch_dtype_table(torch)).get(t.dtype)
    if dtype is None:
        raise _errors.invalid_argument(
            f"{name}: dtype {t.dtype} is not supported (torch.float32, torch.float16 or "
            "torch.bfloat16)", function)
    if t.layout != torch.strided:
        raise _errors.invalid_argument(
            f"{name}: layout {t.layout} is not supported (dense tensors only)", function)
    if t.is_cpu:
        device = _CPU
    elif t.is_cuda:
        device = _CUDA
    else:
        raise _errors.invalid_argument(
            f"{name}: device {t.device} is not supported (cpu or cuda)", function)
    shape = t.shape
    _check_rank(len(shape), name, function)
    return make_tensor(t.data_ptr(), dtype, device, shape, t.stride())


def describe(t, name, function, output=False):
    """The halnorm_tensor of a numpy array or torch tensor (not None).
    `name` is the C argument name the errors use; `output`: written to."""
    if type(t) in _TORCH_TYPES:
        # The common case inline (it is most of a small call's Python time):
        # a dense CPU tensor of a supported dtype and rank. Anything else
        # takes the checked path, which says what is wrong.
        dtype = _torch_dtypes.get(t.dtype)
        if dtype is not None and t.is_cpu:
            shape = t.shape
            rank = len(shape)
            if rank <= 4:
                pad = _ZEROS[rank]
                try:
                    return _from_bytes(_pack(t.data_ptr(), dtype, _CPU, rank, *shape, *pad,
                                             *t.stride(), *pad))
                except RuntimeError:  # no strides or storage (sparse, mkldnn)
                    pass
        return _describe_torch(t, name, function)
    if type(t) is np.ndarray:
        return _describe_numpy(t, name, function, output)
    if is_torch(t):
        return _describe_torch(t, name, function)
    if isinstance(t, np.ndarray):  # subclasses (np.memmap, ...)
        return _describe_numpy(t, name, function, output)
    raise TypeError(f"{function}: {name}: expected a numpy.ndarray or torch.Tensor, "
                    f"got {type(t).__name__}")


def cuda_stream(t):
    """The current CUDA stream of a torch CUDA tensor's device, as a pointer
    value (what opt->cuda_stream takes); None for anything else."""
    if is_torch(t) and t.is_cuda:
        return _torch().cuda.current_stream(t.device).cuda_stream or None
    return None


def empty_like(t):
    """An uninitialized output with t's shape, dtype, device and, where t is
    dense, its memory layout (a permuted view gets the same permutation), so
    the C API folds both the same way."""
    if type(t) in _TORCH_TYPES or is_torch(t):
        return _torch().empty_like(t)
    return np.empty_like(t)


def _dense_from(shape, strides, first):
    """Whether dims first.. are one dense block (size-1 dims ignored, as the
    C API ignores them)."""
    expected = 1
    for d in range(len(shape) - 1, first - 1, -1):
        if shape[d] != 1 and strides[d] != expected:
            return False
        expected *= shape[d]
    return True


def empty_rows_like(t, normalized_rank):
    """empty_like(t), except that the trailing normalized_rank dims are
    always contiguous, as the row kernels need: where t's are not, the C API
    then refuses t by name instead of this output laid out like it. (Where
    t's are, empty_like keeps them so: it copies t's strides if t is dense,
    else it allocates contiguously.)"""
    first = max(t.ndim - normalized_rank, 0)
    if type(t) in _TORCH_TYPES or is_torch(t):
        strides = t.stride()
        if (normalized_rank == 1 and strides and strides[-1] == 1) or _dense_from(
                t.shape, strides, first):
            return _torch().empty_like(t)
        return _torch().empty(t.shape, dtype=t.dtype, device=t.device)
    itemsize = t.itemsize
    if _dense_from(t.shape, [s // itemsize for s in t.strides], first):
        return np.empty_like(t)
    return np.empty(t.shape, t.dtype)


def empty(like, shape, dtype=Dtype.F32):
    """An uninitialized contiguous output of `shape` in `like`'s library and
    on its device (statistics, parameter gradients)."""
    if is_torch(like):
        torch = _torch()
        torch_dtype = (torch.float32, torch.float16, torch.bfloat16)[dtype]
        return torch.empty(shape, dtype=torch_dtype, device=like.device)
    return np.empty(shape, _NUMPY_OF[dtype])


def empty_param_like(param, like, shape):
    """A per-feature gradient: param's dtype and library if there is a
    param, else f32 in `like`'s."""
    if param is None:
        return empty(like, shape)
    if is_torch(param):
        return _torch().empty(param.shape, dtype=param.dtype, device=param.device)
    return np.empty(param.shape, param.dtype)
