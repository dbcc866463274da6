"""halnorm.torch: autograd through halnorm's backward kernels, against float64
torch autograd; the nn.Modules against torch's own."""

import torch
import torch.nn.functional as F

import halnorm
import halnorm.torch as hn
from support import DTYPES, EPS, PARAM_TOL, TestCase, as_f64, main, random


def leaf(t):
    return t.detach().clone().requires_grad_()


class FunctionalAutogradTest(TestCase):

    def test_layer_norm_gradients(self):
        for dtype in DTYPES:
            for param_dtype in {dtype, torch.float32}:
                with self.subTest(dtype=dtype, param_dtype=param_dtype):
                    x = leaf(random((3, 5, 96), dtype, offset=1.0, seed=1))
                    w = leaf(random((96,), param_dtype, offset=1.0, seed=2))
                    b = leaf(random((96,), param_dtype, seed=3))
                    dy = random((3, 5, 96), dtype, seed=4)
                    y = hn.layer_norm(x, w, b)
                    self.assertIsNotNone(y.grad_fn)
                    y.backward(dy)
                    x64, w64, b64 = leaf(as_f64(x)), leaf(as_f64(w)), leaf(as_f64(b))
                    ref = F.layer_norm(x64, (96,), w64, b64, EPS)
                    ref.backward(as_f64(dy))
                    self.assertClose(y, ref.detach(), what="y")
                    self.assertEqual(x.grad.dtype, dtype)
                    self.assertEqual(w.grad.dtype, param_dtype)
                    self.assertClose(x.grad, x64.grad, what="x.grad")
                    self.assertClose(w.grad, w64.grad, PARAM_TOL[param_dtype], "w.grad")
                    self.assertClose(b.grad, b64.grad, PARAM_TOL[param_dtype], "b.grad")

    def test_rms_norm_gemma_offset_gradients(self):
        x = leaf(random((8, 64), seed=5))
        w = leaf(random((64,), scale=0.1, seed=6))
        dy = random((8, 64), seed=7)
        hn.rms_norm(x, w, weight_offset=1.0).backward(dy)
        x64, w64 = leaf(as_f64(x)), leaf(as_f64(w))
        (x64 * torch.rsqrt((x64 * x64).mean(-1, keepdim=True) + EPS) * (1 + w64)).backward(
            as_f64(dy))
        self.assertClose(x.grad, x64.grad, what="x.grad")
        self.assertClose(w.grad, w64.grad, PARAM_TOL[torch.float32], "w.grad")

    def test_fused_residual_gradients_through_both_outputs(self):
        for rms in (False, True):
            for alpha in (None, 2.0):
                with self.subTest(rms=rms, alpha=alpha):
                    x, r = leaf(random((6, 80), seed=8)), leaf(random((6, 80), seed=9))
                    w = leaf(random((80,), offset=1.0, seed=10))
                    dy, dh = random((6, 80), seed=11), random((6, 80), seed=12)
                    if rms:
                        y, h = hn.add_rms_norm(x, r, w, residual_alpha=alpha)
                    else:
                        y, h = hn.add_layer_norm(x, r, w, residual_alpha=alpha)
                    ((y * dy).sum() + (h * dh).sum()).backward()
                    x64, r64, w64 = leaf(as_f64(x)), leaf(as_f64(r)), leaf(as_f64(w))
                    h64 = (1.0 if alpha is None else alpha) * x64 + r64
                    if rms:
                        y64 = h64 * torch.rsqrt((h64 * h64).mean(-1, keepdim=True) + EPS) * w64
                    else:
                        y64 = F.layer_norm(h64, (80,), w64, None, EPS)
                    ((y64 * as_f64(dy)).sum() + (h64 * as_f64(dh)).sum()).backward()
                    self.assertClose(h, h64.detach(), what="h")
                    self.assertClose(y, y64.detach(), what="y")
                    self.assertClose(x.grad, x64.grad, what="x.grad")
                    self.assertClose(r.grad, r64.grad, what="residual.grad")
                    self.assertClose(w.grad, w64.grad, PARAM_TOL[torch.float32], "w.grad")

    def test_any_layout_and_expanded_gradients(self):
        # x.t(): normalized dim not contiguous (copied); y.sum(): dy of stride 0.
        base = leaf(random((32, 6), seed=13))
        x = base.t()
        w = leaf(torch.ones(32))
        hn.layer_norm(x, w).sum().backward()
        base64 = leaf(as_f64(base))
        F.layer_norm(base64.t(), (32,), as_f64(w)).sum().backward()
        self.assertClose(base.grad, base64.grad, what="x.grad")
        # Strided leading dims run in place: a transposed QK-norm view.
        q = leaf(random((2, 7, 3, 16), seed=14))
        y = hn.rms_norm(q.transpose(1, 2), eps=1e-6)
        y.backward(random((2, 3, 7, 16), seed=15))
        self.assertEqual(tuple(q.grad.shape), (2, 7, 3, 16))

    def test_frozen_parameters_and_no_grad(self):
        x = leaf(random((4, 24), seed=16))
        w = random((24,), seed=17)  # not trainable
        hn.layer_norm(x, w).backward(random((4, 24), seed=18))
        self.assertIsNotNone(x.grad)
        with torch.no_grad():
            y = hn.layer_norm(x, w)
        self.assertIsNone(y.grad_fn)
        self.assertClose(y, F.layer_norm(as_f64(x), (24,), as_f64(w), eps=EPS), what="y")

    def test_double_backward_is_refused(self):
        x = leaf(random((2, 8), seed=19))
        y = hn.layer_norm(x)
        (grad,) = torch.autograd.grad(y.pow(2).sum(), x, create_graph=True)
        with self.assertRaisesRegex(RuntimeError, "once_differentiable|twice"):
            grad.sum().backward()

    def test_layer_norm2d_gradients(self):
        for axes in ("C", "CHW", "HW"):
            for channels_last in (False, True):
                if axes == "HW" and channels_last:
                    continue  # copied to NCHW by the wrapper; covered below
                with self.subTest(axes=axes, channels_last=channels_last):
                    x0 = random((2, 6, 5, 4), seed=20)
                    if channels_last:
                        x0 = x0.contiguous(memory_format=torch.channels_last)
                    x = leaf(x0)
                    w, b = leaf(random((6,), offset=1.0, seed=21)), leaf(random((6,), seed=22))
                    dy = random((2, 6, 5, 4), seed=23)
                    y = hn.layer_norm2d(x, w, b, axes=axes)
                    y.backward(dy)
                    x64, w64, b64 = leaf(as_f64(x)), leaf(as_f64(w)), leaf(as_f64(b))
                    if axes == "C":
                        ref = F.layer_norm(x64.permute(0, 2, 3, 1), (6,), w64, b64, EPS)
                        ref = ref.permute(0, 3, 1, 2)
                    elif axes == "CHW":
                        ref = F.group_norm(x64, 1, w64, b64, EPS)
                    else:
                        ref = F.instance_norm(x64, weight=w64, bias=b64, eps=EPS)
                    ref.backward(as_f64(dy))
                    self.assertClose(y, ref.detach(), what="y")
                    self.assertClose(x.grad, x64.grad, what="x.grad")
                    self.assertClose(w.grad, w64.grad, PARAM_TOL[torch.float32], "w.grad")
                    self.assertClose(b.grad, b64.grad, PARAM_TOL[torch.float32], "b.grad")
        x = leaf(random((1, 3, 4, 4), seed=24).contiguous(memory_format=torch.channels_last))
        hn.layer_norm2d(x, axes="HW").sum().backward()
        self.assertEqual(tuple(x.grad.shape), (1, 3, 4, 4))


