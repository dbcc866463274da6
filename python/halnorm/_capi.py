"""The C ABI of runtime/halnorm_c.h, mirrored with ctypes.

The structs match the header field for field (order, types, padding); the
prototypes give ctypes every argument type, so a wrong call fails in Python
instead of passing garbage. The library is loaded at the first call (see
_library.py for where it is searched).
"""

import ctypes
import enum
import os
import struct
import threading

from . import _errors, _library

c_tensor_dims = ctypes.c_int64 * 4


class halnorm_tensor(ctypes.Structure):  # noqa: N801 (the C name)
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("dtype", ctypes.c_int),    # halnorm_dtype
        ("device", ctypes.c_int),   # halnorm_device
        ("rank", ctypes.c_int32),   # 1..4
        ("shape", c_tensor_dims),
        ("strides", c_tensor_dims),  # elements
    ]


class halnorm_norm_options(ctypes.Structure):  # noqa: N801 (the C name)
    _fields_ = [
        ("eps", ctypes.c_float),
        ("normalized_rank", ctypes.c_int32),
        ("weight_offset", ctypes.c_float),
        ("residual", ctypes.POINTER(halnorm_tensor)),
        ("residual_alpha", ctypes.c_float),
        ("residual_out", ctypes.POINTER(halnorm_tensor)),
        ("cuda_stream", ctypes.c_void_p),
    ]


class Dtype(enum.IntEnum):
    """halnorm_dtype."""
    F32 = 0
    F16 = 1
    BF16 = 2


class Device(enum.IntEnum):
    """halnorm_device."""
    CPU = 0
    CUDA = 1


class Axes(enum.IntEnum):
    """halnorm_axes: what LayerNorm2d normalizes over, per sample of NCHW x."""
    C = 0    # per pixel over C (ConvNeXt, SAM, timm LayerNorm2d)
    CHW = 1  # over C,H,W (GroupNorm(1))
    HW = 2   # over H,W per channel


# halnorm_tensor packed in one struct.pack call: ~4x cheaper than setting
# the ctypes fields one by one, which matters at decode shapes where a call
# is a few microseconds. Checked against the ctypes layout below.
_TENSOR_LAYOUT = struct.Struct("@Piii4q4q")
_ZEROS = ((0, 0, 0, 0), (0, 0, 0), (0, 0), (0,), ())


def make_tensor(data, dtype, device, shape, strides):
    """A halnorm_tensor; `shape` and `strides` have the same length, 0..4."""
    pad = _ZEROS[len(shape)]
    return halnorm_tensor.from_buffer_copy(
        _TENSOR_LAYOUT.pack(data or 0, dtype, device, len(shape), *shape, *pad, *strides, *pad))


def _check_tensor_layout():
    if _TENSOR_LAYOUT.size != ctypes.sizeof(halnorm_tensor):
        raise ImportError(f"halnorm: halnorm_tensor packs to {_TENSOR_LAYOUT.size} bytes, "
                          f"ctypes says {ctypes.sizeof(halnorm_tensor)}")
    t = make_tensor(0x1234, 2, 1, (5, 6, 7), (42, 7, 1))
    got = (t.data, t.dtype, t.device, t.rank, tuple(t.shape), tuple(t.strides))
    want = (0x1234, 2, 1, 3, (5, 6, 7, 0), (42, 7, 1, 0))
    if got != want:
        raise ImportError(f"halnorm: halnorm_tensor packing mismatch: {got} != {want}")


_check_tensor_layout()

_T = ctypes.POINTER(halnorm_tensor)
_OPT = ctypes.POINTER(halnorm_norm_options)
_INT, _FLOAT = ctypes.c_int, ctypes.c_float

# name: (restype, argtypes), as declared in runtime/halnorm_c.h.
_PROTOTYPES = {
    "halnorm_norm_options_init": (None, [_OPT]),
    "halnorm_layer_norm_forward": (_INT, [_T, _T, _T, _OPT, _T, _T, _T]),
    "halnorm_layer_norm_backward": (_INT, [_T, _T, _T, _T, _T, _OPT, _T, _T, _T]),
    "halnorm_rms_norm_forward": (_INT, [_T, _T, _OPT, _T, _T]),
    "halnorm_rms_norm_backward": (_INT, [_T, _T, _T, _T, _OPT, _T, _T]),
    "halnorm_layer_norm2d_forward": (_INT, [_T, _T, _T, _INT, _FLOAT, _T, _T, _T]),
    "halnorm_layer_norm2d_backward": (_INT, [_T, _T, _T, _T, _T, _INT, _T, _T, _T]),
    "halnorm_last_error": (ctypes.c_char_p, []),
    "halnorm_set_num_threads": (None, [_INT]),
    "halnorm_load_tuning_file": (_INT, [ctypes.c_char_p]),
    "halnorm_tuning_source": (ctypes.c_char_p, []),
}


def _shortest_float32(value):
    """The shortest decimal that rounds to the same float32 as `value`."""
    bits = struct.pack("f", value)
    for digits in range(1, 10):
        shortest = float(f"{value:.{digits}g}")
        if struct.pack("f", shortest) == bits:
            return shortest
    return value


class CApi:
    """The loaded library: one attribute per C function, plus the defaults
    halnorm_norm_options_init fills in."""

    def __init__(self, cdll, path):
        self.path = path
        for name, (restype, argtypes) in _PROTOTYPES.items():
            try:
                function = getattr(cdll, name)
            except AttributeError as error:
                raise _library.LibraryNotFoundError(
                    f"halnorm: {path} does not export {name} (an older or foreign build?)"
                ) from error
            function.restype = restype
            function.argtypes = argtypes
            setattr(self, name, function)
        self.default_options = halnorm_norm_options()
        self.halnorm_norm_options_init(ctypes.byref(self.default_options))
        self._defaults = {name: _shortest_float32(getattr(self.default_options, name))
                          for name in ("eps", "weight_offset", "residual_alpha")}

    def default(self, field):
        """A float default of halnorm_norm_options_init (eps, weight_offset,
        residual_alpha) as its shortest decimal: 1e-05, not 9.99999974738e-06."""
        return self._defaults[field]

    def raise_error(self, status, function):
        """Raises the HalnormError for a nonzero status with this thread's
        halnorm_last_error() (ctypes calls run on the calling thread)."""
        message = self.halnorm_last_error()
        raise _errors.error_for(status, message.decode("utf-8", "replace") if message else "",
                                function)

    def check(self, status, function):
        if status:
            self.raise_error(status, function)


_api = None
_api_lock = threading.Lock()


def api():
    """The library, loaded on first use."""
    return _api or load()


def load(path=None):
    """Loads libhalnorm.so (from `path`, or the search in _library.py) unless
    already loaded; returns the CApi. Loading another path later is refused:
    two copies would have separate thread pools and tuning tables."""
    global _api
    with _api_lock:
        if _api is not None:
            if path is not None and os.path.realpath(path) != os.path.realpath(_api.path):
                raise RuntimeError(f"halnorm: {_api.path} is already loaded; cannot load {path}")
            return _api
        cdll, found = _library.load(path)
        _api = CApi(cdll, found)
        return _api
