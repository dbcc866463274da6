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
import math
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import torch_peer

OPS = ("layer_norm", "rms_norm", "layer_norm2d")
DTYPES = ("f32", "f16", "bf16")
DIRECTIONS = torch_peer.DIRECTIONS
BYTES_PER_ELEMENT = {"f32": 4, "f16": 2, "bf16": 2}
# Logical bytes per call are accesses x elements x s: forward reads x and
# writes y; backward reads x and dy and writes dx.
ACCESSES = {"forward": 2, "backward": 3}

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
# What halnorm is compared with besides its regime's reference ("ref").
PEER_COLUMNS = ("onednn", "pytorch", "naive")
DISPLAY_NAMES = {"halnorm": "halnorm", "onednn": "oneDNN", "pytorch": "PyTorch", "naive": "naive"}
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


# ---------------------------------------------------------------- grid


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
    return parser.parse_args(argv)


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


def grid(ops, dtypes, quick):
    """(op, dtype, shape) in report order."""
    lengths, counts = (QUICK_ROW_LENGTHS, QUICK_ROW_COUNTS) if quick else (ROW_LENGTHS, ROW_COUNTS)
    row_shapes = [f"{m}x{n}" for m in counts for n in lengths]
    image_shapes = QUICK_LAYER_NORM2D_SHAPES if quick else LAYER_NORM2D_SHAPES
    return [(op, dtype, shape) for op in ops for dtype in dtypes
            for shape in (image_shapes if op == "layer_norm2d" else row_shapes)]


def dims_of(shape):
    return tuple(int(d) for d in shape.split("x"))


def tensor_bytes(dtype, shape):
    return math.prod(dims_of(shape)) * BYTES_PER_ELEMENT[dtype]


def logical_bytes(direction, dtype, shape):
    return ACCESSES[direction] * tensor_bytes(dtype, shape)


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


# ---------------------------------------------------------------- analysis


def llc_bytes():
    """Last-level cache size from sysfs ("32768K"); 32 MiB when unknown."""
    try:
        text = Path("/sys/devices/system/cpu/cpu0/cache/index3/size").read_text().strip()
        units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
        return int(text.rstrip("KMG")) * units.get(text[-1], 1)
    except (OSError, ValueError):
        return 32 << 20


def regime(direction, dtype, shape, llc):
    if tensor_bytes(dtype, shape) >= 4 * llc:
        return "dram"
    if logical_bytes(direction, dtype, shape) <= llc:
        return "cache"
    return "mixed"


def reference_column(direction, shape_regime):
    """DRAM STREAM for dram shapes, else a copy/add of the same bytes."""
    access = "copy" if direction == "forward" else "add"
    return f"{'stream' if shape_regime == 'dram' else 'cache'}_{access}"


@dataclass(frozen=True)
class Line:
    """One line of a report table: a shape at a thread count, with the rows
    halnorm is compared with (None where nothing was recorded)."""
    op: str
    direction: str
    dtype: str
    shape: str
    threads: int
    regime: str
    reference: str  # the runner column "ref" stands for
    cells: dict  # "halnorm", "ref" and each of PEER_COLUMNS -> Row | None

    def gbps(self, name):
        row = self.cells[name]
        return row.gbps if row else None

    def ran(self, name):
        return self.gbps(name) is not None

    def ratio(self, name):
        """halnorm's GB/s over `name`'s; None unless both ran."""
        mine, theirs = self.gbps("halnorm"), self.gbps(name)
        return mine / theirs if mine is not None and theirs else None

    def label(self):
        threads = f"{self.threads} thread{'s' if self.threads > 1 else ''}"
        return f"{self.op} {self.direction} {self.dtype} {self.shape}, {threads}"


def report_lines(rows, cases, threads, llc):
    """Lines in grid order, for every case with at least one row."""
    by_key = {row.key(): row for row in rows}
    measured = {(row.op, row.dtype, row.shape) for row in rows}
    lines = []
    for op, dtype, shape in (case for case in cases if case in measured):
        for direction in DIRECTIONS:
            shape_regime = regime(direction, dtype, shape, llc)
            reference = reference_column(direction, shape_regime)
            for count in threads:
                cells = {name: by_key.get((op, direction, dtype, shape, count, name))
                         for name in ("halnorm", *PEER_COLUMNS)}
                cells["ref"] = by_key.get((op, "-", dtype, shape, count, reference))
                lines.append(Line(op, direction, dtype, shape, count, shape_regime,
                                  reference, cells))
    return lines