class ModulesTest(TestCase):

    def test_layer_norm_is_a_drop_in(self):
        ours = hn.LayerNorm((4, 32))
        theirs = torch.nn.LayerNorm((4, 32))
        self.assertIsInstance(ours, torch.nn.LayerNorm)
        with torch.no_grad():
            theirs.weight.copy_(random((4, 32), offset=1.0, seed=1))
            theirs.bias.copy_(random((4, 32), seed=2))
        ours.load_state_dict(theirs.state_dict())
        self.assertEqual(ours.eps, 1e-5)  # halnorm_norm_options_init's default
        x = random((3, 4, 32), seed=3)
        self.assertClose(ours(x), theirs(x).detach(), 1e-5, "y")
        ours(x).sum().backward()
        self.assertEqual(tuple(ours.weight.grad.shape), (4, 32))
        with self.assertRaisesRegex(ValueError, "does not end with the normalized shape"):
            ours(random((3, 32, 4)))
        self.assertIsNone(hn.LayerNorm(8, bias=False).bias)

    def test_rms_norm_and_a_training_step(self):
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(16, 16), hn.RMSNorm(16, eps=1e-6),
                                    torch.nn.Linear(16, 1))
        x, target = random((32, 16), seed=4), random((32, 1), seed=5)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        losses = []
        for _ in range(20):
            optimizer.zero_grad()
            loss = F.mse_loss(model(x), target)
            loss.backward()
            optimizer.step()
            losses.append(float(loss))
        self.assertLess(losses[-1], 0.8 * losses[0])
        norm = model[1]
        self.assertNotEqual(float((norm.weight - 1).abs().max()), 0.0)
        gemma = hn.RMSNorm(16, weight_offset=1.0)
        self.assertEqual(float(gemma.weight.abs().max()), 0.0)  # scale 1 + 0
        self.assertClose(gemma(x), hn.rms_norm(x), 1e-6, "gemma y")

    def test_layer_norm2d_module(self):
        module = hn.LayerNorm2d(8, eps=1e-6)
        x = random((2, 8, 3, 3), seed=6).contiguous(memory_format=torch.channels_last)
        y = module(x)
        ref = F.layer_norm(as_f64(x).permute(0, 2, 3, 1), (8,), eps=1e-6).permute(0, 3, 1, 2)
        self.assertClose(y, ref, what="y")
        self.assertIn("axes=C", repr(module))

    def test_lazy_submodule(self):
        self.assertIs(halnorm.torch, hn)


if __name__ == "__main__":
    main()
