"""halnorm performance report.

Runs bench/report_runner (halnorm and its C++ peers, STREAM and in-cache
references) and the PyTorch peer over a grid of ops, dtypes and shapes, and
writes report.csv (raw rows, appended as they come), report.md (tables and
target summary) and report.png (GB/s against N).

    bazel run //bench:report -- [--quick] [--ops=layer_norm,rms_norm] [--dtypes=f32,bf16]
"""

import argparse
import csv
import datetime
import os
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from report_analysis import DIRECTIONS, dims_of, logical_bytes, report_lines
from report_markdown import markdown
from report_plot import write_plot

OPS = ("layer_norm", "rms_norm", "layer_norm2d")
DTYPES = ("f32", "f16", "bf16")

ROW_LENGTHS = (128, 768, 1024, 2048, 4096, 8192, 16384)
ROW_COUNTS = (1, 16, 512, 4096, 16384)
# ConvNeXt-T stages; SAM's image encoder neck and mask decoder upscaling.
LAYER_NORM2D_SHAPES = ("8x96x56x56", "8x192x28x28", "8x384x14x14", "8x768x7x7",
                       "1x256x64x64", "1x64x128x128", "1x32x256x256")
QUICK_ROW_LENGTHS = (768, 4096)
QUICK_ROW_COUNTS = (16, 4096)
QUICK_LAYER_NORM2D_SHAPES = ("8x96x56x56",)

RUNNER_PEERS = ("halnorm", "onednn", "naive")
REFERENCES = ("stream_copy", "stream_add", "cache_copy", "cache_add")
CSV_FIELDS = ("op", "direction", "dtype", "shape", "threads", "column", "gbps", "status")
DEFAULT_THREADS = (1, 2)
DEFAULT_REPS = 5


@dataclass(frozen=True)
class Row:
    """One measurement, one CSV line."""
    op: str
    direction: str  # "-" for the STREAM and cache references
    dtype: str
    shape: str
    threads: int
    column: str
    gbps: float | None
    status: str  # "ok" or "n/a: <reason>"

    def key(self):
        return (self.op, self.direction, self.dtype, self.shape, self.threads, self.column)

    def reason(self):
        return self.status.removeprefix("n/a:").strip()


# ---------------------------------------------------------------- command line and grid


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runner", required=True, help="path of bench/report_runner")
    parser.add_argument("--out", required=True, type=Path, help="directory for report.*")
    parser.add_argument("--quick", action="store_true", help="a small grid, for smoke tests")
    parser.add_argument("--ops", type=names_from(OPS), default=OPS, help="comma list")
    parser.add_argument("--dtypes", type=names_from(DTYPES), default=DTYPES, help="comma list")
    parser.add_argument("--threads", type=thread_counts, default=DEFAULT_THREADS,
                        help="comma list")
    parser.add_argument("--reps", type=int, default=DEFAULT_REPS, help="repetitions per median")
    # By default the regimes use the cache halnorm itself assumes: sysfs's,
    # bounded by the CPUs sharing it (a VM's sysfs may list the whole
    # socket's L3: runtime/cache_size.h).
    parser.add_argument("--llc_mib", type=positive_mib, default=None,
                        help="last-level cache size for the regimes and halnorm "
                             "(default: halnorm's, from sysfs)")
    return parser.parse_args(argv)


def positive_mib(text):
    mib = int(text)
    if mib <= 0:
        raise argparse.ArgumentTypeError(f"--llc_mib must be positive, got {text}")
    return mib


def names_from(allowed):
    def parse(text):
        names = tuple(text.split(","))
        unknown = set(names) - set(allowed)
        if unknown:
            raise argparse.ArgumentTypeError(
                f"unknown {', '.join(sorted(unknown))}; choose from {', '.join(allowed)}")
        return names
    return parse


def thread_counts(text):
    return tuple(int(count) for count in text.split(","))


def invocation(args):
    """The command that reproduces this report."""
    if "BUILD_WORKSPACE_DIRECTORY" not in os.environ:
        return shlex.join(["python3", *sys.argv])
    flags = ["--quick"] if args.quick else []
    for name, default in (("ops", OPS), ("dtypes", DTYPES),
                          ("threads", DEFAULT_THREADS), ("reps", DEFAULT_REPS),
                          ("llc_mib", None)):
        value = getattr(args, name)
        if value != default:
            text = ",".join(map(str, value)) if isinstance(value, tuple) else str(value)
            flags.append(f"--{name}={text}")
    return " ".join(["bazel run //bench:report", *(["--", *flags] if flags else [])])


def grid(ops, dtypes, quick):
    """(op, dtype, shape) in report order."""
    lengths, counts = (QUICK_ROW_LENGTHS, QUICK_ROW_COUNTS) if quick else (ROW_LENGTHS, ROW_COUNTS)
    row_shapes = [f"{m}x{n}" for m in counts for n in lengths]
    image_shapes = QUICK_LAYER_NORM2D_SHAPES if quick else LAYER_NORM2D_SHAPES
    return [(op, dtype, shape) for op in ops for dtype in dtypes
            for shape in (image_shapes if op == "layer_norm2d" else row_shapes)]


# ---------------------------------------------------------------- measuring