@dataclass(frozen=True)
class Target:
    title: str
    versus: str  # the cell halnorm's GB/s is divided by
    threshold: float
    applies: Callable[[Line], bool]

    def met(self, line):
        ratio = line.ratio(self.versus)
        return ratio is not None and ratio >= self.threshold

    def shortfall_order(self, line):
        """Sort key, worst first: lines where halnorm did not run, then by ratio."""
        ratio = line.ratio(self.versus)
        return -math.inf if ratio is None else ratio


def is_small_row_norm(line):
    return line.op != "layer_norm2d" and dims_of(line.shape)[0] <= 16


TARGETS = (
    Target("forward >= 0.90x DRAM STREAM copy, dram shapes", "ref", 0.90,
           lambda line: line.direction == "forward" and line.regime == "dram"),
    Target("backward >= 0.80x DRAM STREAM add, dram shapes", "ref", 0.80,
           lambda line: line.direction == "backward" and line.regime == "dram"),
    Target(">= 0.70x a copy/add of the same bytes, cache shapes", "ref", 0.70,
           lambda line: line.regime == "cache"),
    Target(">= 1.2x oneDNN, where oneDNN ran", "onednn", 1.2,
           lambda line: line.ran("onednn")),
    Target(">= 2x PyTorch, where PyTorch ran", "pytorch", 2.0,
           lambda line: line.ran("pytorch")),
    Target("row norms with M <= 16: >= 1.0x oneDNN, where oneDNN ran", "onednn", 1.0,
           lambda line: is_small_row_norm(line) and line.ran("onednn")),
)


# ---------------------------------------------------------------- report.md


def markdown(rows, lines, args, llc, complete, case_count):
    sections = {}
    for line in lines:
        sections.setdefault((line.op, line.direction, line.dtype), []).append(line)
    parts = [header(rows, args, llc, complete, case_count), targets_summary(lines)]
    parts += [table_section(" ".join(key), section) for key, section in sections.items()]
    return "\n\n".join(parts) + "\n"


def header(rows, args, llc, complete, case_count):
    measured = len({(row.op, row.dtype, row.shape) for row in rows})
    coverage = f"{measured} of {case_count} (op, dtype, shape) cases"
    if not complete:
        coverage += ", interrupted: partial data"
    return "\n".join([
        "# halnorm performance report",
        "",
        f"- Date: {datetime.datetime.now():%Y-%m-%d %H:%M}",
        f"- CPU: {cpu_model()}, {os.cpu_count()} logical CPUs; LLC {llc / (1 << 20):g} MiB",
        f"- Command: `{invocation(args)}`",
        f"- Coverage: {coverage}",
        "",
        "GB/s are logical, 1e9 bytes/s: a forward call moves 2·M·N·s bytes (reads x, "
        "writes y), a backward call 3·M·N·s (reads x and dy, writes dx); s is the bytes "
        "per element, M·N = N·C·H·W for layer_norm2d. Each value is a median over "
        f"{args.reps} repetitions. Regime: `dram` when M·N·s >= 4·LLC, `cache` when "
        "the call's logical bytes fit in the LLC, `mixed` otherwise. `ref` is DRAM "
        "STREAM copy (forward) or add (backward) at the same thread count on dram "
        "shapes, and a copy/add over arrays of M·N·s bytes each on the others "
        "(no target applies to mixed shapes).",
        "",
        stream_table(rows),
    ])


def cpu_model():
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def invocation(args):
    """The command that reproduces this report."""
    if "BUILD_WORKSPACE_DIRECTORY" not in os.environ:
        return shlex.join(["python3", *sys.argv])
    flags = ["--quick"] if args.quick else []
    for name, default in (("ops", OPS), ("dtypes", DTYPES),
                          ("threads", DEFAULT_THREADS), ("reps", DEFAULT_REPS)):
        value = getattr(args, name)
        if value != default:
            text = ",".join(map(str, value)) if isinstance(value, tuple) else str(value)
            flags.append(f"--{name}={text}")
    return " ".join(["bazel run //bench:report", *(["--", *flags] if flags else [])])


