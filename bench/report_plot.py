"""report.png of the performance report: GB/s against N, drawn by gnuplot
with bench/report_plot.gp."""

import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from report_analysis import DIRECTIONS, DISPLAY_NAMES, PEER_COLUMNS, dims_of

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
    """Draws `panels` ((data file stem, title) pairs) into `png`, replacing
    it only when gnuplot succeeds."""
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
