"""LayerNorm2d over C, C*H*W and H*W, NCHW and channels-last, forward and
backward, against float64 torch (layer_norm per pixel, group_norm(1),
instance_norm)."""

import numpy as np
import torch
import torch.nn.functional as F

import halnorm
from support import DTYPES, EPS, PARAM_TOL, TestCase, as_f64, main, random


def reference(x, w, b, axes):
    """float64 (y, mean, rstd); autograd-ready (x, w, b may require grad)."""
    n, c, h, wd = x.shape
    dims = {"C": (1,), "CHW": (1, 2, 3), "HW": (2, 3)}[axes]
    mean = x.mean(dim=dims, keepdim=True)
    rstd = torch.rsqrt(((x - mean) ** 2).mean(dim=dims, keepdim=True) + EPS)
    if axes == "C":
        y = F.layer_norm(x.permute(0, 2, 3, 1), (c,), w, b, EPS).permute(0, 3, 1, 2)
    elif axes == "CHW":
        y = F.group_norm(x, 1, w, b, EPS)
    else:
        y = F.instance_norm(x, weight=w, bias=b, eps=EPS)
    stats = {"C": (n, h, wd), "CHW": (n,), "HW": (n, c)}[axes]
    return y, mean.reshape(stats), rstd.reshape(stats)


def layouts(x, axes):
    """x as NCHW, a batch-strided NCHW view, and channels-last (not for HW)."""
    yield "nchw", x
    buffer = torch.full((2 * x.shape[0],) + tuple(x.shape[1:]), float("nan"), dtype=x.dtype)
    buffer[::2] = x
    yield "batch-strided", buffer[::2]
    if axes != "HW":
        yield "channels_last", x.contiguous(memory_format=torch.channels_last)


class LayerNorm2dTest(TestCase):

    def test_forward_and_backward(self):
        for dtype in DTYPES:
            for axes in ("C", "CHW", "HW"):
                for shape in [(2, 3, 4, 5), (1, 16, 7, 9), (3, 1, 2, 2)]:
                    x0 = random(shape, dtype, offset=0.5, scale=2.0, seed=1)
                    w = random(shape[1:2], torch.float32, offset=1.0, seed=2)
                    b = random(shape[1:2], dtype, seed=3)
                    dy0 = random(shape, dtype, seed=4)
                    x64 = as_f64(x0).requires_grad_()
                    w64, b64 = as_f64(w).requires_grad_(), as_f64(b).requires_grad_()
                    ref_y, ref_mean, ref_rstd = reference(x64, w64, b64, axes)
                    ref_y.backward(as_f64(dy0))
                    for layout, x in layouts(x0, axes):
                        with self.subTest(dtype=dtype, axes=axes, shape=shape, layout=layout):
                            out = halnorm.layer_norm2d_forward(x, w, b, axes=axes)
                            self.assertEqual(out.y.dtype, dtype)
                            self.assertClose(out.y, ref_y.detach(), what="y")
                            self.assertClose(out.mean, ref_mean.detach(), 1e-5, "mean")
                            self.assertClose(out.rstd, ref_rstd.detach(), 1e-5, "rstd")
                            dy = dy0.contiguous(memory_format=torch.channels_last) \
                                if layout == "channels_last" else dy0
                            grads = halnorm.layer_norm2d_backward(dy, x, out.mean, out.rstd, w,
                                                                  axes=axes,
                                                                  compute_dbias=True)
                            self.assertClose(grads.dx, x64.grad, what="dx")
                            self.assertEqual(grads.dweight.dtype, torch.float32)
                            self.assertClose(grads.dweight, w64.grad, PARAM_TOL[torch.float32],
                                             "dweight")
                            self.assertClose(grads.dbias, b64.grad, PARAM_TOL[torch.float32],
                                             "dbias")

    def test_no_affine_and_enum_axes(self):
        x = random((2, 4, 3, 3), seed=5)
        y = halnorm.layer_norm2d(x, axes=halnorm.Axes.CHW)
        self.assertClose(y, F.group_norm(as_f64(x), 1, eps=EPS), what="y")
        self.assertIsNone(halnorm.layer_norm2d_forward(x, stats=False).mean)

    def test_numpy(self):
        rng = np.random.default_rng(6)
        for dtype in (np.float32, np.float16):
            with self.subTest(dtype=dtype):
                x = rng.standard_normal((2, 8, 5, 6)).astype(dtype)
                w = rng.standard_normal(8).astype(dtype)
                b = rng.standard_normal(8).astype(dtype)
                out = halnorm.layer_norm2d_forward(x, w, b, axes="c")
                self.assertIsInstance(out.y, np.ndarray)
                self.assertEqual(out.mean.shape, (2, 5, 6))
                ref_y, _, _ = reference(as_f64(x), as_f64(w), as_f64(b), "C")
                self.assertClose(out.y, ref_y, what="y")
                dy = rng.standard_normal(x.shape).astype(dtype)
                grads = halnorm.layer_norm2d_backward(dy, x, out.mean, out.rstd, w)
                self.assertIsInstance(grads.dx, np.ndarray)
                self.assertEqual(grads.dweight.dtype, dtype)

    def test_channels_last_over_hw_is_refused(self):
        x = random((2, 3, 4, 4)).contiguous(memory_format=torch.channels_last)
        self.assertRaisesHalnorm(halnorm.InvalidArgumentError, "HALNORM_ERROR_INVALID_ARGUMENT",
                                 "channels-last is not supported",
                                 lambda: halnorm.layer_norm2d(x, axes="HW"))

    def test_wrong_rank_and_axes(self):
        self.assertRaisesHalnorm(halnorm.InvalidArgumentError, "HALNORM_ERROR_INVALID_ARGUMENT",
                                 "x: rank must be 4 (NCHW), got 3",
                                 lambda: halnorm.layer_norm2d(random((3, 4, 4))))
        self.assertRaisesHalnorm(halnorm.InvalidArgumentError, "HALNORM_ERROR_INVALID_ARGUMENT",
                                 "axes: unknown value 7",
                                 lambda: halnorm.layer_norm2d(random((1, 2, 2, 2)), axes=7))
        self.assertRaisesHalnorm(halnorm.InvalidArgumentError, "HALNORM_ERROR_INVALID_ARGUMENT",
                                 "axes: unknown value 'W'",
                                 lambda: halnorm.layer_norm2d(random((1, 2, 2, 2)), axes="W"))

    def test_backward_needs_statistics_of_the_right_shape(self):
        x = random((2, 3, 4, 4))
        out = halnorm.layer_norm2d_forward(x, axes="C")
        self.assertRaisesHalnorm(
            halnorm.InvalidArgumentError, "HALNORM_ERROR_INVALID_ARGUMENT",
            "mean: shape [2, 4, 4] must be [2, 3]",
            lambda: halnorm.layer_norm2d_backward(x, x, out.mean, out.rstd, axes="HW"))


if __name__ == "__main__":
    main()
