"""Thread sweeps: the same measured workload at rising client thread counts, one experiment per step.

A lab declares its sweep with a top-level key of experiment.yml, the experiments of its steps from the
lowest concurrency to the highest (docs/contracts.md section 8): one unnamed sweep (lab 05)::

    sweep: [netty_rpc_sweep1, netty_rpc_sweep2, netty_rpc_sweep3, netty_rpc]

or several named ones (lab 10: one per YCSB scenario; report.md gets a subsection and a figure each)::

    sweeps:
      ycsb_insert: [ycsb_insert_t1, ycsb_insert_t2, ycsb_insert]
      ycsb_read: [ycsb_read_t1, ycsb_read_t2, ycsb_read]

Each step is an ordinary experiment measured by one pe or ycsb phase, so its table and claims work as
everywhere else; this module lines the steps up per variant: client threads (the last word of a pe
command, the value of a ycsb command's ``-threads N`` (1 without it), as the spec fills it for the run's
scale, times the client hosts), throughput and average latency.

The saturation point of a variant is the knee of its throughput curve: the fewest threads that reach
``SATURATION_SHARE`` (90%) of its peak throughput. From there on the server is busy all the time, and more
clients only queue longer; a variant that gets there only at the last step is not saturated (still
climbing).  PE's clients are a closed loop (each thread sends its next get when the last one is answered),
so past that point the average latency grows with the threads: latency ~ threads / throughput.
"""

from __future__ import annotations

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import NullLocator

from heaplab.judge.comparison import fmt
from heaplab.judge.run_analysis import Analysis
from heaplab.lab.sweeps import LEGACY_NAME
from heaplab.report.figures import save_png
from heaplab.report.sweep_points import (
    SATURATION_SHARE,
    Point,
    Saturation,
    points,
    saturation,
    step_threads,
    sweep_experiments,
    sweeps,
    unit_of,
)
from heaplab.runfiles.rundir import Run

# heaplab.sweep, as the notebooks read it: this module's tables and figures, and the steps lined up
# (heaplab.report.sweep_points).
__all__ = [
    "FIGURE",
    "FIGURE_OF",
    "OVERVIEW_HEADER",
    "SATURATION_SHARE",
    "SERVER_COLUMNS",
    "Point",
    "Saturation",
    "figure_path",
    "is_named",
    "overview",
    "overview_markdown",
    "points",
    "report_lines",
    "saturation",
    "step_threads",
    "sweep_experiments",
    "sweep_figure",
    "sweeps",
    "to_markdown",
    "write_figure",
]

FIGURE = "figures/sweep.png"  # the figure of `sweep:`
FIGURE_OF = "figures/sweep-{name}.png"  # one figure per named sweep of `sweeps:`


SERVER_COLUMNS = (
    ("cpu_us_per_get", "CPU us/get"),
    ("handler_us_per_get", "handler us/get"),
    ("queue_ms", "queue wait (ms)"),
)


def to_markdown(a: Analysis, name: str | None = None) -> str:
    """The sweep as markdown ("" when the lab has no sweep): a table of threads, TPS and AVG per variant and
    the TPS ratios of _ratio_pairs; when measured, a second table of the server side per step
    (process CPU per get, handler time per get, a GET's mean wait in the call queue); then one line per
    variant saying where it saturates."""
    rows = points(a, name)
    if not rows:
        return ""
    variants = list(rows)
    steps = sweep_experiments(a.run, name)
    header = ["step", "threads"]
    for v in variants:
        header += [f"{v} TPS", f"{v} AVG (ms)"]
    pairs = _ratio_pairs(a.run, variants)
    header += [f"TPS {b} / {a_}" for a_, b in pairs]
    lines = _table_head(header)
    for i, exp in enumerate(steps):
        cells = [exp, str(rows[variants[0]][i].threads)]
        for v in variants:
            p = rows[v][i]
            cells += [fmt("throughput", p.throughput), fmt("latency_avg", p.latency_avg)]
        for first_v, last_v in pairs:
            first, last = rows[first_v][i].throughput, rows[last_v][i].throughput
            cells.append(f"{last / first:.2f}x" if first and last is not None else "-")
        lines.append("| " + " | ".join(cells) + " |")
    server = [
        (key, label)
        for key, label in SERVER_COLUMNS
        if any(getattr(p, key) is not None for row in rows.values() for p in row)
    ]
    if server:
        lines += ["", "Server side, per step:", ""]
        lines += _table_head(["step", "threads"] + [f"{v} {label}" for v in variants for _, label in server])
        for i, exp in enumerate(steps):
            cells = [exp, str(rows[variants[0]][i].threads)]
            cells += [_num(getattr(rows[v][i], key)) for v in variants for key, _ in server]
            lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    lines += [f"- {saturation(v, rows[v]).text}" for v in variants]
    return "\n".join(lines)


def _ratio_pairs(run: Run, variants: list[str]) -> list[tuple[str, str]]:
    """The TPS ratios the table shows, as (denominator, numerator): the sweep's second engine variant over
    its first and the same pair on each subject (lab 05: NettyRpcServer over SimpleRpcServer on the engine
    and on Apache HBase); with fewer than two engine variants, the last variant over the first."""
    twins = {v for mapping in run.spec.subjects.values() for v in mapping.values()}
    engine = [v for v in variants if v not in twins]
    if len(engine) < 2:
        return [(variants[0], variants[-1])] if len(variants) >= 2 else []
    first, second = engine[:2]
    pairs = [(first, second)]
    for mapping in run.spec.subjects.values():
        if mapping.get(first) in variants and mapping.get(second) in variants:
            pairs.append((mapping[first], mapping[second]))
    return pairs