def stream_table(rows):
    """Medians over all runner calls: the machine's bandwidth drifts, which
    is why each halnorm row is compared with its own call's STREAM."""
    table = ["| threads | DRAM STREAM copy GB/s | DRAM STREAM add GB/s |", "|---|---|---|"]
    for count in sorted({row.threads for row in rows}):
        medians = []
        for column in ("stream_copy", "stream_add"):
            values = [row.gbps for row in rows if row.column == column
                      and row.threads == count and row.gbps is not None]
            medians.append(number(statistics.median(values)) if values else "n/a")
        table.append(markdown_row([str(count), *medians]))
    return "\n".join(table)


def targets_summary(lines):
    overview = ["## Targets", "", "| # | target | met | shapes |", "|---|---|---|---|"]
    details = []
    for index, target in enumerate(TARGETS, 1):
        scope = [line for line in lines if target.applies(line)]
        met = sum(target.met(line) for line in scope)
        overview.append(markdown_row([str(index), target.title, str(met), str(len(scope))]))
        details += ["", f"**{index}. {target.title}**: {met} of {len(scope)} met."]
        worst = sorted(scope, key=target.shortfall_order)[:10]
        if worst:
            details += ["Worst:", ""]
            details += [f"- {line.label()}: {ratio_text(line.ratio(target.versus))}"
                        for line in worst]
    return "\n".join(overview + details)


TABLE_HEADER = ("shape", "threads", "regime", "halnorm GB/s", "ref GB/s", "halnorm/ref",
                "oneDNN GB/s", "halnorm/oneDNN", "PyTorch GB/s", "halnorm/PyTorch",
                "naive GB/s")


def table_section(title, lines):
    notes = Footnotes()
    body = [markdown_row(table_cells(line, notes)) for line in lines]
    refs = sorted({line.reference for line in lines})
    section = [f"## {title}", "", f"ref: {', '.join(refs)}.", "",
               markdown_row(TABLE_HEADER), markdown_row(["---"] * len(TABLE_HEADER)), *body]
    return "\n".join(section + notes.render())


def table_cells(line, notes):
    return [line.shape, str(line.threads), line.regime,
            gbps_cell(line, "halnorm", notes),
            gbps_cell(line, "ref", notes), ratio_text(line.ratio("ref")),
            gbps_cell(line, "onednn", notes), ratio_text(line.ratio("onednn")),
            gbps_cell(line, "pytorch", notes), ratio_text(line.ratio("pytorch")),
            gbps_cell(line, "naive", notes)]


def gbps_cell(line, name, notes):
    if line.ran(name):
        return number(line.gbps(name))
    row = line.cells[name]
    who = line.reference if name == "ref" else DISPLAY_NAMES[name]
    return notes.mark(who, row.reason() if row else "not measured")


class Footnotes:
    """Why cells are n/a: each reason once per table, numbered by first use,
    with the columns it struck (a failed runner call strikes them all)."""

    def __init__(self):
        self.columns_by_reason = {}

    def mark(self, column, reason):
        columns = self.columns_by_reason.setdefault(reason, [])
        if column not in columns:
            columns.append(column)
        return f"n/a ({list(self.columns_by_reason).index(reason) + 1})"

    def render(self):
        if not self.columns_by_reason:
            return []
        return [""] + [f"- ({number}) {', '.join(columns)}: {reason}" for number, (reason, columns)
                       in enumerate(self.columns_by_reason.items(), 1)]


def number(value):
    return f"{value:.2f}"


def ratio_text(ratio):
    return "n/a" if ratio is None else number(ratio)


def markdown_row(cells):
    return "| " + " | ".join(cells) + " |"


def write_atomically(path, text):
    staged = path.with_name(path.name + ".tmp")
    staged.write_text(text)
    os.replace(staged, path)


# ---------------------------------------------------------------- report.png

