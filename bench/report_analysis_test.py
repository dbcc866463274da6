"""The report's regime classification, references and targets on known
shapes (no measurement, no torch)."""

import unittest

import report_analysis as analysis

LLC = 32 << 20  # this dev VM's L3


class RegimeTest(unittest.TestCase):
    def test_dram_from_four_llcs_of_one_tensor(self):
        # 4096 x 8192 f32 is 128 MiB: exactly 4 x LLC.
        self.assertEqual(analysis.regime("forward", "f32", "4096x8192", LLC), "dram")
        self.assertEqual(analysis.regime("forward", "bf16", "4096x8192", LLC), "mixed")

    def test_cache_when_the_call_fits_the_llc(self):
        # 512 x 4096 f32: 8 MiB per tensor, forward 16 MiB, backward 24 MiB.
        self.assertEqual(analysis.regime("forward", "f32", "512x4096", LLC), "cache")
        self.assertEqual(analysis.regime("backward", "f32", "512x4096", LLC), "cache")
        # 4096 x 2048 f32: 32 MiB per tensor: a forward moves 64 MiB.
        self.assertEqual(analysis.regime("forward", "f32", "4096x2048", LLC), "mixed")

    def test_llc_override_moves_the_regimes(self):
        # A VM whose sysfs reports a 300 MiB L3 it cannot use: 64 MiB makes
        # 4096 x 16384 f32 (256 MiB) a dram shape again.
        self.assertEqual(analysis.regime("forward", "f32", "4096x16384", 300 << 20), "mixed")
        self.assertEqual(
            analysis.regime("forward", "f32", "4096x16384", 64 << 20), "dram")

    def test_layer_norm2d_counts_every_element(self):
        self.assertEqual(analysis.tensor_bytes("f32", "8x96x56x56"), 8 * 96 * 56 * 56 * 4)
        self.assertEqual(analysis.logical_bytes("backward", "bf16", "1x256x64x64"),
                         3 * 256 * 64 * 64 * 2)

    def test_reference_columns(self):
        self.assertEqual(analysis.reference_column("forward", "dram"), "stream_copy")
        self.assertEqual(analysis.reference_column("backward", "dram"), "stream_add")
        self.assertEqual(analysis.reference_column("forward", "cache"), "cache_copy")
        self.assertEqual(analysis.reference_column("backward", "mixed"), "cache_add")


class Cell:
    def __init__(self, gbps):
        self.gbps = gbps


def line(shape, direction="forward", regime="dram", **gbps):
    cells = {name: None for name in ("halnorm", "ref", *analysis.PEER_COLUMNS)}
    cells.update({name: Cell(value) for name, value in gbps.items()})
    return analysis.Line("layer_norm", direction, "f32", shape, 1, regime, "stream_copy", cells)


def target(title_start):
    return next(t for t in analysis.TARGETS if t.title.startswith(title_start))


class TargetTest(unittest.TestCase):
    def test_forward_dram_target_is_ninety_percent_of_stream_copy(self):
        forward = target("forward")
        self.assertTrue(forward.met(line("4096x8192", halnorm=9.0, ref=10.0)))
        self.assertFalse(forward.met(line("4096x8192", halnorm=8.9, ref=10.0)))
        self.assertFalse(forward.applies(line("4096x8192", direction="backward")))

    def test_onednn_ratio_and_missing_peer(self):
        onednn = target(">= 1.2x oneDNN")
        self.assertTrue(onednn.met(line("4096x8192", halnorm=12.0, onednn=10.0)))
        self.assertFalse(onednn.met(line("4096x8192", halnorm=11.9, onednn=10.0)))
        self.assertFalse(onednn.applies(line("4096x8192", halnorm=11.9)))

    def test_decode_target_covers_row_norms_up_to_sixteen_rows(self):
        decode = target("row norms with M <= 16")
        self.assertTrue(decode.applies(line("16x4096", halnorm=1.0, onednn=1.0)))
        self.assertFalse(decode.applies(line("512x4096", halnorm=1.0, onednn=1.0)))
        self.assertTrue(decode.met(line("1x768", halnorm=1.0, onednn=1.0)))

    def test_a_failed_halnorm_run_sorts_first_and_misses(self):
        forward = target("forward")
        missing = line("4096x8192", ref=10.0)
        self.assertFalse(forward.met(missing))
        self.assertLess(forward.shortfall_order(missing),
                        forward.shortfall_order(line("4096x8192", halnorm=1.0, ref=10.0)))


if __name__ == "__main__":
    unittest.main()