def _table_head(header: list[str]) -> list[str]:
    return ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]


def _num(v: float | None) -> str:
    return "-" if v is None else f"{v:.3g}" if abs(v) < 100 else f"{v:.0f}"


def is_named(run: Run) -> bool:
    """The lab declares ``sweeps:`` (named sweeps) rather than lab 05's ``sweep:``."""
    return bool(run.spec.sweeps) and LEGACY_NAME not in run.spec.sweeps


def figure_path(run: Run, name: str) -> str:
    """The figure of sweep ``name``, relative to the run directory."""
    return FIGURE_OF.format(name=name) if is_named(run) else FIGURE


def overview(a: Analysis) -> list[tuple[str, str, Saturation, Point | None, Point | None]]:
    """Per sweep and variant: (sweep, variant, its saturation, its first and last measured step)."""
    out = []
    for name in sweeps(a.run):
        for v, row in points(a, name).items():
            measured = [p for p in row if p.throughput is not None]
            first, last = (measured[0], measured[-1]) if measured else (None, None)
            out.append((name, v, saturation(v, row), first, last))
    return out


OVERVIEW_HEADER = [
    "sweep",
    "variant",
    "peak TPS",
    "at threads",
    "saturated at",
    "AVG first (ms)",
    "AVG last (ms)",
    "AVG x",
]


def overview_markdown(a: Analysis) -> str:
    """One row per sweep and variant: peak throughput and where, the saturation point, the average
    latency at the first and the last step and how much it grew ("" when the lab has no named sweeps)."""
    rows = overview(a)
    if not rows:
        return ""
    lines = _table_head(OVERVIEW_HEADER)
    for name, v, sat, first, last in rows:
        growth = (
            f"{last.latency_avg / first.latency_avg:.1f}x"
            if first and last and first.latency_avg and last.latency_avg is not None
            else "-"
        )
        cells = [
            name,
            v,
            fmt("throughput", sat.peak_throughput),
            str(sat.peak_threads) if sat.peak_threads is not None else "-",
            str(sat.threads) if sat.threads is not None else "not saturated" if sat.peak_throughput else "-",
            fmt("latency_avg", first.latency_avg if first else None),
            fmt("latency_avg", last.latency_avg if last else None),
            growth,
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def report_lines(a: Analysis) -> list[str]:
    """report.md's sweep section ([] when the lab has no sweep): lab 05's ``sweep:`` as one section; named
    ``sweeps:`` as an overview table, then one subsection (table, saturation, figure) per sweep."""
    found = sweeps(a.run)
    if not found:
        return []
    knee = (
        f"A variant saturates at the fewest threads that reach {SATURATION_SHARE * 100:.0f}% of its peak "
        "throughput; past it, a closed loop of clients only waits longer (latency ~ threads / throughput)."
    )
    if not is_named(a.run):
        return [
            "## Thread sweep",
            "",
            "Throughput (gets/s) and average latency per client thread count, one measured read per step. "
            + knee,
            "",
            to_markdown(a),
            "",
            f"![throughput and latency against client threads]({FIGURE})",
            "",
        ]
    unit = unit_of(a.run, next(iter(found.values())))
    lines = [
        "## Thread sweeps",
        "",
        f"Throughput ({unit}) and average latency per client thread count, one measured run per step, one "
        "sweep per workload. " + knee,
        "",
        overview_markdown(a),
        "",
    ]
    for name in found:
        lines += [
            f"### {name}",
            "",
            to_markdown(a, name),
            "",
            f"![{name}: throughput and latency against client threads]({FIGURE_OF.format(name=name)})",
            "",
        ]
    return lines


def write_figure(a: Analysis) -> None:
    """The sweeps' figures in the run directory (``heaplab report``): figures/sweep.png for ``sweep:``,
    figures/sweep-<name>.png per named sweep."""
    for name in sweeps(a.run):
        save_png(sweep_figure(a, name), a.run.path / figure_path(a.run, name))


def sweep_figure(a: Analysis, name: str | None = None) -> Figure:
    """Throughput and average latency against client threads, one line per variant, saturation marked."""
    rows = points(a, name)
    unit = next((row[0].unit for row in rows.values() if row), "gets/s")
    title = f"{name}, " if name and name != LEGACY_NAME else ""
    fig = Figure(figsize=(11, 4), layout="constrained")
    FigureCanvasAgg(fig)
    tps, lat = fig.subplots(1, 2)
    for v, row in rows.items():
        shown = [p for p in row if p.throughput is not None]
        if not shown:
            continue
        xs = [p.threads for p in shown]
        (line,) = tps.plot(xs, [p.throughput for p in shown], marker="o", label=v)
        lat.plot(xs, [p.latency_avg for p in shown], marker="o", label=v, color=line.get_color())
        sat = saturation(v, row)
        if sat.threads is not None:
            tps.axvline(sat.threads, color=line.get_color(), linestyle=":", linewidth=1)
    ticks = sorted({p.threads for row in rows.values() for p in row})
    for ax, label in ((tps, f"throughput ({unit})"), (lat, "average latency (ms)")):
        ax.set_xscale("log", base=2)
        if ticks:
            ax.set_xticks(ticks, [str(t) for t in ticks])
            ax.xaxis.set_minor_locator(NullLocator())
        ax.set_ylim(bottom=0)
        ax.set_xlabel("client threads")
        ax.set_ylabel(label)
        ax.set_title(f"{title}{label} ({a.run.scale})")
        if ax.get_legend_handles_labels()[0]:
            ax.legend()
        else:
            ax.text(0.5, 0.5, "no measured variant", ha="center", va="center", transform=ax.transAxes)
    return fig