PLOT_SCRIPT = Path(__file__).with_name("report_plot.gp")
PLOT_ROWS = 4096  # the M of every panel
PLOT_OPS = ("layer_norm", "rms_norm")
PLOT_DTYPES = ("f32", "bf16")
PLOT_PEERS = ("halnorm", *PEER_COLUMNS)


def write_plot(rows, threads, out_dir):
    """report.png: GB/s against N at M = PLOT_ROWS and the most threads, a
    panel per direction, op and dtype that has data."""
    count = max(threads)
    by_key = {row.key(): row for row in rows}
    with tempfile.TemporaryDirectory() as data_dir:
        panels = []
        for direction in DIRECTIONS:
            for op in PLOT_OPS:
                for dtype in PLOT_DTYPES:
                    table = panel_table(by_key, op, direction, dtype, count)
                    if table:
                        stem = f"{op}_{dtype}_{direction}"
                        Path(data_dir, f"{stem}.dat").write_text(table)
                        panels.append((stem, f"{op} {dtype} {direction}"))
        if not panels:
            print(f"report.png not written: no layer_norm/rms_norm f32/bf16 rows at "
                  f"M={PLOT_ROWS}", file=sys.stderr)
            return
        run_gnuplot(data_dir, panels, f"M = {PLOT_ROWS} rows, {count} threads",
                    out_dir / "report.png")


def panel_table(by_key, op, direction, dtype, threads):
    """gnuplot data, a line per N with NaN for what did not run; None when
    nothing at all ran."""
    lengths = sorted({dims_of(shape)[1] for (row_op, _, row_dtype, shape, _, _) in by_key
                      if (row_op, row_dtype) == (op, dtype) and dims_of(shape)[0] == PLOT_ROWS})
    access = "copy" if direction == "forward" else "add"
    header = ["N", *(f'"{DISPLAY_NAMES[peer]}"' for peer in PLOT_PEERS), f'"DRAM STREAM {access}"']
    lines, any_value = [" ".join(header)], False
    for length in lengths:
        shape = f"{PLOT_ROWS}x{length}"
        keys = [(op, direction, dtype, shape, threads, peer) for peer in PLOT_PEERS]
        keys.append((op, "-", dtype, shape, threads, f"stream_{access}"))
        values = [by_key[key].gbps if key in by_key else None for key in keys]
        any_value = any_value or any(value is not None for value in values)
        lines.append(" ".join([str(length), *("NaN" if v is None else f"{v:.3f}" for v in values)]))
    return "\n".join(lines) + "\n" if any_value else None


def run_gnuplot(data_dir, panels, heading, png):
    staged = png.with_name(png.name + ".tmp")
    settings = "; ".join([
        f"datadir = '{data_dir}'",
        f"out = '{staged}'",
        f"heading = '{heading}'",
        f"panels = '{' '.join(stem for stem, _ in panels)}'",
        # word() keeps a double-quoted title with spaces as one word.
        f"""titles = '{' '.join(f'"{title}"' for _, title in panels)}'""",
        f"layout_rows = {min(2, len(panels))}",
        f"layout_cols = {math.ceil(len(panels) / 2)}",
    ])
    try:
        result = subprocess.run(["gnuplot", "-e", settings, str(PLOT_SCRIPT)],
                                capture_output=True, text=True)
    except OSError as error:
        print(f"report.png not written: {error}", file=sys.stderr)
        return
    if result.returncode != 0:
        print(f"report.png not written: gnuplot: {result.stderr.strip()}", file=sys.stderr)
        return
    os.replace(staged, png)


# ---------------------------------------------------------------- main


def main(argv):
    args = parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    cases = grid(args.ops, args.dtypes, args.quick)
    results = Results(args.out / "report.csv")
    try:
        complete = measure_grid(args, cases, results)
    finally:
        results.close()
    llc = llc_bytes()
    lines = report_lines(results.rows, cases, args.threads, llc)
    write_atomically(args.out / "report.md",
                     markdown(results.rows, lines, args, llc, complete, len(cases)))
    write_plot(results.rows, args.threads, args.out)
    print(f"report in {args.out}", file=sys.stderr)
    return 0 if complete else 130


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
