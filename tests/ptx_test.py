"""Every CUDA kernel's PTX assembles with ptxas for sm_80 and sm_90.

No GPU needed: Halide embeds each CUDA variant's PTX, as text, in its host
code; halide.bzl keeps that host code's LLVM IR (:kernels_cuda_ir). This
test pulls the PTX out and runs NVIDIA's assembler on it, so a schedule that
emits PTX the driver would reject (too many registers or too much shared
memory for the architecture, invalid instructions) fails here, not on the
first GPU that loads it. Skipped, saying so, where no CUDA toolkit is
installed.
"""

import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

ARCHITECTURES = ["sm_80", "sm_90"]

# Halide's PTX blob: a private i8 array constant in the host module.
_CONSTANT = re.compile(r'constant \[\d+ x i8\] c"((?:[^"\\]|\\[0-9A-Fa-f]{2}|\\\\)*)"')


def find_ptxas():
    for candidate in [os.environ.get("PTXAS"), shutil.which("ptxas"), "/usr/local/cuda/bin/ptxas"]:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def embedded_ptx(ir_text):
    """The PTX modules in a Halide host module's LLVM IR."""
    modules = []
    for match in _CONSTANT.finditer(ir_text):
        text = re.sub(rb"\\([0-9A-Fa-f]{2})", lambda m: bytes([int(m.group(1), 16)]),
                      match.group(1).encode("latin-1")).decode("latin-1")
        if ".version" in text and ".target" in text:
            modules.append(text.rstrip("\0"))
    return modules


class PtxTest(unittest.TestCase):
    def setUp(self):
        runfiles = os.environ.get("TEST_SRCDIR", "")
        self.listings = sorted(glob.glob(os.path.join(runfiles, "**", "*__cuda_*.ll"),
                                         recursive=True))

    def test_every_cuda_variant_is_present(self):
        self.assertGreater(len(self.listings), 0, "no CUDA kernels' IR in the runfiles")

    def test_ptx_assembles(self):
        ptxas = find_ptxas()
        if ptxas is None:
            self.skipTest("SKIPPED: no CUDA toolkit here (ptxas not on PATH or in /usr/local/cuda)")
        failures = []
        with tempfile.TemporaryDirectory() as scratch:
            for listing in self.listings:
                name = os.path.basename(listing)[:-len(".ll")]
                with open(listing, encoding="latin-1") as f:
                    modules = embedded_ptx(f.read())
                if len(modules) != 1:
                    failures.append(f"{name}: {len(modules)} PTX modules in its IR, expected 1")
                    continue
                ptx = os.path.join(scratch, name + ".ptx")
                with open(ptx, "w", encoding="latin-1") as f:
                    f.write(modules[0])
                for arch in ARCHITECTURES:
                    result = subprocess.run(
                        [ptxas, f"-arch={arch}", ptx, "-o", os.path.join(scratch, "out.cubin")],
                        capture_output=True, text=True)
                    if result.returncode != 0:
                        failures.append(f"{name} ({arch}): {result.stderr.strip()[:2000]}")
        print(f"ptxas ({ptxas}) assembled {len(self.listings)} CUDA kernels for "
              f"{', '.join(ARCHITECTURES)}", file=sys.stderr)
        self.assertEqual(failures, [], "\n".join(failures))


if __name__ == "__main__":
    unittest.main()
