"""Backward LayerNorm/RMSNorm (dx, dweight, dbias, the residual gradient)
against torch autograd in float64."""

import numpy as np
import torch

import halnorm
from support import DTYPES, PARAM_TOL, TestCase, as_f64, autograd_layer_norm, main, random


class LayerNormBackwardTest(TestCase):

    def test_dx_dweight_dbias(self):
        for dtype in DTYPES:
            for shape in [(1, 1), (5, 7), (64, 512), (3, 4, 130)]:
                for weight_dtype in {dtype, torch.float32}:
                    with self.subTest(dtype=dtype, shape=shape, weight_dtype=weight_dtype):
                        x = random(shape, dtype, offset=1.0, scale=2.0, seed=1)
                        dy = random(shape, dtype, seed=2)
                        w = random(shape[-1:], weight_dtype, offset=1.0, seed=3)
                        fwd = halnorm.layer_norm_forward(x, w, random(shape[-1:], seed=4))
                        grads = halnorm.layer_norm_backward(dy, x, fwd.mean, fwd.rstd, w)
                        ref_dx, ref_dw, ref_db = autograd_layer_norm(
                            x, w, torch.zeros(shape[-1:]), dy)
                        self.assertEqual(grads.dx.dtype, dtype)
                        self.assertEqual(grads.dweight.dtype, weight_dtype)
                        self.assertEqual(grads.dbias.dtype, weight_dtype)
                        self.assertClose(grads.dx, ref_dx, what="dx")
                        self.assertClose(grads.dweight, ref_dw, PARAM_TOL[weight_dtype], "dweight")
                        self.assertClose(grads.dbias, ref_db, PARAM_TOL[weight_dtype], "dbias")

    def test_without_weight_and_selected_gradients(self):
        x, dy = random((6, 40), seed=5), random((6, 40), seed=6)
        fwd = halnorm.layer_norm_forward(x)
        grads = halnorm.layer_norm_backward(dy, x, fwd.mean, fwd.rstd)
        self.assertIsNone(grads.dweight)
        self.assertIsNone(grads.dbias)
        ref_dx, _, _ = autograd_layer_norm(x, None, None, dy)
        self.assertClose(grads.dx, ref_dx, what="dx")
        # dbias only, for a LayerNorm with a bias and no weight.
        grads = halnorm.layer_norm_backward(dy, x, fwd.mean, fwd.rstd, compute_dbias=True)
        self.assertIsNone(grads.dweight)
        self.assertClose(grads.dbias, dy.double().sum(0), PARAM_TOL[torch.float32], "dbias")

    def test_weight_offset_and_normalized_rank_two(self):
        x, dy = random((5, 3, 20), seed=7), random((5, 3, 20), seed=8)
        w = random((3, 20), scale=0.1, seed=9)
        fwd = halnorm.layer_norm_forward(x, w, weight_offset=1.0)
        grads = halnorm.layer_norm_backward(dy, x, fwd.mean, fwd.rstd, w, weight_offset=1.0)
        ref_dx, ref_dw, _ = autograd_layer_norm(x, w, None, dy, 2, weight_offset=1.0)
        self.assertClose(grads.dx, ref_dx, what="dx")
        self.assertClose(grads.dweight, ref_dw, PARAM_TOL[torch.float32], "dweight")
        self.assertEqual(tuple(grads.dbias.shape), (3, 20))

    def test_residual_gradient_is_added_to_dx(self):
        # Forward fused h = x + r; backward reads h and adds dh (from h's users).
        x, r = random((8, 64), seed=10), random((8, 64), seed=11)
        dy, dh = random((8, 64), seed=12), random((8, 64), seed=13)
        w = random((64,), seed=14)
        fwd = halnorm.layer_norm_forward(x, w, residual=r)
        grads = halnorm.layer_norm_backward(dy, fwd.residual_out, fwd.mean, fwd.rstd, w,
                                            dresidual=dh)
        ref_dx, ref_dw, ref_db = autograd_layer_norm(fwd.residual_out, w, None, dy)
        self.assertClose(grads.dx, ref_dx + as_f64(dh), what="dx + dh")
        self.assertClose(grads.dweight, ref_dw, PARAM_TOL[torch.float32], "dweight")

    def test_preallocated_gradients(self):
        x, dy, w = random((4, 32), seed=15), random((4, 32), seed=16), random((32,), seed=17)
        fwd = halnorm.layer_norm_forward(x, w)
        dx, dw, db = torch.empty(4, 32), torch.empty(32), torch.empty(32)
        grads = halnorm.layer_norm_backward(dy, x, fwd.mean, fwd.rstd, w, out=dx, dweight_out=dw,
                                            dbias_out=db)
        self.assertIs(grads.dx, dx)
        self.assertIs(grads.dweight, dw)
        self.assertIs(grads.dbias, db)
        ref_dx, ref_dw, ref_db = autograd_layer_norm(x, w, torch.zeros(32), dy)
        self.assertClose(dx, ref_dx, what="dx")
        self.assertClose(dw, ref_dw, PARAM_TOL[torch.float32], "dweight")
        self.assertClose(db, ref_db, PARAM_TOL[torch.float32], "dbias")

    def test_zero_rows_give_zero_parameter_gradients(self):
        x = torch.empty(0, 8)
        w = torch.ones(8)
        fwd = halnorm.layer_norm_forward(x, w)
        grads = halnorm.layer_norm_backward(torch.empty(0, 8), x, fwd.mean, fwd.rstd, w,
                                            dweight_out=torch.full((8,), 7.0),
                                            dbias_out=torch.full((8,), 7.0))
        self.assertTrue(torch.equal(grads.dweight, torch.zeros(8)))
        self.assertTrue(torch.equal(grads.dbias, torch.zeros(8)))

    def test_numpy(self):
        rng = np.random.default_rng(18)
        for dtype in (np.float32, np.float16):
            with self.subTest(dtype=dtype):
                x = rng.standard_normal((10, 77)).astype(dtype)
                dy = rng.standard_normal((10, 77)).astype(dtype)
                w = rng.standard_normal(77).astype(np.float32)
                fwd = halnorm.layer_norm_forward(x, w)
                grads = halnorm.layer_norm_backward(dy, x, fwd.mean, fwd.rstd, w)
                self.assertIsInstance(grads.dx, np.ndarray)
                self.assertEqual(grads.dx.dtype, dtype)
                self.assertEqual(grads.dweight.dtype, np.float32)
                ref_dx, ref_dw, ref_db = autograd_layer_norm(x, w, torch.zeros(77), dy)
                self.assertClose(grads.dx, ref_dx, what="dx")
                self.assertClose(grads.dweight, ref_dw, PARAM_TOL[torch.float32], "dweight")
                self.assertClose(grads.dbias, ref_db, PARAM_TOL[torch.float32], "dbias")


