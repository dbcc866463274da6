"""What the C API refuses raises a Python exception with halnorm_last_error()'s
message and the status name, and writes nothing; what Python cannot even
describe to it (dtype, rank > 4, odd strides, non-arrays) is refused before
the call, worded the same way."""

import threading
import unittest

import numpy as np
import torch

import halnorm
from support import TestCase, main, random

INVALID = "HALNORM_ERROR_INVALID_ARGUMENT"


class CApiErrorsTest(TestCase):

    def invalid(self, message_part, call):
        return self.assertRaisesHalnorm(halnorm.InvalidArgumentError, INVALID, message_part, call)

    def test_shape_mismatch_names_the_argument(self):
        x = random((4, 6))
        error = self.invalid("weight: shape [5] must be [6]",
                             lambda: halnorm.layer_norm(x, torch.ones(5)))
        self.assertEqual(error.function, "halnorm_layer_norm_forward")
        self.assertEqual(error.status, 1)
        self.assertIsInstance(error, ValueError)  # catchable as the built-in kind too
        self.invalid("bias: shape [6, 1] must be [6]",
                     lambda: halnorm.layer_norm(x, None, torch.ones(6, 1)))
        self.invalid("y: shape [4, 7] must be [4, 6]",
                     lambda: halnorm.rms_norm(x, out=torch.empty(4, 7)))
        self.invalid("rstd: shape [3] must be [4]",
                     lambda: halnorm.rms_norm_forward(x, rstd_out=torch.empty(3)))
        fwd = halnorm.layer_norm_forward(x)
        self.invalid("dy: shape [4, 5] must be [4, 6]",
                     lambda: halnorm.layer_norm_backward(torch.ones(4, 5), x, fwd.mean, fwd.rstd))
        self.invalid("opt->residual: shape [4, 5] must be [4, 6]",
                     lambda: halnorm.add_rms_norm(x, torch.ones(4, 5)))

    def test_dtype_mismatch(self):
        x = random((3, 8), torch.float16)
        self.invalid("y: dtype f32 must be f16 (must match x)",
                     lambda: halnorm.layer_norm(x, out=torch.empty(3, 8)))
        self.invalid("weight: dtype bf16 must be f32 or x's dtype (f16)",
                     lambda: halnorm.layer_norm(x, torch.ones(8, dtype=torch.bfloat16)))
        self.invalid("mean: dtype f16 must be f32 (statistics are f32)",
                     lambda: halnorm.layer_norm_forward(
                         x, mean_out=torch.empty(3, dtype=torch.float16)))

    def test_non_contiguous_normalized_dims(self):
        x = random((16, 4)).t()  # [4, 16] with stride (1, 4)
        message = "x: the normalized dims must be contiguous; dim 1 has stride 4, expected 1"
        # The outputs allocated for it have contiguous rows, so x is the one named.
        self.invalid(message, lambda: halnorm.layer_norm(x))
        self.invalid(message, lambda: halnorm.rms_norm(x, out=torch.empty(4, 16)))
        rstd = torch.ones(4)
        self.invalid(message, lambda: halnorm.rms_norm_backward(torch.ones(4, 16), x, rstd))
        y = torch.empty(16, 4).t()
        self.invalid("y: the normalized dims must be contiguous",
                     lambda: halnorm.rms_norm(random((4, 16)), out=y))
        a = np.ones((4, 32), np.float32)[:, ::2]
        self.invalid("x: the normalized dims must be contiguous; dim 1 has stride 2",
                     lambda: halnorm.layer_norm(a))
        self.invalid("x: the normalized dims must be contiguous; dim 1 has stride 4, expected 1",
                     lambda: halnorm.layer_norm(np.ones((16, 4), np.float16).T,
                                                normalized_rank=2))

    def test_negative_numpy_strides(self):
        a = np.ones((4, 8), np.float32)[::-1]
        self.invalid("x: stride -8 of dim 0 is negative (not supported)",
                     lambda: halnorm.layer_norm(a, out=np.empty((4, 8), np.float32)))

    def test_options(self):
        x = random((2, 8))
        self.invalid("opt->eps must be finite and >= 0, got -1",
                     lambda: halnorm.layer_norm(x, eps=-1.0))
        self.invalid("opt->normalized_rank must be 1..2 (x's rank), got 3",
                     lambda: halnorm.layer_norm(x, normalized_rank=3))
        self.invalid("opt->residual_out: given without opt->residual",
                     lambda: halnorm.layer_norm_forward(x, residual_out=torch.empty(2, 8)))
        self.invalid("opt->weight_offset must be finite",
                     lambda: halnorm.rms_norm(x, torch.ones(8), weight_offset=float("inf")))

    def test_aliasing_outputs_are_refused_and_nothing_is_written(self):
        x = random((2, 8))
        before = x.clone()
        self.invalid("y: overlaps x (outputs must not alias)",
                     lambda: halnorm.layer_norm(x, out=x))
        self.assertTrue(torch.equal(x, before))
        y = torch.full((2, 8), 5.0)
        self.invalid("weight: shape [7] must be [8]",
                     lambda: halnorm.layer_norm(x, torch.ones(7), out=y))
        self.assertTrue(bool((y == 5).all()), "a refused call wrote its output")

    def test_errors_are_per_thread(self):
        messages = {}

        def fail(width):
            try:
                halnorm.layer_norm(random((2, 8)), torch.ones(width))
            except halnorm.HalnormError as error:
                messages[width] = error.message

        threads = [threading.Thread(target=fail, args=(w,)) for w in (3, 5)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(messages, {3: "weight: shape [3] must be [8]",
                                    5: "weight: shape [5] must be [8]"})


class PythonSideErrorsTest(TestCase):

    def invalid(self, message_part, call):
        return self.assertRaisesHalnorm(halnorm.InvalidArgumentError, INVALID, message_part, call)

    def test_unsupported_dtypes(self):
        self.invalid("x: dtype torch.float64 is not supported",
                     lambda: halnorm.layer_norm(torch.ones(2, 3, dtype=torch.float64)))
        self.invalid("x: dtype float64 is not supported",
                     lambda: halnorm.layer_norm(np.ones((2, 3))))
        self.invalid("weight: dtype int32 is not supported",
                     lambda: halnorm.layer_norm(np.ones((2, 3), np.float32),
                                                np.ones(3, np.int32)))

    def test_rank_beyond_the_struct(self):
        self.invalid("x: rank must be 1..4, got 5",
                     lambda: halnorm.layer_norm(torch.ones(1, 1, 1, 1, 2)))
        # Rank 0 reaches the C API, which says the same.
        self.invalid("x: rank must be 1..4, got 0", lambda: halnorm.layer_norm(torch.tensor(1.0)))

    def test_strides_that_are_not_whole_elements(self):
        record = np.zeros(4, dtype=[("a", np.float32), ("b", np.float16)])
        self.invalid("x: byte strides (6,) are not multiples of the item size 4",
                     lambda: halnorm.layer_norm(record["a"]))

    def test_read_only_output(self):
        out = np.broadcast_to(np.zeros(8, np.float32), (2, 8))
        self.invalid("y: the numpy array is read-only",
                     lambda: halnorm.layer_norm(np.ones((2, 8), np.float32), out=out))

    def test_not_an_array(self):
        with self.assertRaisesRegex(TypeError,
                                    "x: expected a numpy.ndarray or torch.Tensor, got list"):
            halnorm.layer_norm([[1.0, 2.0]])

    def test_devices_and_layouts_the_api_lacks(self):
        self.invalid("x: device meta is not supported",
                     lambda: halnorm.layer_norm(torch.empty(2, 3, device="meta")))
        self.invalid("x: layout torch.sparse_coo is not supported",
                     lambda: halnorm.layer_norm(torch.ones(2, 3).to_sparse()))

    @unittest.skipUnless(torch.cuda.is_available(), "torch has no CUDA device here")
    def test_cuda_tensors_run_or_say_why(self):
        x = random((4, 64)).cuda()
        try:
            y = halnorm.layer_norm(x)
        except halnorm.UnsupportedError as error:
            self.assertIn("CUDA", error.message)
            return
        self.assertTrue(y.is_cuda)
        self.assertClose(y.cpu(), halnorm.layer_norm(x.cpu()), 1e-5, "y")


if __name__ == "__main__":
    main()
