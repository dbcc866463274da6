"""Forward LayerNorm/RMSNorm on torch tensors and numpy arrays against
torch.nn.functional.layer_norm and a float64 RMSNorm, with every option."""

import numpy as np
import torch
import torch.nn.functional as F

import halnorm
from support import DTYPES, EPS, TestCase, as_f64, main, random, ref_layer_norm, ref_rms_norm

SHAPES = [(1, 1), (3, 7), (16, 768), (2, 5, 129)]


class LayerNormForwardTest(TestCase):

    def test_matches_torch_layer_norm(self):
        for dtype in DTYPES:
            for shape in SHAPES:
                for affine in (False, True):
                    with self.subTest(dtype=dtype, shape=shape, affine=affine):
                        x = random(shape, dtype, offset=3.0, scale=2.0, seed=1)
                        w = random(shape[-1:], dtype, offset=1.0, seed=2) if affine else None
                        b = random(shape[-1:], dtype, seed=3) if affine else None
                        y = halnorm.layer_norm(x, w, b)
                        self.assertIsInstance(y, torch.Tensor)
                        self.assertEqual(y.dtype, dtype)
                        ref = F.layer_norm(as_f64(x), shape[-1:],
                                           None if w is None else as_f64(w),
                                           None if b is None else as_f64(b), EPS)
                        self.assertClose(y, ref, what="y")

    def test_statistics_and_f32_parameters_with_16_bit_activations(self):
        for dtype in DTYPES:
            with self.subTest(dtype=dtype):
                x = random((6, 300), dtype, offset=-2.0, seed=4)
                w, b = random((300,), seed=5), random((300,), seed=6)
                out = halnorm.layer_norm_forward(x, w, b, eps=1e-3)
                ref_y, ref_mean, ref_rstd = ref_layer_norm(x, w, b, eps=1e-3)
                self.assertClose(out.y, ref_y, what="y")
                self.assertEqual(out.mean.dtype, torch.float32)
                self.assertClose(out.mean, ref_mean, 1e-5, "mean")
                self.assertClose(out.rstd, ref_rstd, 1e-5, "rstd")
                self.assertIsNone(out.residual_out)

    def test_large_offset_rows_stay_accurate(self):
        # Mean 1e4 times the standard deviation: E[x^2]-mean^2 would lose it.
        x = random((8, 1024), offset=1e4, seed=7)
        self.assertClose(halnorm.layer_norm(x), ref_layer_norm(x)[0], what="y")

    def test_normalized_rank_two_and_weight_rank_default(self):
        x = random((4, 6, 10), seed=8)
        w, b = random((6, 10), seed=9), random((6, 10), seed=10)
        out = halnorm.layer_norm_forward(x, w, b)  # normalized_rank: weight.ndim
        ref_y, ref_mean, _ = ref_layer_norm(x, w, b, normalized_rank=2)
        self.assertClose(out.y, ref_y, what="y")
        self.assertEqual(tuple(out.mean.shape), (4,))
        self.assertClose(out.mean, ref_mean, what="mean")
        y = halnorm.layer_norm(x, normalized_rank=3)
        self.assertClose(y, ref_layer_norm(x, normalized_rank=3)[0], what="y rank 3")

    def test_one_dimensional_input_has_one_statistic(self):
        x = random((33,), seed=11)
        out = halnorm.layer_norm_forward(x)
        self.assertEqual(tuple(out.rstd.shape), (1,))
        self.assertClose(out.y, ref_layer_norm(x)[0], what="y")

    def test_weight_offset(self):
        for dtype in DTYPES:
            with self.subTest(dtype=dtype):
                x, w = random((5, 64), dtype, seed=12), random((64,), dtype, scale=0.1, seed=13)
                y = halnorm.layer_norm(x, w, weight_offset=1.0)
                self.assertClose(y, ref_layer_norm(x, w, weight_offset=1.0)[0], what="y")
                # Without a weight the offset does nothing.
                self.assertClose(halnorm.layer_norm(x, weight_offset=1.0), ref_layer_norm(x)[0],
                                 what="y, no weight")

    def test_residual_fusion(self):
        for dtype in DTYPES:
            for alpha in (None, 2.5):
                with self.subTest(dtype=dtype, alpha=alpha):
                    x, r = random((7, 200), dtype, seed=14), random((7, 200), dtype, seed=15)
                    w, b = random((200,), dtype, seed=16), random((200,), dtype, seed=17)
                    y, h = halnorm.add_layer_norm(x, r, w, b, residual_alpha=alpha)
                    ref_h = (1.0 if alpha is None else alpha) * as_f64(x) + as_f64(r)
                    self.assertEqual(h.dtype, dtype)
                    self.assertClose(h, ref_h, what="h")
                    # The norm is of the stored h, so the backward pass sees it exactly.
                    self.assertClose(y, ref_layer_norm(h, w, b)[0], what="y")

    def test_preallocated_outputs_are_filled_and_returned(self):
        x = random((4, 96), seed=18)
        r = random((4, 96), seed=19)
        y = torch.full_like(x, float("nan"))
        h = torch.full_like(x, float("nan"))
        mean = torch.full((4,), float("nan"))
        rstd = torch.full((4,), float("nan"))
        out = halnorm.layer_norm_forward(x, residual=r, out=y, residual_out=h, mean_out=mean,
                                         rstd_out=rstd)
        self.assertIs(out.y, y)
        self.assertIs(out.residual_out, h)
        self.assertIs(out.mean, mean)
        self.assertIs(out.rstd, rstd)
        ref_y, ref_mean, ref_rstd = ref_layer_norm(x + r)
        self.assertClose(y, ref_y, what="y")
        self.assertClose(mean, ref_mean, what="mean")
        self.assertClose(rstd, ref_rstd, what="rstd")
        self.assertIs(halnorm.layer_norm(x, out=y), y)

    def test_stats_false_keeps_none(self):
        out = halnorm.layer_norm_forward(random((2, 8)), stats=False)
        self.assertIsNone(out.mean)
        self.assertIsNone(out.rstd)

    def test_zero_rows(self):
        x = torch.empty(0, 16)
        out = halnorm.layer_norm_forward(x)
        self.assertEqual(tuple(out.y.shape), (0, 16))
        self.assertEqual(tuple(out.mean.shape), (0,))