class RmsNormBackwardTest(TestCase):

    def test_dx_dweight(self):
        for dtype in DTYPES:
            for shape in [(1, 3), (17, 256), (2, 3, 100)]:
                with self.subTest(dtype=dtype, shape=shape):
                    x = random(shape, dtype, offset=0.3, seed=19)
                    dy = random(shape, dtype, seed=20)
                    w = random(shape[-1:], dtype, offset=1.0, seed=21)
                    fwd = halnorm.rms_norm_forward(x, w)
                    grads = halnorm.rms_norm_backward(dy, x, fwd.rstd, w)
                    ref_dx, ref_dw, _ = autograd_layer_norm(x, w, None, dy, rms=True)
                    self.assertClose(grads.dx, ref_dx, what="dx")
                    self.assertClose(grads.dweight, ref_dw, PARAM_TOL[dtype], "dweight")

    def test_weight_offset_residual_gradient_no_weight(self):
        x, dy, dh = random((6, 48), seed=22), random((6, 48), seed=23), random((6, 48), seed=24)
        w = random((48,), scale=0.1, seed=25)
        fwd = halnorm.rms_norm_forward(x, w, weight_offset=1.0)
        grads = halnorm.rms_norm_backward(dy, x, fwd.rstd, w, weight_offset=1.0, dresidual=dh)
        ref_dx, ref_dw, _ = autograd_layer_norm(x, w, None, dy, weight_offset=1.0, rms=True)
        self.assertClose(grads.dx, ref_dx + as_f64(dh), what="dx")
        self.assertClose(grads.dweight, ref_dw, PARAM_TOL[torch.float32], "dweight")
        fwd = halnorm.rms_norm_forward(x)
        grads = halnorm.rms_norm_backward(dy, x, fwd.rstd)
        self.assertIsNone(grads.dweight)
        self.assertClose(grads.dx, autograd_layer_norm(x, None, None, dy, rms=True)[0],
                         what="dx, no weight")


if __name__ == "__main__":
    main()
