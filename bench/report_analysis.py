"""What the performance report compares: bytes per call, the regime of each
shape (dram, cache, mixed) and its reference column, the report's lines
(halnorm against each peer) and the targets they are held to."""

import math
from dataclasses import dataclass
from typing import Callable

DIRECTIONS = ("forward", "backward")
BYTES_PER_ELEMENT = {"f32": 4, "f16": 2, "bf16": 2}
# Logical bytes per call are accesses x elements x s: forward reads x and
# writes y; backward reads x and dy and writes dx.
ACCESSES = {"forward": 2, "backward": 3}

# What halnorm is compared with besides its regime's reference ("ref").
PEER_COLUMNS = ("onednn", "pytorch", "naive")
DISPLAY_NAMES = {"halnorm": "halnorm", "onednn": "oneDNN", "pytorch": "PyTorch", "naive": "naive"}


def dims_of(shape):
    return tuple(int(d) for d in shape.split("x"))


def tensor_bytes(dtype, shape):
    return math.prod(dims_of(shape)) * BYTES_PER_ELEMENT[dtype]


def logical_bytes(direction, dtype, shape):
    return ACCESSES[direction] * tensor_bytes(dtype, shape)


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
    cells: dict  # "halnorm", "ref" and each of PEER_COLUMNS -> report.Row | None

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
    """halnorm's GB/s over `versus`'s, at least `threshold` on every line
    the target `applies` to."""
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