def run_runner(runner, op, dtype, shape, threads, reps):
    """The runner's rows for one shape. A runner that fails or leaves rows
    out yields n/a rows for what is missing, so the grid goes on."""
    command = [runner, f"--op={op}", f"--dtype={dtype}", f"--shape={shape}",
               f"--threads={','.join(map(str, threads))}", f"--reps={reps}"]
    try:
        result = subprocess.run(command, capture_output=True, text=True)
    except OSError as error:
        return missing_runner_rows([], op, dtype, shape, threads, f"runner: {error}")
    rows = [row for row in map(parse_runner_line, result.stdout.splitlines()) if row]
    if result.returncode == 0:
        why = "the runner printed no such row"
    else:
        why = f"runner exit {result.returncode}: {stderr_tail(result.stderr)}"
    return rows + missing_runner_rows(rows, op, dtype, shape, threads, why)


def parse_runner_line(line):
    """A Row, or None for a line that is not one (its row then reads n/a)."""
    fields = line.strip().split(",", len(CSV_FIELDS) - 1)
    if len(fields) != len(CSV_FIELDS):
        return None
    op, direction, dtype, shape, threads, column, gbps, status = fields
    try:
        return Row(op, direction, dtype, shape, int(threads), column,
                   float(gbps) if gbps else None, status)
    except ValueError:
        return None


def missing_runner_rows(rows, op, dtype, shape, threads, why):
    expected = [(d, column) for d in DIRECTIONS for column in RUNNER_PEERS]
    expected += [("-", column) for column in REFERENCES]
    present = {row.key() for row in rows}
    return [Row(op, direction, dtype, shape, count, column, None, f"n/a: {why}")
            for count in threads for direction, column in expected
            if (op, direction, dtype, shape, count, column) not in present]


def stderr_tail(stderr, lines=3, chars=300):
    tail = " / ".join(line.strip() for line in stderr.strip().splitlines()[-lines:])
    return (tail or "no stderr").replace(",", "")[-chars:]


def run_torch(op, dtype, shape, threads, reps):
    try:
        import torch_peer  # python3-torch is optional: only this column needs it
    except ImportError as error:
        why = f"n/a: PyTorch not importable ({error}); tools/setup.sh installs it"
        return [Row(op, direction, dtype, shape, count, "pytorch", None, why.replace(",", ""))
                for count in threads for direction in DIRECTIONS]
    rows = []
    for timing in torch_peer.time_op(op, dtype, dims_of(shape), threads, reps):
        gbps = None
        if timing.seconds is not None:
            gbps = logical_bytes(timing.direction, dtype, shape) / timing.seconds / 1e9
        rows.append(Row(op, timing.direction, dtype, shape, timing.threads, "pytorch",
                        gbps, timing.status))
    return rows


class Results:
    """Rows in memory, and in report.csv flushed after every batch so a
    cut-short run keeps its data."""

    def __init__(self, csv_path):
        self.rows = []
        self.file = open(csv_path, "w", newline="")
        self.writer = csv.writer(self.file)
        self.writer.writerow(CSV_FIELDS)

    def add(self, rows):
        self.rows += rows
        for row in rows:
            gbps = "" if row.gbps is None else f"{row.gbps:.3f}"
            self.writer.writerow([row.op, row.direction, row.dtype, row.shape, row.threads,
                                  row.column, gbps, row.status])
        self.file.flush()

    def close(self):
        self.file.close()


def runner_llc_bytes(runner):
    """The last-level cache bytes halnorm decides streaming stores by
    (HALNORM_LLC_MIB when --llc_mib set it); 32 MiB if the runner cannot say."""
    try:
        result = subprocess.run([runner, "--print_llc"], capture_output=True, text=True,
                                check=True)
        return int(result.stdout)
    except (OSError, subprocess.CalledProcessError, ValueError) as error:
        print(f"report: runner gave no cache size ({error}); assuming 32 MiB", file=sys.stderr)
        return 32 << 20


def measure_grid(args, cases, results):
    """Measures every case into `results`; False when cut short by Ctrl-C."""
    started = time.monotonic()
    try:
        for index, (op, dtype, shape) in enumerate(cases, 1):
            shape_started = time.monotonic()
            results.add(run_runner(args.runner, op, dtype, shape, args.threads, args.reps))
            # Right after the runner, so both see the machine in the same state.
            results.add(run_torch(op, dtype, shape, args.threads, args.reps))
            print(f"[{index}/{len(cases)}] {op} {dtype} {shape}: "
                  f"{time.monotonic() - shape_started:.1f} s, "
                  f"elapsed {elapsed(time.monotonic() - started)}", file=sys.stderr)
    except KeyboardInterrupt:
        print("interrupted: writing the report from the rows so far", file=sys.stderr)
        return False
    return True


def elapsed(seconds):
    return str(datetime.timedelta(seconds=round(seconds)))


# ---------------------------------------------------------------- main


def write_atomically(path, text):
    staged = path.with_name(path.name + ".tmp")
    staged.write_text(text)
    os.replace(staged, path)


def main(argv):
    args = parse_args(argv)
    if args.llc_mib is not None:
        # The runner's halnorm decides streaming stores by the same cache.
        os.environ["HALNORM_LLC_MIB"] = str(args.llc_mib)
    args.out.mkdir(parents=True, exist_ok=True)
    cases = grid(args.ops, args.dtypes, args.quick)
    results = Results(args.out / "report.csv")
    try:
        complete = measure_grid(args, cases, results)
    finally:
        results.close()
    llc = runner_llc_bytes(args.runner)
    lines = report_lines(results.rows, cases, args.threads, llc)
    write_atomically(args.out / "report.md",
                     markdown(results.rows, lines, llc=llc, command=invocation(args),
                              reps=args.reps, complete=complete, case_count=len(cases)))
    write_plot(results.rows, args.threads, args.out)
    print(f"report in {args.out}", file=sys.stderr)
    return 0 if complete else 130


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
