"""The ARM64 kernels really run on NEON vectors: checked on Halide's assembly.

Under qemu a scalar fallback would pass every correctness test, so this test
reads each ARM64 kernel's assembly (halide.bzl keeps it, -e assembly) and
checks its innermost loops, which LLVM labels with Halide's loop names:
  - every kernel has innermost loops doing float arithmetic on 128-bit
    vectors (v<N>.4s / .8h);
  - scalar float arithmetic appears only in the loops that are scalar by
    design (SCALAR_BY_DESIGN below), never in a row-streaming loop.
"""

import collections
import glob
import os
import re
import sys
import unittest

# Innermost loops that may do scalar float arithmetic, and why.
SCALAR_BY_DESIGN = {
    # The row reduction's remainder: fewer than vector_width x accumulators elements.
    r"row_(sums|sq)\.s1\.tail",
    # The output map of rows narrower than one vector (specialized on hidden < width).
    r"(y|dx)\.s0\.n(\.us)?$",
    # LayerNorm's shift on rows shorter than its 16-element head (clamped lanes).
    r"shift_lanes\.s0\.lane",
    # LayerNorm's shift itself: one value a row (the head's sum times 1/16),
    # in a loop over a statistics group's rows since the task size is a
    # runtime input.
    r"shift\.s0\.r\b",
    # LayerNorm2d: folding a partial's vector lanes into one value per channel.
    r"d(weight|bias)_partial\.s2\.lane",
}

_LABEL = re.compile(r'^\.(LBB\d+_\d+):\s*(?://\s*(.*))?$')
_VECTOR_FP = re.compile(
    r"^\s+f(add|sub|mul|mla|mls|div|sqrt|max|min|neg|abs|addp|cvtl2?|cvtn2?)\s+v\d+\.(4s|8h|4h)")
_SCALAR_FP = re.compile(
    r"^\s+f(add|sub|mul|madd|msub|nmadd|nmsub|div|sqrt|max|min|neg|abs)\s+[sh]\d+")

Loop = collections.namedtuple("Loop", "name parent vector_fp scalar_fp")


def innermost_loops(assembly):
    """{header label: Loop} for the innermost loops of an LLVM AArch64 listing."""
    lines = assembly.split("\n")
    loops, current, i = {}, None, 0
    while i < len(lines):
        label = _LABEL.match(lines[i])
        if label or lines[i].strip().startswith("// %bb"):
            comments = [label.group(2) or "" if label else lines[i]]
            i += 1
            while i < len(lines) and lines[i].strip().startswith("//"):
                comments.append(lines[i])
                i += 1
            text = " ".join(comments)
            if label and "Loop Header" in text:
                current = label.group(1)
                parent = re.search(r"Parent Loop (BB\d+_\d+)", text)
                # '%"for y.s0.n.n_outer63"': Halide's loop name, LLVM's dedup digits.
                name = re.sub(r'^%"?for |"$', "", (label.group(2) or "").strip())
                name = re.sub(r'\d+((\.us)*)$', r'\1', name)
                loops[current] = dict(name=name, parent=parent and "L" + parent.group(1),
                                      vector_fp=0, scalar_fp=0)
            else:
                inside = re.search(r"in Loop: Header=(BB\d+_\d+)", text)
                current = inside and "L" + inside.group(1)
            continue
        if current in loops:
            if _VECTOR_FP.match(lines[i]):
                loops[current]["vector_fp"] += 1
            elif _SCALAR_FP.match(lines[i]):
                loops[current]["scalar_fp"] += 1
        i += 1
    parents = {loop["parent"] for loop in loops.values()}
    return {k: Loop(**v) for k, v in loops.items() if k not in parents}


def scalar_by_design(loop_name):
    return any(re.search(p, loop_name) for p in SCALAR_BY_DESIGN)


class NeonAssemblyTest(unittest.TestCase):

    def setUp(self):
        runfiles = os.environ.get("TEST_SRCDIR", "")
        self.listings = sorted(glob.glob(os.path.join(runfiles, "**", "*__arm64_*.s"),
                                         recursive=True))

    def test_every_arm64_target_and_op_has_a_listing(self):
        names = {os.path.basename(p) for p in self.listings}
        for target in ("arm64_neon", "arm64_fp16_dot"):
            for kernel in ("layer_norm_fwd_f32", "rms_norm_bwd_bf16", "layer_norm2d_fwd_f16",
                           "layer_norm2d_bwd_f32", "layer_norm_fwd_residual_f16"):
                self.assertIn("%s__%s_c0.s" % (kernel, target), names)

    def test_row_streaming_loops_are_vectorized(self):
        for path in self.listings:
            with open(path) as f:
                loops = innermost_loops(f.read())
            kernel = os.path.basename(path)
            vector_loops = [l for l in loops.values() if l.vector_fp > 0]
            self.assertTrue(vector_loops, kernel + ": no innermost loop does vector float math")
            for loop in loops.values():
                # LLVM's loop vectorizer names its copy of a loop Halide left
                # scalar (the row sums' tail) vector.body: the loads and
                # conversions go to vectors, the in-order strict-float sum
                # stays in scalar lanes. Not a scalar fallback.
                if loop.name.startswith("%vector.body") and loop.vector_fp:
                    continue
                if loop.scalar_fp and not scalar_by_design(loop.name):
                    self.fail("%s: loop '%s' does scalar float math (%d instructions, %d vector)"
                              % (kernel, loop.name, loop.scalar_fp, loop.vector_fp))

    def test_the_checker_catches_a_scalar_loop(self):
        listing = "\n".join([
            '.LBB0_4:                                // %"for y.s0.n.n_outer"',
            "                                        // =>This Inner Loop Header: Depth=1",
            "\tfmul\ts0, s1, s2",
            "\tfadd\ts0, s0, s3",
            "\tb.ne\t.LBB0_4",
            '.LBB0_6:                                // %"for lane_sums.s1.chunk$x"',
            "                                        // =>This Inner Loop Header: Depth=1",
            "\tfadd\tv0.4s, v0.4s, v1.4s",
        ])
        loops = innermost_loops(listing)
        self.assertEqual(loops["LBB0_4"], Loop("y.s0.n.n_outer", None, 0, 2))
        self.assertEqual(loops["LBB0_6"], Loop("lane_sums.s1.chunk$x", None, 1, 0))
        self.assertFalse(scalar_by_design("y.s0.n.n_outer"))
        self.assertTrue(scalar_by_design("row_sums.s1.tail$x.rebased"))


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
