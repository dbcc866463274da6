"""Shared test helpers: float64 references (torch) and one tolerance policy.

Errors are measured like the C API's accuracy contract: |got - ref| /
(|ref| + 1), against a float64 reference computed on exactly the values the
kernel saw (16-bit inputs are generated in their dtype, then upcast). The
tolerances are about two units of the output dtype's rounding, so a wrong
formula, stride or option shows up as an O(1) error, far above them.
"""

import unittest

import numpy as np
import torch
import torch.nn.functional as F

import halnorm

# Per output dtype: f32 1e-5 (the library's contract), f16 2^-10, bf16 2^-7.
TOLERANCE = {torch.float32: 1e-5, torch.float16: 1e-3, torch.bfloat16: 8e-3,
             np.dtype(np.float32): 1e-5, np.dtype(np.float16): 1e-3}
DTYPES = (torch.float32, torch.float16, torch.bfloat16)
EPS = 1e-5


def as_f64(t):
    if isinstance(t, np.ndarray):
        return torch.from_numpy(t.astype(np.float64))
    return t.detach().to(torch.float64)


def tolerance(t):
    return TOLERANCE[t.dtype]


def random(shape, dtype=torch.float32, offset=0.0, scale=1.0, seed=0):
    """Normal values (times scale, plus offset) rounded to `dtype`."""
    generator = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=generator, dtype=torch.float64) * scale + offset).to(dtype)


def ref_layer_norm(x, weight=None, bias=None, eps=EPS, normalized_rank=1, weight_offset=0.0):
    """(y, mean, rstd) in float64; mean/rstd shaped like the leading dims."""
    x = as_f64(x)
    dims = tuple(range(x.dim() - normalized_rank, x.dim()))
    mean = x.mean(dim=dims, keepdim=True)
    rstd = torch.rsqrt(((x - mean) ** 2).mean(dim=dims, keepdim=True) + eps)
    y = F.layer_norm(x, x.shape[x.dim() - normalized_rank:],
                     None if weight is None else as_f64(weight) + weight_offset,
                     None if bias is None else as_f64(bias), eps)
    lead = x.shape[:x.dim() - normalized_rank] or (1,)
    return y, mean.reshape(lead), rstd.reshape(lead)


def ref_rms_norm(x, weight=None, eps=EPS, normalized_rank=1, weight_offset=0.0):
    """(y, rstd) in float64."""
    x = as_f64(x)
    dims = tuple(range(x.dim() - normalized_rank, x.dim()))
    rstd = torch.rsqrt((x * x).mean(dim=dims, keepdim=True) + eps)
    y = x * rstd
    if weight is not None:
        y = y * (as_f64(weight) + weight_offset)
    lead = x.shape[:x.dim() - normalized_rank] or (1,)
    return y, rstd.reshape(lead)


def autograd_layer_norm(x, w, b, dy, normalized_rank=1, weight_offset=0.0, rms=False):
    """float64 (dx, dweight, dbias) of LayerNorm (or RMSNorm) by autograd."""
    x64 = as_f64(x).requires_grad_()
    w64 = None if w is None else as_f64(w).requires_grad_()
    b64 = None if b is None else as_f64(b).requires_grad_()
    dims = tuple(range(x64.dim() - normalized_rank, x64.dim()))
    if rms:
        y = x64 * torch.rsqrt((x64 * x64).mean(dim=dims, keepdim=True) + EPS)
        if w64 is not None:
            y = y * (w64 + weight_offset)
    else:
        y = F.layer_norm(x64, x64.shape[x64.dim() - normalized_rank:],
                         None if w64 is None else w64 + weight_offset, b64, EPS)
    y.backward(as_f64(dy))
    return (x64.grad, None if w64 is None else w64.grad, None if b64 is None else b64.grad)


# Parameter gradients sum over rows; their error grows with the row count.
PARAM_TOL = {torch.float32: 2e-5, torch.float16: 2e-3, torch.bfloat16: 1e-2}


class TestCase(unittest.TestCase):

    def assertClose(self, got, ref, tol=None, what=""):
        """Every element within tol * (|ref| + 1); tol defaults to got's dtype's."""
        tol = tolerance(got) if tol is None else tol
        self.assertEqual(tuple(got.shape), tuple(ref.shape), f"{what}: shape")
        got64, ref64 = as_f64(got), as_f64(ref)
        if got64.numel() == 0:
            return
        err = (got64 - ref64).abs() / (ref64.abs() + 1)
        worst = int(torch.nan_to_num(err, nan=float("inf")).argmax())
        index = np.unravel_index(worst, tuple(err.shape))
        self.assertLessEqual(
            float(err.flatten()[worst]), tol,
            f"{what}: at {tuple(int(i) for i in index)} got {float(got64[index])}, "
            f"want {float(ref64[index])} (tolerance {tol} relative to |ref| + 1)")

    def assertRaisesHalnorm(self, error_class, status_name, message_part, call):
        """call() raises error_class whose message (halnorm_last_error()'s)
        contains message_part and whose status is status_name."""
        with self.assertRaises(error_class) as caught:
            call()
        error = caught.exception
        self.assertEqual(error.status_name, status_name, str(error))
        self.assertIn(message_part, error.message)
        self.assertIn(message_part, str(error))
        self.assertIn(status_name, str(error))
        return error


def main():
    halnorm.set_num_threads(2)
    unittest.main()
