"""streaming_stores.py on a miniature of Halide's LLVM IR."""
import unittest

import streaming_stores

KERNEL = """\
define i32 @k_par_for_task(i8* %ctx, i32 %t, i8* %closure) {
entry:
  store <8 x float> %v, <8 x float>* %yp, align 4, !tbaa !3
  store <8 x float> %v, <8 x float>* %yp2, align 4, !tbaa !5
  store <8 x float> %w, <8 x float>* %sp, align 32, !tbaa !7
  store float %s, float* %ys, align 4, !tbaa !3
  store <16 x i16> %h, <16 x i16>* %hp, align 2, !tbaa !3
  ret i32 0
}
define i32 @k_argv(i8** %args) {
  %r = call i32 @k_par_for_task(i8* null, i32 0, i8* null)
  ret i32 %r
}
!1 = !{!"Halide buffer"}
!2 = !{!"y", !1, i64 0}
!3 = !{!2, !2, i64 0}
!4 = !{!"y.width8.base0", !2, i64 0}
!5 = !{!4, !4, i64 0}
!6 = !{!"sums", !1, i64 0}
!7 = !{!6, !6, i64 0}
"""


class RewriteTest(unittest.TestCase):
    def setUp(self):
        self.out = streaming_stores.rewrite(KERNEL, "k", "k_streaming", {"y"})

    def test_vector_stores_into_outputs_go_through_the_helper(self):
        self.assertEqual(self.out.count("call void @halnorm_streaming_store_v8float(<8 x float>* %yp,"), 1)
        self.assertEqual(self.out.count("call void @halnorm_streaming_store_v8float(<8 x float>* %yp2,"), 1)
        self.assertIn("call void @halnorm_streaming_store_v16i16(<16 x i16>* %hp, <16 x i16> %h)", self.out)

    def test_other_buffers_and_scalars_keep_plain_stores(self):
        self.assertIn("store <8 x float> %w, <8 x float>* %sp, align 32, !tbaa !7", self.out)
        self.assertIn("store float %s, float* %ys, align 4, !tbaa !3", self.out)

    def test_helper_streams_only_aligned_addresses(self):
        self.assertIn("and i64 %address, 15", self.out)
        self.assertIn("bitcast <8 x float> %v to <4 x i64>", self.out)
        self.assertIn("bitcast <16 x i16> %v to <4 x i64>", self.out)
        self.assertEqual(
            self.out.count("store <2 x i64> %piece1, <2 x i64>* %at1, align 16, !nontemporal !{i32 1}"), 2)
        self.assertIn("store <4 x i64> %bits, <4 x i64>* %whole, align 1\n", self.out)

    def test_every_return_is_fenced(self):
        self.assertEqual(self.out.count("call void @llvm.x86.sse.sfence()\n  ret"), 2)

    def test_symbols_are_renamed(self):
        self.assertIn("define i32 @k_streaming_par_for_task(", self.out)
        self.assertIn("define i32 @k_streaming_argv(", self.out)
        self.assertIn("call i32 @k_streaming_par_for_task(", self.out)
        self.assertNotIn("@k_par_for_task", self.out)

    def test_a_kernel_without_such_stores_is_an_error(self):
        with self.assertRaises(SystemExit):
            streaming_stores.rewrite(KERNEL, "k", "k_streaming", {"dx"})


if __name__ == "__main__":
    unittest.main()
