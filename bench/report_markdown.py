"""report.md of the performance report: a header with the machine and the
STREAM bandwidth, the targets summary, and a table per op, direction and
dtype with footnotes for the cells that are n/a."""

import datetime
import os
import statistics

from report_analysis import DISPLAY_NAMES, TARGETS


def markdown(rows, lines, *, llc, command, reps, complete, case_count):
    """The report's text. `command` reproduces it, `reps` is the repetitions
    per median, `case_count` the (op, dtype, shape) cases of the grid."""
    sections = {}
    for line in lines:
        sections.setdefault((line.op, line.direction, line.dtype), []).append(line)
    parts = [header(rows, llc, command, reps, complete, case_count), targets_summary(lines)]
    parts += [table_section(" ".join(key), section) for key, section in sections.items()]
    return "\n\n".join(parts) + "\n"


def header(rows, llc, command, reps, complete, case_count):
    measured = len({(row.op, row.dtype, row.shape) for row in rows})
    coverage = f"{measured} of {case_count} (op, dtype, shape) cases"
    if not complete:
        coverage += ", interrupted: partial data"
    return "\n".join([
        "# halnorm performance report",
        "",
        f"- Date: {datetime.datetime.now():%Y-%m-%d %H:%M}",
        f"- CPU: {cpu_model()}, {os.cpu_count()} logical CPUs; LLC {llc / (1 << 20):g} MiB",
        f"- Command: `{command}`",
        f"- Coverage: {coverage}",
        "",
        "GB/s are logical, 1e9 bytes/s: a forward call moves 2·M·N·s bytes (reads x, "
        "writes y), a backward call 3·M·N·s (reads x and dy, writes dx); s is the bytes "
        "per element, M·N = N·C·H·W for layer_norm2d. Each value is a median over "
        f"{reps} repetitions. Regime: `dram` when M·N·s >= 4·LLC, `cache` when "
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
        return [""] + [f"- ({index}) {', '.join(columns)}: {reason}" for index, (reason, columns)
                       in enumerate(self.columns_by_reason.items(), 1)]


def number(value):
    return f"{value:.2f}"


def ratio_text(ratio):
    return "n/a" if ratio is None else number(ratio)


def markdown_row(cells):
    return "| " + " | ".join(cells) + " |"
