"""report_runner on a small shape: every column, in the CSV the report
reads, with plausible numbers (halnorm and oneDNN ran, rates positive and
below 10 TB/s, n/a rows name why)."""

import os
import subprocess
import sys
import unittest

RUNNER = sys.argv.pop(1) if len(sys.argv) > 1 else "bench/report_runner"
COLUMNS = {"halnorm", "onednn", "naive", "stream_copy", "stream_add", "cache_copy", "cache_add"}


def run(*args, env=None):
    result = subprocess.run([RUNNER, *args], capture_output=True, text=True, timeout=300,
                            env=env)
    return result.returncode, [line.split(",") for line in result.stdout.splitlines()], result.stderr


class ReportRunnerTest(unittest.TestCase):
    def test_layer_norm_rows(self):
        code, rows, stderr = run("--op=layer_norm", "--dtype=f32", "--shape=8x512", "--threads=1",
                                 "--reps=1")
        self.assertEqual(code, 0, stderr)
        self.assertTrue(all(len(row) == 8 for row in rows), rows)
        self.assertEqual({row[5] for row in rows}, COLUMNS)
        for op, direction, dtype, shape, threads, column, gbps, status in rows:
            self.assertEqual((op, dtype, shape, threads), ("layer_norm", "f32", "8x512", "1"))
            if column in ("halnorm", "naive") or column.startswith(("stream", "cache")):
                self.assertEqual(status, "ok", column)
            if status == "ok":
                self.assertTrue(0 < float(gbps) < 10000, (column, gbps))
            else:
                self.assertTrue(status.startswith("n/a: ") and len(status) > 5, status)
        halnorm_directions = {row[1] for row in rows if row[5] == "halnorm"}
        self.assertEqual(halnorm_directions, {"forward", "backward"})

    def test_rms_norm_has_no_onednn_peer(self):
        code, rows, stderr = run("--op=rms_norm", "--dtype=bf16", "--shape=4x256", "--threads=1",
                                 "--reps=1")
        self.assertEqual(code, 0, stderr)
        onednn = [row for row in rows if row[5] == "onednn"]
        self.assertEqual(len(onednn), 2)
        self.assertTrue(all("no RMSNorm" in row[7] for row in onednn), onednn)

    def test_layer_norm2d_shape(self):
        code, rows, stderr = run("--op=layer_norm2d", "--dtype=f32", "--shape=1x32x8x8",
                                 "--threads=1", "--reps=1")
        self.assertEqual(code, 0, stderr)
        halnorm = [row for row in rows if row[5] == "halnorm"]
        self.assertEqual([row[7] for row in halnorm], ["ok", "ok"])

    def test_tensors_off_a_cache_line(self):
        code, rows, stderr = run("--op=layer_norm", "--dtype=bf16", "--shape=8x768",
                                 "--threads=1", "--reps=1", "--offset_bytes=16")
        self.assertEqual(code, 0, stderr)
        halnorm = [row for row in rows if row[5] == "halnorm"]
        self.assertEqual([row[7] for row in halnorm], ["ok", "ok"])

    def test_cold_calls_with_the_output_read_back(self):
        # 16 MiB read between calls, not the default 1 GiB: quick, and the
        # shape's 128 KiB tensors still leave L1 and L2.
        code, rows, stderr = run("--op=rms_norm", "--dtype=f16", "--shape=64x1024",
                                 "--threads=1,2", "--reps=2", "--cold=16", "--read_output",
                                 "--warm_dy")
        self.assertEqual(code, 0, stderr)
        self.assertEqual({row[5] for row in rows}, COLUMNS | {"halnorm_then_read"})
        then_read = [(row[1], row[4], row[7]) for row in rows if row[5] == "halnorm_then_read"]
        self.assertEqual(sorted(then_read), [("backward", "1", "ok"), ("backward", "2", "ok"),
                                             ("forward", "1", "ok"), ("forward", "2", "ok")])
        for row in rows:
            if row[7] == "ok":
                self.assertTrue(0 < float(row[6]) < 10000, row)

    def test_prints_the_cache_halnorm_assumes(self):
        code, rows, stderr = run("--print_llc", env={**os.environ, "HALNORM_LLC_MIB": "48"})
        self.assertEqual((code, rows), (0, [[str(48 << 20)]]), stderr)
        environment = {k: v for k, v in os.environ.items() if k != "HALNORM_LLC_MIB"}
        code, rows, stderr = run("--print_llc", env=environment)
        self.assertEqual(code, 0, stderr)
        self.assertTrue(0 <= int(rows[0][0]) < 1 << 40, rows)

    def test_bad_arguments_name_the_flag(self):
        for args, flag in ((["--op=group_norm", "--dtype=f32", "--shape=2x2"], "--op"),
                           (["--op=layer_norm", "--dtype=f64", "--shape=2x2"], "--dtype"),
                           (["--op=layer_norm", "--dtype=f32", "--shape=2x2x2"], "--shape"),
                           (["--op=layer_norm", "--dtype=f32", "--shape=2x2", "--reps=0"],
                            "--reps"),
                           (["--op=layer_norm", "--dtype=f32", "--shape=2x2", "--offset_bytes=64"],
                            "--offset_bytes"),
                           (["--op=layer_norm", "--dtype=bf16", "--shape=2x2", "--offset_bytes=3"],
                            "--offset_bytes"),
                           (["--op=layer_norm", "--dtype=f32", "--shape=2x2", "--cold=0"],
                            "--cold"),
                           (["--op=layer_norm", "--dtype=f32", "--shape=2x2", "--warm_dy"],
                            "--warm_dy")):
            code, rows, stderr = run(*args)
            self.assertEqual(code, 2, args)
            self.assertEqual(rows, [])
            self.assertIn(flag, stderr)


if __name__ == "__main__":
    unittest.main()
