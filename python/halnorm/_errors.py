"""Exceptions for calls the C API refuses.

Every halnorm_* call returns 0 or a halnorm_status code, and
halnorm_last_error() names the argument at fault. HalnormError carries both;
the subclasses also derive from the built-in exception a Python caller would
catch for that kind of failure (ValueError for a bad argument, ...).
"""

# halnorm_status in runtime/halnorm_c.h.
STATUS_NAMES = {
    0: "HALNORM_OK",
    1: "HALNORM_ERROR_INVALID_ARGUMENT",
    2: "HALNORM_ERROR_UNIMPLEMENTED",
    3: "HALNORM_ERROR_UNSUPPORTED",
    4: "HALNORM_ERROR_KERNEL",
}


class HalnormError(RuntimeError):
    """A halnorm call failed: `status` (code), `status_name`, `message`
    (halnorm_last_error(), naming the argument) and `function` (the C entry
    point)."""

    def __init__(self, status, message, function):
        self.status = status
        self.status_name = STATUS_NAMES.get(status, f"halnorm status {status}")
        self.message = message
        self.function = function
        super().__init__(f"{function}: {self.status_name}: {message}")


class InvalidArgumentError(HalnormError, ValueError):
    """HALNORM_ERROR_INVALID_ARGUMENT: bad tensor, shape, dtype or option."""


class UnimplementedError(HalnormError, NotImplementedError):
    """HALNORM_ERROR_UNIMPLEMENTED: an op or option this build lacks."""


class UnsupportedError(HalnormError):
    """HALNORM_ERROR_UNSUPPORTED: a device or dtype this build or machine lacks
    (e.g. a CUDA tensor where no GPU or driver is present)."""


class KernelError(HalnormError):
    """HALNORM_ERROR_KERNEL: the kernel itself failed (e.g. out of memory)."""


_CLASSES = {1: InvalidArgumentError, 2: UnimplementedError, 3: UnsupportedError, 4: KernelError}


def error_for(status, message, function):
    """The exception for a nonzero status (HalnormError for unknown codes)."""
    return _CLASSES.get(status, HalnormError)(status, message, function)


def invalid_argument(message, function):
    """What Python raises for an argument it cannot describe to the C API
    (an unsupported dtype, rank > 4), worded like the C API's own messages."""
    return InvalidArgumentError(1, message, function)
