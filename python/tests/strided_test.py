"""Strided inputs and outputs reach the C API as views, without copies: the
results match the same values made contiguous."""

import numpy as np
import torch

import halnorm
from support import (DTYPES, PARAM_TOL, TestCase, as_f64, autograd_layer_norm, main, random,
                     ref_layer_norm, ref_rms_norm)


class TorchStridedTest(TestCase):

    def test_qk_norm_over_a_transposed_view(self):
        # [B,T,H,D] buffer seen as [B,H,T,D]: RMSNorm over head_dim, in place.
        for dtype in DTYPES:
            with self.subTest(dtype=dtype):
                buffer = random((2, 5, 3, 64), dtype, seed=1)
                x = buffer.transpose(1, 2)
                self.assertFalse(x.is_contiguous())
                w = random((64,), dtype, offset=1.0, seed=2)
                out = halnorm.rms_norm_forward(x, w)
                self.assertEqual(tuple(out.y.shape), (2, 3, 5, 64))
                # y is allocated with x's layout (empty_like), so it folds like x.
                self.assertEqual(out.y.stride(), x.stride())
                ref_y, ref_rstd = ref_rms_norm(x, w)
                self.assertClose(out.y, ref_y, what="y")
                self.assertClose(out.rstd, ref_rstd, 1e-5, "rstd")
                y = halnorm.layer_norm(x, w)
                self.assertClose(y, ref_layer_norm(x, w)[0], what="layer norm y")

    def test_transposed_view_backward(self):
        buffer = random((2, 4, 3, 32), seed=3)
        x = buffer.transpose(1, 2)
        dy = random((2, 4, 3, 32), seed=4).transpose(1, 2)
        w = random((32,), seed=5)
        fwd = halnorm.layer_norm_forward(x, w)
        grads = halnorm.layer_norm_backward(dy, x, fwd.mean, fwd.rstd, w)
        ref_dx, ref_dw, ref_db = autograd_layer_norm(x, w, torch.zeros(32), dy)
        self.assertClose(grads.dx, ref_dx, what="dx")
        self.assertClose(grads.dweight, ref_dw, PARAM_TOL[torch.float32], "dweight")
        self.assertClose(grads.dbias, ref_db, PARAM_TOL[torch.float32], "dbias")

    def test_every_other_row(self):
        for dtype in DTYPES:
            with self.subTest(dtype=dtype):
                base = random((10, 48), dtype, offset=2.0, seed=6)
                x = base[::2]
                self.assertEqual(x.stride(), (96, 1))
                w, b = random((48,), dtype, seed=7), random((48,), dtype, seed=8)
                self.assertClose(halnorm.layer_norm(x, w, b), ref_layer_norm(x, w, b)[0],
                                 what="y")

    def test_padded_rows_and_strided_outputs(self):
        # Rows of 40 inside rows of 64 (e.g. a slice of a wider buffer), written
        # into a strided output slice; the padding must stay untouched.
        x = random((6, 64), seed=9)[:, :40]
        r = random((6, 64), seed=10)[:, 8:48]
        y_buffer = torch.full((6, 50), -7.0)
        h_buffer = torch.full((12, 40), -7.0)
        y, h = halnorm.add_layer_norm(x, r, out=y_buffer[:, 5:45],
                                      residual_out=h_buffer[1::2])
        self.assertClose(h, as_f64(x) + as_f64(r), what="h")
        self.assertClose(y, ref_layer_norm(h)[0], what="y")
        self.assertTrue(bool((y_buffer[:, :5] == -7).all() and (y_buffer[:, 45:] == -7).all()))
        self.assertTrue(bool((h_buffer[0::2] == -7).all()))

    def test_broadcast_input_rows(self):
        # A leading stride of 0 is a valid input (the same row 4 times).
        row = random((1, 24), seed=11)
        x = row.expand(4, 24)
        self.assertEqual(x.stride(), (0, 1))
        y = halnorm.layer_norm(x)
        self.assertClose(y, ref_layer_norm(x)[0], what="y")


class NumpyStridedTest(TestCase):

    def test_transposed_and_sliced_views(self):
        rng = np.random.default_rng(12)
        buffer = rng.standard_normal((2, 6, 4, 32)).astype(np.float32)
        x = buffer.transpose(0, 2, 1, 3)  # [B,H,T,D] view of [B,T,H,D]
        self.assertFalse(x.flags.c_contiguous)
        out = halnorm.layer_norm_forward(x)
        self.assertClose(out.y, ref_layer_norm(x)[0], what="y")
        self.assertEqual(out.mean.shape, (2, 4, 6))
        half = rng.standard_normal((9, 70)).astype(np.float16)[1::3]
        self.assertClose(halnorm.rms_norm(half), ref_rms_norm(half)[0], what="rms y")

    def test_out_view(self):
        rng = np.random.default_rng(13)
        x = rng.standard_normal((4, 16)).astype(np.float32)
        buffer = np.zeros((4, 32), np.float32)
        y = halnorm.layer_norm(x, out=buffer[:, 16:])
        self.assertTrue(np.shares_memory(y, buffer))
        self.assertClose(buffer[:, 16:], ref_layer_norm(x)[0], what="y")
        self.assertTrue((buffer[:, :16] == 0).all())


if __name__ == "__main__":
    main()