class RmsNormForwardTest(TestCase):

    def test_matches_float64_reference(self):
        for dtype in DTYPES:
            for shape in SHAPES:
                for affine in (False, True):
                    with self.subTest(dtype=dtype, shape=shape, affine=affine):
                        x = random(shape, dtype, offset=0.5, seed=20)
                        w = random(shape[-1:], dtype, offset=1.0, seed=21) if affine else None
                        out = halnorm.rms_norm_forward(x, w, eps=1e-6)
                        ref_y, ref_rstd = ref_rms_norm(x, w, eps=1e-6)
                        self.assertEqual(out.y.dtype, dtype)
                        self.assertClose(out.y, ref_y, what="y")
                        self.assertClose(out.rstd, ref_rstd, 1e-5, "rstd")
                        self.assertClose(halnorm.rms_norm(x, w, 1e-6), ref_y, what="rms_norm")

    def test_gemma_weight_offset_and_residual(self):
        for dtype in DTYPES:
            with self.subTest(dtype=dtype):
                x, r = random((9, 256), dtype, seed=22), random((9, 256), dtype, seed=23)
                w = random((256,), torch.float32, scale=0.2, seed=24)
                y, h = halnorm.add_rms_norm(x, r, w, residual_alpha=0.5, weight_offset=1.0)
                self.assertClose(h, 0.5 * as_f64(x) + as_f64(r), what="h")
                self.assertClose(y, ref_rms_norm(h, w, weight_offset=1.0)[0], what="y")


class NumpyForwardTest(TestCase):

    def test_numpy_in_numpy_out(self):
        for dtype in (np.float32, np.float16):
            with self.subTest(dtype=dtype):
                rng = np.random.default_rng(25)
                x = (rng.standard_normal((12, 384)) * 3 + 1).astype(dtype)
                w = rng.standard_normal(384).astype(dtype)
                b = rng.standard_normal(384).astype(np.float32)
                out = halnorm.layer_norm_forward(x, w, b)
                self.assertIsInstance(out.y, np.ndarray)
                self.assertEqual(out.y.dtype, dtype)
                self.assertIsInstance(out.mean, np.ndarray)
                self.assertEqual(out.mean.dtype, np.float32)
                ref_y, ref_mean, ref_rstd = ref_layer_norm(x, w, b)
                self.assertClose(out.y, ref_y, what="y")
                self.assertClose(out.mean, ref_mean, 1e-5, "mean")
                self.assertClose(out.rstd, ref_rstd, 1e-5, "rstd")
                y = halnorm.rms_norm(x, w)
                self.assertIsInstance(y, np.ndarray)
                self.assertClose(y, ref_rms_norm(x, w)[0], what="rms y")

    def test_outputs_follow_x_when_libraries_mix(self):
        x = random((3, 16), seed=27)
        w = np.linspace(0.5, 1.5, 16, dtype=np.float32)
        y = halnorm.layer_norm(x, w)
        self.assertIsInstance(y, torch.Tensor)
        self.assertClose(y, ref_layer_norm(x, w)[0], what="torch x, numpy weight")
        y = halnorm.layer_norm(x.numpy(), torch.from_numpy(w))
        self.assertIsInstance(y, np.ndarray)
        self.assertClose(y, ref_layer_norm(x, w)[0], what="numpy x, torch weight")

    def test_numpy_residual_and_out(self):
        rng = np.random.default_rng(26)
        x = rng.standard_normal((3, 50)).astype(np.float32)
        r = rng.standard_normal((3, 50)).astype(np.float32)
        y = np.empty_like(x)
        h = np.empty_like(x)
        got_y, got_h = halnorm.add_rms_norm(x, r, out=y, residual_out=h)
        self.assertIs(got_y, y)
        self.assertIs(got_h, h)
        self.assertClose(h, as_f64(x) + as_f64(r), what="h")
        self.assertClose(y, ref_rms_norm(h)[0], what="y")


if __name__ == "__main__":
    main()
